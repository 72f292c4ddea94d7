"""The person's click on a confirmation card: what performs a change the assistant proposed.

A tool declared `confirm=` only stored a pending action (app/agent/registry.py). Confirm
claims it with a conditional UPDATE — exactly one click, tab or worker wins, and an expired card
cannot be claimed — then reads the change again as the person (ownership, and the facts the card
showed: a habit renamed or an item checked meanwhile refuses it), and runs the tool's own handler,
which calls the same service functions the pages use. The outcome is stored on the action; the
chat's next turn carries it to the model (app/assistant/prompt.py).
"""

import json
import logging
from dataclasses import dataclass

from app.agent import registry
from app.assistant import pending_actions, tool_calls
from app.assistant.models.pending_actions import ActionState
from app.extensions import db
from app.shared.errors import Conflict, DomainError

log = logging.getLogger("beyou.agent.confirmations")

# What the model reads in place of "awaiting confirmation" once the person decided (English: the model reads it).
TOLD_THE_MODEL = {
    ActionState.CONFIRMED: "The person confirmed on the card and it was done: `outcome` is what the tool answered.",
    ActionState.CANCELLED: "The person cancelled on the card: nothing was done.",
    ActionState.EXPIRED: "Nobody confirmed in time, so nothing was done and the card is closed. Call the tool "
    "again only if the person asks for it again.",
    ActionState.FAILED: "The person confirmed, but it could not be done: `outcome` says why.",
    ActionState.INTERRUPTED: "The person confirmed, but the server stopped before recording whether it was "
    "done. Check with a read tool before saying it was or was not done; do not do it again unless the person asks.",
}


@dataclass(frozen=True)
class Decision:
    """What a click came to: the action as it now stands, and whether this click decided it."""

    action: object
    decided: bool  # False: it had been decided before (a replay, a second tab) or had expired

    @property
    def state(self):
        return pending_actions.effective_state(self.action)


def confirm(user, action_id):
    """Perform the user's pending action, once."""
    action = pending_actions.get(user, action_id)
    if not pending_actions.claim(action):
        pending_actions.expire(action)
        return Decision(action, decided=False)
    found = registry.REGISTRY.get(action.tool)
    context = registry.ToolContext(user=user, chat=action.chat)
    try:
        if found is None or found.confirm is None:  # a tool renamed or redeclared since the card was made
            raise Conflict("ACTION_CHANGED")
        arguments = found.args_model.model_validate(action.arguments)
        now = found.confirm(context, arguments)
        if not isinstance(now, registry.Proposal) or now.facts != action.facts:
            raise Conflict("ACTION_CHANGED")
        result = found.handler(context, arguments)
    except DomainError as refusal:
        db.session.rollback()
        tool_calls.TOOL_CALLS.labels(action.tool, "refused").inc()
        pending_actions.settle(action, ActionState.FAILED, refusal.to_dict())
        return Decision(action, decided=True)
    except Exception:
        db.session.rollback()
        log.exception("confirmed action %s (%s) failed", action.id, action.tool)
        tool_calls.TOOL_CALLS.labels(action.tool, "failed").inc()
        failure = {"error": "TOOL_FAILED", "message": "The tool failed unexpectedly; nothing more is known."}
        pending_actions.settle(action, ActionState.FAILED, failure)
        return Decision(action, decided=True)
    tool_calls.TOOL_CALLS.labels(found.name, "ok").inc()
    pending_actions.settle(action, ActionState.CONFIRMED, _as_json(result if result is not None else {"ok": True}))
    return Decision(action, decided=True)


def cancel(user, action_id):
    """Nothing will be done: the card closes as cancelled (unless it was decided before, or
    expired: then it says so)."""
    action = pending_actions.get(user, action_id)
    decided = pending_actions.cancel(action)
    if not decided:
        pending_actions.expire(action)
    return Decision(action, decided=decided)


def told_the_model(action):
    """The tool result the next turns send in place of "awaiting confirmation"."""
    state = pending_actions.effective_state(action)
    told = {"confirmation": {"id": str(action.id), "summary": action.summary, "status": state.value},
            "message": TOLD_THE_MODEL[state]}  # fmt: skip
    if action.outcome is not None:
        told["outcome"] = action.outcome
    return told


def _as_json(result):
    """The tool's answer as stored JSON (dates and ids as strings), as the model would have read it."""
    return json.loads(json.dumps(result, ensure_ascii=False, default=str))
