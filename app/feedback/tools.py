"""The feedback tool: the person's own words sent to the Beyou team, when they ask."""

from typing import Literal

from flask_babel import lazy_gettext as _l
from pydantic import BaseModel, Field

from app.agent.registry import tool
from app.feedback import services as feedback


class FeedbackNew(BaseModel):
    kind: Literal["BUG", "FEATURE_REQUEST", "OTHER"]
    text: str = Field(description="The person's own words, as they confirmed them (5–4000 characters).")


@tool(domain="feedback", kind="write", label=_l("Sent your feedback"), page="/feedback", args=FeedbackNew)
def submitUserFeedback(ctx, args):
    """Send feedback to the Beyou team: ONLY when the person asked, in their own words, after
    confirming the exact text and kind."""
    sent = feedback.submit(ctx.user, args.kind, args.text, page=ctx.page)
    return {"sent": True, "id": str(sent.id)}
