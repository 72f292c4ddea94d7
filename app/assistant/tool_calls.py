"""Running one tool call for the model: the arguments checked against the tool's schema, the
handler run as the turn's user inside its own announcement scope, a refusal or a failure turned
into data the model can act on, and every call counted.

A write declared with `confirm=<preview>` does not run on the model's word: the preview reads
what it would change, a pending action is stored, and the model is told it awaits the person's
click on the chat's card (confirmations.py performs it).
"""

import json
import logging
from dataclasses import dataclass
from typing import Any

from flask import current_app
from prometheus_client import Counter
from pydantic import ValidationError

from app import events
from app.agent.registry import REGISTRY, Proposal, Tool
from app.assistant import pending_actions
from app.extensions import db
from app.shared.errors import DomainError

log = logging.getLogger("beyou.agent.tools")

TOOL_CALLS = Counter("beyou_agent_tool_calls_total", "Tool calls by tool and outcome", ["tool", "outcome"])

AWAITING = (
    "Nothing has been done yet. The person sees a card with this change and Confirm and Cancel buttons; only "
    "their click performs it (within {minutes} minutes). Do not say it was done and do not ask again for a "
    "yes: say in one line what awaits their confirmation on the card."
)


@dataclass(frozen=True)
class ToolOutcome:
    tool: Tool | None
    name: str
    result: Any  # JSON-able; what the model reads back
    error_key: str | None
    domains: tuple[str, ...]

    @property
    def as_model_content(self):
        return json.dumps(self.result, ensure_ascii=False, default=str)

    @property
    def pending_action_id(self):
        """The pending action this call proposed (its card), or None."""
        if isinstance(self.result, dict) and isinstance(self.result.get("awaiting_confirmation"), dict):
            return self.result["awaiting_confirmation"]["id"]
        return None


def run(context, name, arguments):
    """Run one tool call for the model; never raises."""
    found = REGISTRY.get(name)
    if found is None:
        TOOL_CALLS.labels(name[:64], "unknown").inc()
        return ToolOutcome(None, name, {"error": "UNKNOWN_TOOL", "message": f"There is no tool named {name}."},
                           "UNKNOWN_TOOL", ())  # fmt: skip
    if _holds_nul(arguments):
        TOOL_CALLS.labels(name, "invalid_arguments").inc()
        return ToolOutcome(found, name, DomainError("TEXT_HAS_NUL").to_dict(), "TEXT_HAS_NUL", ())
    try:
        parsed = found.args_model.model_validate(arguments or {})
    except ValidationError as invalid:
        TOOL_CALLS.labels(name, "invalid_arguments").inc()
        return ToolOutcome(found, name, _invalid_arguments(invalid), "INVALID_ARGUMENTS", ())
    with events.collecting() as announced:
        try:
            result = _propose(context, found, parsed) if found.confirm else found.handler(context, parsed)
        except DomainError as refusal:
            db.session.rollback()
            TOOL_CALLS.labels(name, "refused").inc()
            return ToolOutcome(found, name, refusal.to_dict(), refusal.key, tuple(sorted(announced)))
        except Exception:
            db.session.rollback()
            log.exception("tool %s failed", name)
            TOOL_CALLS.labels(name, "failed").inc()
            failure = {"error": "TOOL_FAILED", "message": "The tool failed unexpectedly; nothing more is known."}
            return ToolOutcome(found, name, failure, "TOOL_FAILED", tuple(sorted(announced)))
    TOOL_CALLS.labels(name, "ok").inc()
    return ToolOutcome(found, name, result if result is not None else {"ok": True}, None, tuple(sorted(announced)))


def _propose(context, found, parsed):
    """Store what the confirmed write would do and tell the model it awaits the person's click;
    a preview with nothing to change answers at once."""
    proposal = found.confirm(context, parsed)
    if not isinstance(proposal, Proposal):
        return proposal
    action = pending_actions.propose(context.user, context.chat, found.name, proposal.arguments, proposal.summary,
                                     proposal.facts)  # fmt: skip
    minutes = current_app.config["AGENT_CONFIRMATION_MINUTES"]
    return {
        "awaiting_confirmation": {"id": str(action.id), "summary": proposal.summary},
        "message": AWAITING.format(minutes=minutes),
    }


def _holds_nul(value):
    """Whether a NUL character hides anywhere in the arguments (PostgreSQL cannot store one)."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_holds_nul(key) or _holds_nul(item) for key, item in value.items())
    if isinstance(value, list | tuple):
        return any(_holds_nul(item) for item in value)
    return False


def _invalid_arguments(invalid):
    problems = [
        {"field": ".".join(str(part) for part in error["loc"]) or "(arguments)", "problem": error["msg"]}
        for error in invalid.errors()
    ]
    return {
        "error": "INVALID_ARGUMENTS",
        "message": "The arguments do not match the tool's schema; fix them and call again.",
        "details": problems,
    }
