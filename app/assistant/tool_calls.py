"""Running one tool call for the model: the arguments checked against the tool's schema, the
handler run as the turn's user inside its own announcement scope, a refusal or a failure turned
into data the model can act on, and every call counted.

A write declared with `confirm=<preview>` does not run on the model's word: the preview reads
what it would change, a pending action is stored, and the model is told it awaits the person's
click on the chat's card (confirmations.py performs it).

Small models get a call nearly right, and what the schema allows without a guess is read as
meant (`resolve`, `as_the_schema_allows`): the tool's name in another case or with underscores,
argument keys in camelCase for snake_case fields, the arguments wrapped in an `arguments` key or
sent as a JSON string, a JSON string where an object or a list is due, a number where text is
due, an enum value in another case, and a null for a field that may be left out but is not
nullable. Pydantic's lax mode already reads "3" as 3 and "true" as True. A call whose arguments
could not be read at all (the adapter says why) is answered with that, for the model to fix.
"""

import collections
import json
import logging
import re
from dataclasses import dataclass
from functools import lru_cache
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


ARGUMENTS_UNREADABLE = "ARGUMENTS_UNREADABLE"
# Keys a model wraps a call's arguments in when the tool declares no field of that name.
_WRAPPERS = ("arguments", "args", "parameters", "input")


def resolve(name):
    """The tool a call names: by its name, or by that name in another case or with underscores
    (`createuserhabit`, `create_user_habit`) when that names one tool only."""
    found = REGISTRY.get(name)
    if found is None and isinstance(name, str):
        found = _loosely_named().get(_loose(name))
    return found


def run(context, name, arguments, unreadable=None, offered=()):
    """Run one tool call for the model; never raises. `unreadable`: why the model's arguments
    could not be read (the call is answered with that, and nothing runs). `offered`: the names
    of the round's tools, which a call to an unknown one is answered with, for the model to pick."""
    found = resolve(name)
    if found is None:
        TOOL_CALLS.labels(name[:64], "unknown").inc()
        told = f"There is no tool named {name}."
        if offered:
            told += f" The tools you have now: {', '.join(offered)}; openToolsets opens the others."
        return ToolOutcome(None, name, {"error": "UNKNOWN_TOOL", "message": told}, "UNKNOWN_TOOL", ())
    name = found.name
    if unreadable is not None:
        TOOL_CALLS.labels(name, "unreadable_arguments").inc()
        return ToolOutcome(found, name, _unreadable_arguments(name, unreadable), ARGUMENTS_UNREADABLE, ())
    if _holds_nul(arguments):
        TOOL_CALLS.labels(name, "invalid_arguments").inc()
        return ToolOutcome(found, name, DomainError("TEXT_HAS_NUL").to_dict(), "TEXT_HAS_NUL", ())
    try:
        parsed = found.args_model.model_validate(as_the_schema_allows(found.args_model, arguments or {}))
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


def as_the_schema_allows(args_model, arguments):
    """The model's arguments as the tool's schema reads them without a guess (the module says
    which slips are read); anything else is left for validation to name."""
    schema, defs = _schema_of(args_model)
    properties = schema.get("properties", {})
    if len(arguments) == 1:
        ((key, inner),) = arguments.items()
        if key in _WRAPPERS and _loose(key) not in map(_loose, properties):
            unwrapped = _parsed(inner, dict)
            if isinstance(unwrapped, dict):
                arguments = unwrapped
    return _read(arguments, schema, defs)


@lru_cache(maxsize=256)
def _schema_of(args_model):
    schema = args_model.model_json_schema()
    return schema, schema.get("$defs", {})


def _read(value, node, defs):
    node = _resolved(node, defs)
    if "anyOf" in node:
        variants = [_resolved(variant, defs) for variant in node["anyOf"] if variant != {"type": "null"}]
        return _read(value, variants[0], defs) if len(variants) == 1 and value is not None else value
    kind = node.get("type")
    if kind == "object" and "properties" in node:
        value = _parsed(value, dict)
        return _read_object(value, node, defs) if isinstance(value, dict) else value
    if kind == "array" and "items" in node:
        value = _parsed(value, list)
        return [_read(item, node["items"], defs) for item in value] if isinstance(value, list) else value
    if kind == "string" and isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    if "enum" in node and isinstance(value, str) and value not in node["enum"]:
        same = [option for option in node["enum"] if isinstance(option, str) and option.lower() == value.lower()]
        value = same[0] if len(same) == 1 else value
    return value


def _read_object(given, node, defs):
    properties, required = node["properties"], set(node.get("required", ()))
    loose = {}
    for prop in properties:
        loose[_loose(prop)] = prop if _loose(prop) not in loose else None  # two fields alike: neither
    meant = {key: key if key in properties else loose.get(_loose(key)) for key in given}
    claims = collections.Counter(meant.values())
    read = {}
    for key, value in given.items():
        prop = meant[key]
        if prop is None or (prop != key and (prop in given or claims[prop] > 1)):
            read.setdefault(key, value)  # unknown (validation ignores it), or its field sent as well or twice
            continue
        if value is None and prop not in required and not _nullable(properties[prop], defs):
            continue  # null for a field that may be left out: left out
        read[prop] = _read(value, properties[prop], defs)
    return read


def _resolved(node, defs):
    while isinstance(node, dict) and "$ref" in node:
        node = {**defs[node["$ref"].rsplit("/", 1)[-1]], **{k: v for k, v in node.items() if k != "$ref"}}
    return node if isinstance(node, dict) else {}


def _nullable(node, defs):
    node = _resolved(node, defs)
    return node.get("type") == "null" or any(_nullable(variant, defs) for variant in node.get("anyOf", ()))


def _parsed(value, kind):
    """A JSON string holding a `kind` (dict, list) as that; anything else as it is."""
    if isinstance(value, str):
        try:
            found = json.loads(value)
        except ValueError:
            return value
        return found if isinstance(found, kind) else value
    return value


def _loose(name):
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _loosely_named():
    """Each tool by its name's letters and digits, lower-cased; None where two tools share them."""
    named = {}
    for name in REGISTRY:
        named[_loose(name)] = REGISTRY[name] if _loose(name) not in named else None
    return named


def _unreadable_arguments(name, problem):
    return {
        "error": ARGUMENTS_UNREADABLE,
        "message": f"Nothing was done: {problem}. Call {name} again with its arguments as one JSON object that "
        "matches its schema.",
    }


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
