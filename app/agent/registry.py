"""Where each tool is declared once: its name, what the model is told, its typed arguments,
read or write, the domain it belongs to, and a handler into the service layer.

Every domain declares its tools here, in its package's `tools`; the assistant runs them
(app/assistant/tool_calls.py) as the turn's user, and the model never names the user.

A write declared with `confirm=<preview>` (every delete, a rebuilt routine, a check or a
completion that moves XP) does not run on the model's word: the preview reads what it would
change, and the person's click on the chat's card performs it (app/assistant/confirmations.py).
The preview refuses at once what the click would refuse (an unknown name, a habit still in a
routine), so the card only offers what can be done.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from app.llm import ToolSpec


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
    # Sent once a call opened its toolset, not from its page's first round: a large write that
    # follows a read of what it rewrites, so the read opens it for the next round.
    follows_a_read: bool = False
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


CONFIRM_NOTE = " Waits for the person to confirm its card."


REGISTRY: dict[str, Tool] = {}


class NoArguments(BaseModel):
    pass


def tool(
    *,
    domain,
    kind,
    label,
    page=None,
    args=NoArguments,
    core=False,
    description=None,
    confirm=None,
    follows_a_read=False,
):
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
            follows_a_read=follows_a_read,
            confirm=confirm,
        )
        return handler

    return register


def pinned(args, **ids):
    """The validated arguments as JSON, with the names the model sent replaced by the ids they
    resolved to: the click acts on the rows the card named, whatever is renamed meanwhile."""
    return {**args.model_dump(mode="json"), **{key: str(value) for key, value in ids.items()}}
