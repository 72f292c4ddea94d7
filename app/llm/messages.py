"""Portable transcript and stream event types.

A transcript written in these types can continue on any link: adapters translate ids, tool
results and provider-only fields on the way out. `provider_extras` is keyed by link name
(`{"gemini": {"thought_signature": ...}}`) and only ever sent back to that link.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, Field

Role = Literal["system", "user", "assistant", "tool"]
Extras = dict[str, dict]


class ToolCall(BaseModel):
    id: str
    name: str
    arguments: dict = Field(default_factory=dict)
    provider_extras: Extras = Field(default_factory=dict)
    # Why the arguments the model wrote could not be read (they are then `{}`): the call is
    # answered with that, for the model to fix, and never run. Not part of the transcript.
    unreadable: str | None = Field(default=None, exclude=True)


class Message(BaseModel):
    role: Role
    content: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    tool_call_id: str | None = None
    name: str | None = None
    provider_extras: Extras = Field(default_factory=dict)

    @classmethod
    def user(cls, content: str) -> Message:
        return cls(role="user", content=content)

    @classmethod
    def tool_result(cls, call: ToolCall, content: str) -> Message:
        return cls(role="tool", content=content, tool_call_id=call.id, name=call.name)


def read_content(content: object) -> tuple[str, bool]:
    """The answer's text in a message's `content`, and whether the model thought aloud in it.

    `content` is a string, or a list of typed pieces as Mistral's reasoning models send it:
    `{"type": "text", "text": ...}` is answer text, `{"type": "thinking", "thinking": [...]}` the
    model's thinking, never answer text. Pieces of other types (Mistral's `reference`) carry no
    answer text and are passed over. ValueError for anything else."""
    if content is None or isinstance(content, str):
        return content or "", False
    if not isinstance(content, list):
        raise ValueError(f"content that is neither text nor pieces: {content!r:.80}")
    text: list[str] = []
    thought = False
    for piece in content:
        kind = piece.get("type") if isinstance(piece, dict) else None
        if isinstance(piece, str):
            text.append(piece)
        elif kind == "text" and isinstance(piece.get("text"), str):
            text.append(piece["text"])
        elif kind == "thinking":
            thought = True
    return "".join(text), thought


@dataclass(frozen=True)
class ToolSpec:
    """A tool the model may call; its arguments schema is the pydantic model."""

    name: str
    description: str
    args_model: type[BaseModel]


@dataclass(frozen=True)
class PromptPieces:
    """A system prompt kept as the pieces its template rendered, joined only as a call's body is
    encoded. The template's fixed text is the same string objects in every turn, so a turn that
    waits on its model (and keeps its request for a fallback) holds only its own few values:
    about 0.3 KiB instead of the agent's 11.5 KiB prompt."""

    pieces: tuple[str, ...]

    def __str__(self) -> str:
        return "".join(self.pieces)

    def __bool__(self) -> bool:
        return any(self.pieces)


@dataclass
class ChatRequest:
    """Exactly what the caller wants sent; the chain adds no user data to it."""

    system: str | PromptPieces = ""
    messages: list[Message] = field(default_factory=list)
    tools: list[ToolSpec] = field(default_factory=list)
    temperature: float | None = None


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ToolCallReady:
    """A tool call of a round that ended properly (with a finish reason): safe to run.

    Adapters hold every call of a round until its stream has ended well, then release them all
    just before `Completed`; a round that breaks off never runs a tool (and may still fall through
    to the next link, since nothing reached the caller).
    """

    call: ToolCall


@dataclass(frozen=True)
class Completed:
    """The last event of a successful call. `link` says which link answered (the agent shows it)."""

    link: str
    model: str
    finish_reason: str | None = None
    usage: Usage | None = None
    provider_extras: Extras = field(default_factory=dict)


@dataclass(frozen=True)
class Waiting:
    """The model has said nothing for a while (keep-alive bytes do not count).

    `Chain.stream` yields one at least every quarter second of silence, so a consumer that checks
    for Stop or its own deadline on every event is never stuck inside a provider. Ignore it
    otherwise.
    """


@dataclass(frozen=True)
class Generating:
    """Adapters only: the model produced something that is not an event of its own yet (reasoning,
    a piece of a tool call, the finish reason). It keeps the link's idle deadline away; the chain
    never passes it on."""


StreamEvent = TextDelta | ToolCallReady | Completed | Waiting
AdapterEvent = TextDelta | ToolCallReady | Completed | Generating


@dataclass
class AssistantReply:
    """Folds a stream into the assistant message to append to the transcript."""

    text: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    completed: Completed | None = None

    def absorb(self, event: StreamEvent) -> None:
        if isinstance(event, TextDelta):
            self.text += event.text
        elif isinstance(event, ToolCallReady):
            self.tool_calls.append(event.call)
        elif isinstance(event, Completed):
            self.completed = event

    def as_message(self) -> Message:
        extras = self.completed.provider_extras if self.completed else {}
        return Message(
            role="assistant",
            content=self.text,
            tool_calls=list(self.tool_calls),
            provider_extras=dict(extras),
        )
