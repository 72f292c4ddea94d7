"""Where each tool is declared once: its name, what the model is told, its typed arguments,
read or write, the domain it belongs to, and a handler into the service layer.

The handler runs as the turn's user; the model never names the user. Refusals come back to the
model as data it can act on (the key, the translated message, the candidates), never as an
exception, and every call is counted.

A write declared with `confirm=<preview>` (every delete, a rebuilt routine, a check or a
completion that moves XP) does not run on the model's word: the preview reads what it would
change, a pending action is stored, and the model is told it awaits the person's click on the
chat's card (app/agent/confirmations.py performs it). The preview refuses at once what the click
would refuse (an unknown name, a habit still in a routine), so the card only offers what can be done.
"""

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from flask import current_app
from prometheus_client import Counter
from pydantic import BaseModel, ValidationError

from app import events
from app.extensions import db
from app.llm import ToolSpec
from app.services import pending_actions
from app.services.errors import DomainError

log = logging.getLogger("beyou.agent.tools")

TOOL_CALLS = Counter("beyou_agent_tool_calls_total", "Tool calls by tool and outcome", ["tool", "outcome"])


@dataclass(frozen=True)
class ToolContext:
    """What a handler knows besides its arguments: who is acting, in which chat, from which page."""

    user: Any
    chat: Any
    page: str | None = None
    focus_entry_id: Any = None


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    args_model: type[BaseModel]
    kind: Literal["read", "write"]
    domain: str  # the declared domain whose service it calls; a write announces it
    label: Any  # a lazy translated string shown on the chip or card ("Created a habit")
    page: str | None  # where a write's card links to
    handler: Callable[[ToolContext, BaseModel], Any]
    core: bool = False  # sent on every model round, whatever the page (toolsets.py)
    # A write the person confirms: (ctx, args) → Proposal, or a dict answered at once when there
    # is nothing to change (completing a goal already completed). None: it runs when called.
    confirm: Callable[[ToolContext, BaseModel], Any] | None = None

    @property
    def spec(self):
        return ToolSpec(self.name, self.description, self.args_model)


@dataclass(frozen=True)
class Proposal:
    """What a confirmed write would change, read before anything runs: the card's words (names,
    not ids, in the person's language), the arguments pinned to the rows they named, and the
    facts the click reads again (a difference means the card no longer says what would happen)."""

    summary: str
    arguments: dict
    facts: dict


AWAITING = (
    "Nothing has been done yet. The person sees a card with this change and Confirm and Cancel buttons; only "
    "their click performs it (within {minutes} minutes). Do not say it was done and do not ask again for a "
    "yes: say in one line what awaits their confirmation on the card."
)
CONFIRM_NOTE = " Nothing happens until the person confirms it on the card the chat shows them."


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


REGISTRY: dict[str, Tool] = {}


class NoArguments(BaseModel):
    pass


def tool(*, domain, kind, label, page=None, args=NoArguments, core=False, description=None, confirm=None):
    """Register the decorated function as a tool named after it; its docstring is the description
    unless one is given (a description built from declarations). `confirm`: the preview of a
    write that waits for the person's click (its description says so)."""

    def register(handler):
        name = handler.__name__
        if name in REGISTRY:
            raise ValueError(f"tool {name} is declared twice")
        told = description or " ".join((handler.__doc__ or "").split())
        REGISTRY[name] = Tool(
            name=name,
            description=told + (CONFIRM_NOTE if confirm is not None else ""),
            args_model=args,
            kind=kind,
            domain=domain,
            label=label,
            page=page,
            handler=handler,
            core=core,
            confirm=confirm,
        )
        return handler

    return register


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


def pinned(args, **ids):
    """The validated arguments as JSON, with the names the model sent replaced by the ids they
    resolved to: the click acts on the rows the card named, whatever is renamed meanwhile."""
    return {**args.model_dump(mode="json"), **{key: str(value) for key, value in ids.items()}}


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
