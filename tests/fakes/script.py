"""What a fake provider answers: one `Reply` per request, queued per provider.

A reply describes the answer in protocol-neutral words (text chunks, tool calls, a status, a cut)
and the wire modules render it as chat-completions chunks or Gemini SSE events.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class FakeCall:
    name: str
    arguments: dict = field(default_factory=dict)
    id: str | None = None
    thought_signature: str | None = None  # Gemini: base64 (url-safe) bytes
    raw_arguments: str | None = None  # OpenAI wire: the arguments string as sent, instead of `arguments` as JSON


@dataclass
class Reply:
    text: list[str] = field(default_factory=list)
    tool_calls: list[FakeCall] = field(default_factory=list)
    pace: float = 0.0  # seconds between chunks
    first_byte_delay: float = 0.0  # seconds before the status line
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: Any = None  # an error body: dict (sent as JSON) or raw str
    cut_after: int | None = None  # drop the connection after this many content chunks
    error_after: int | None = None  # an error object inside the 200 stream after N content chunks
    error_code: int = 500
    stream_error: Any = None  # the error event's own text instead (tests/fakes/wire.py: groq_error_event)
    garbage_after: int | None = None  # invalid JSON after N content chunks
    finish_reason: str | None = None  # default: stop / tool_calls (STOP for Gemini)
    unfinished: bool = False  # the stream ends cleanly but without any finish reason (malformed)
    stall_after: int | None = None  # after this many content chunks the provider stalls...
    stall_for: float = 0.0  # ...for this long (then goes on with the rest)...
    keepalive_every: float | None = None  # ...sending `: keepalive` comments this often (None: silent)
    usage: tuple[int, int] | None = (11, 7)
    linger: float = 0.0  # seconds the body stays open after its last event (a stream's end held back)
    # What the provider does after its last event (or its whole JSON answer) instead of ending the
    # body, for `linger` seconds or until the client hangs up: one of TAILS.
    tail: str | None = None
    reasoning: str | None = None  # DeepSeek reasoning_content / a Gemini thought part
    # Mistral's reasoning models (OpenAI wire): these thinking pieces stream first, each as a
    # `thinking` typed piece, and with `typed_text` the text goes as `text` typed pieces, not
    # strings (tests/fakes/wire.py says where the shapes come from).
    thinking: list[str] = field(default_factory=list)
    typed_text: bool = False
    text_signature: str | None = None  # Gemini thoughtSignature on the first text part
    # Gemini with its Google Search tool: the pages found, each {"title", "url", "said"} (what the
    # answer says of it); None: two pages about the words searched (tests/fakes/search.py).
    grounding: list[dict] | None = None
    # OpenAI wire: how many chunks each tool call's arguments stream in (from three on, the first,
    # with the call's name, carries none, as llama.cpp streams them: tests/fakes/wire.py).
    argument_pieces: int = 2
    # Each content event goes out in two HTTP chunks (two reads for the client), cut inside its
    # first multi-byte character, its JSON written as servers write it: UTF-8, not \u escapes.
    split_characters: bool = False

    # -- builders for readable tests ---------------------------------------------------------

    @classmethod
    def says(cls, *chunks: str, **kw: Any) -> Reply:
        return cls(text=list(chunks), **kw)

    @classmethod
    def calls(cls, *calls: FakeCall, **kw: Any) -> Reply:
        return cls(tool_calls=list(calls), **kw)

    @classmethod
    def keeps_alive(cls, seconds: float, *chunks: str, after: int = 0, every: float = 1.0, **kw: Any) -> Reply:
        """Only `: keepalive` comments for `seconds` (after `after` chunks), then the rest."""
        return cls(text=list(chunks), stall_after=after, stall_for=seconds, keepalive_every=every, **kw)

    @classmethod
    def hangs(cls, seconds: float, *chunks: str, after: int = 0, **kw: Any) -> Reply:
        """Not a byte for `seconds` once the stream is open (after `after` chunks), then the rest."""
        return cls(text=list(chunks), stall_after=after, stall_for=seconds, **kw)

    @classmethod
    def fails(cls, status: int, body: Any = None, headers: dict[str, str] | None = None, **kw: Any) -> Reply:
        return cls(status=status, body=body, headers=headers or {}, **kw)

    @classmethod
    def from_dict(cls, data: dict) -> Reply:
        data = dict(data)
        data["tool_calls"] = [FakeCall(**c) for c in data.get("tool_calls", [])]
        if isinstance(data.get("text"), str):
            data["text"] = [data["text"]]
        if data.get("usage") is not None:
            data["usage"] = tuple(data["usage"])
        return cls(**data)

    def to_dict(self) -> dict:
        return asdict(self)

    @property
    def fault_after(self) -> int | None:
        """After how many content chunks the stream breaks (cut, error event or garbage)."""
        return next((n for n in (self.cut_after, self.error_after, self.garbage_after) if n is not None), None)

    @property
    def joined_text(self) -> str:
        return "".join(self.text)


# After the answer's last word: "silent" (a body ended only by closing, which never comes),
# "trickle" (a byte every 100 ms), "comments" (keep-alive lines, a hundred a second; whitespace
# in a JSON body), "unended" (a chunked body whose last chunk never comes).
TAILS = ("silent", "trickle", "comments", "unended")


def echo_reply(last_user_text: str) -> Reply:
    """The default when nothing is scripted: repeat the last user message, in two chunks."""
    text = f"echo: {last_user_text}"
    middle = max(1, len(text) // 2)
    return Reply.says(text[:middle], text[middle:])
