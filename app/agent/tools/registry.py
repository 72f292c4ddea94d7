"""Where each tool is declared once: its name, what the model is told, its typed arguments,
read or write, the domain it belongs to, and a handler into the service layer.

The handler runs as the turn's user; the model never names the user. Refusals come back to the
model as data it can act on (the key, the translated message, the candidates), never as an
exception, and every call is counted.
"""

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from prometheus_client import Counter
from pydantic import BaseModel, ValidationError

from app import events
from app.extensions import db
from app.llm import ToolSpec
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

    @property
    def spec(self):
        return ToolSpec(self.name, self.description, self.args_model)


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


REGISTRY: dict[str, Tool] = {}


class NoArguments(BaseModel):
    pass


def tool(*, domain, kind, label, page=None, args=NoArguments, core=False, description=None):
    """Register the decorated function as a tool named after it; its docstring is the description
    unless one is given (a description built from declarations)."""

    def register(handler):
        name = handler.__name__
        if name in REGISTRY:
            raise ValueError(f"tool {name} is declared twice")
        REGISTRY[name] = Tool(
            name=name,
            description=description or " ".join((handler.__doc__ or "").split()),
            args_model=args,
            kind=kind,
            domain=domain,
            label=label,
            page=page,
            handler=handler,
            core=core,
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
            result = found.handler(context, parsed)
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
