"""What models write as text that is not the answer's text, read where it reads without a guess.

A tool call's arguments come as a JSON string, which small models get nearly right: text after the
object (`{"name": "Read"} I created it`), or the object encoded twice (`"{\\"name\\": ...}"`).
`read_arguments` reads both; anything else is unreadable, and says why, so the model can be told.

A chat-completions server that does not parse a model's own formats leaves them in the content:
a `<think>...</think>` block before the answer (reasoning models, such as Qwen3 or DeepSeek-R1,
served without a reasoning parser), `<tool_call>{"name": ..., "arguments": ...}</tool_call>`
blocks (the Hermes format of Qwen2.5's chat template, when the server did not read the template's
tool calls), and the same object in a fenced block, ```` ```json ```` or bare ```` ``` ````, which
Qwen2.5-Coder-0.5B writes instead of the tags (llama.cpp's own Hermes grammar accepts both).
`TaggedText` reads them as the content streams: the thinking is model activity and is never
shown, a whole, well-formed `<tool_call>` block is a call (the tags say so, whatever tool it
names), and a whole fenced block is a call only when it is one JSON object naming one of the
request's tools, or nothing but a name and an arguments object (a call to a tool the model made
up, answered with the tools it has); anything else in a fence is the answer's code or data.
A content that is nothing but such an object, unfenced (`{"name": "deleteUserHabit",
"arguments": {...}}`, as the same model also writes), is read the same way; a content that starts
with "{" is held until it ends to tell. Comments in that JSON (`// the day`) are read as the
nothing they are. Each is either read or
shown, never both: text is held back from the moment a tag or a fence could be starting until it
is known to be one or not (a lone "<" in prose goes on as soon as the next piece shows it is not;
a fence whose body does not open with "{" streams on at once), and a block that never closes, or
does not read as a call, is shown as the model wrote it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any

from app.llm.messages import Generating, TextDelta

THINK_OPEN, THINK_CLOSE = "<think>", "</think>"
CALL_OPEN, CALL_CLOSE = "<tool_call>", "</tool_call>"
FENCE = "```"

_DECODER = json.JSONDecoder()
# A fence opens or closes at the start of a line, indented by at most three spaces (CommonMark).
_FENCE_LINE = re.compile(r"(?m)^ {0,3}```")
_FENCE_STARTING = re.compile(r" {0,3}`{0,2}")  # what a line holding only the start of a fence can be
_FENCE_INFO = ("", "json")  # the fences a call is read from; ```python and the like are code


def read_arguments(text: str) -> tuple[dict, str | None]:
    """The arguments object a call's JSON string holds, and None; or `{}` and what is wrong with
    it, in words the model can act on. Two objects one after the other would be a guess."""
    body = text.strip()
    if not body:
        return {}, None
    try:
        value = _loads(body)
    except ValueError:
        try:
            value, end = _DECODER.raw_decode(_without_comments(body))
        except ValueError as invalid:
            return {}, f"the arguments are not valid JSON: {invalid}"  # where: "line 1 column 10 (char 9)"
        if _starts_an_object(_without_comments(body)[end:]):
            return {}, "the arguments hold two JSON objects, one after the other"
    if isinstance(value, str):  # the object encoded twice
        try:
            value = json.loads(value)
        except ValueError:
            return {}, "the arguments are a JSON string, not an object"
    if not isinstance(value, dict):
        return {}, f"the arguments are a JSON {_json_type(value)}, not an object"
    return value, None


@dataclass(frozen=True)
class TextCall:
    """A tool call read from the content: its name, its arguments, and why they could not be
    read (None when they could)."""

    name: str
    arguments: dict
    unreadable: str | None = None


_START, _THINK, _TEXT, _CALL, _BARE, _FENCE_HEAD, _FENCE, _CODE = (
    "start",
    "think",
    "text",
    "call",
    "bare",
    "head",
    "fence",
    "code",
)


class TaggedText:
    """One round's content as it streams: `feed` each piece, `end` once the stream ended; both
    yield the text to show (`TextDelta`) and `Generating` for what is read instead. `calls` holds
    the tool calls read from the content; `tools`, the names of the request's tools, says which
    a fenced block may name (none: the round can make no call, and only `<think>` is read)."""

    def __init__(self, *, tools: Collection[str] = ()):
        self._tools = {_loose(name) for name in tools}
        self._held = ""  # text not shown yet: what may still be a tag or a fence, or a block not closed yet
        self._head = ""  # the opening line of the fence being read (_FENCE)
        self._line_start = True  # whether the held text (or the next piece) begins a line
        self._state = _START
        self._quiet_whitespace = False  # whitespace after a block is shown only before text
        self.calls: list[TextCall] = []

    def feed(self, piece: str) -> Iterator[TextDelta | Generating]:
        if self._state is _TEXT and not self._held and self._plain(piece):
            self._line_start = piece.endswith("\n")
            yield TextDelta(piece)  # nearly every piece: nothing to look at
            return
        shown = False
        for event in self._read(self._held + piece):
            shown = shown or isinstance(event, TextDelta)
            yield event
        if not shown:
            yield Generating()

    def end(self) -> Iterator[TextDelta]:
        held, self._held = self._held, ""
        if self._state is _CALL:
            held = CALL_OPEN + held  # a block that never closed is shown as written
        elif self._state is _FENCE:
            held = self._head + held
        elif self._state is _BARE and (call := self._fenced_call(held)) is not None:
            self.calls.append(call)  # the whole content was one call, as JSON
            held = ""
        elif self._state is _THINK or (self._state is _START and not held.strip()):
            held = ""  # an unclosed <think> block is thinking still: never shown
        if held:
            yield TextDelta(held)  # the start of a tag or a fence that never came ("<thi", "``")

    def _plain(self, piece: str) -> bool:
        """Whether a piece of text can hold no start of a tag or a fence (nor a fence's indent)."""
        return not self._tools or ("<" not in piece and "`" not in piece and not piece.endswith(" "))

    def _read(self, text: str) -> Iterator[TextDelta]:
        line_start = self._line_start
        while text:
            if self._state is _START:
                started = text.lstrip()
                if not started or THINK_OPEN.startswith(started) or self._could_open_a_block(started):
                    self._held = text  # whitespace, or what may still become a tag or a fence
                    self._line_start = line_start
                    return
                if started.startswith(THINK_OPEN):
                    self._state, text = _THINK, started[len(THINK_OPEN) :]
                    continue
                if self._tools and started.startswith("{") and not self.calls:
                    self._state, self._held = _BARE, started  # held whole until the content ends
                    return
                self._state, line_start = _TEXT, True
                if self._quiet_whitespace or (self._tools and started.startswith((CALL_OPEN, FENCE))):
                    text = started
                self._quiet_whitespace = False
            elif self._state is _BARE:
                self._held = text
                return
            elif self._state is _THINK:
                closed = text.find(THINK_CLOSE)
                if closed < 0:
                    self._held = text[-(len(THINK_CLOSE) - 1) :]  # enough to find the tag across pieces
                    return
                self._state, self._quiet_whitespace, text = _START, True, text[closed + len(THINK_CLOSE) :]
            elif self._state is _TEXT:
                tag = text.find(CALL_OPEN) if self._tools else -1
                fence = _fence_in(text, line_start) if self._tools else -1
                opened = min(at for at in (tag, fence, len(text)) if at >= 0)
                if opened < len(text):
                    if text[:opened]:
                        yield TextDelta(text[:opened])
                    if opened == tag:
                        self._state, text = _CALL, text[opened + len(CALL_OPEN) :]
                    else:
                        self._state, text = _FENCE_HEAD, text[opened:]
                    continue
                held = self._could_be_starting(text, line_start) if self._tools else len(text)
                yield from self._show(text[:held])
                self._hold(text, held, line_start)
                return
            elif self._state is _CALL:
                closed = text.find(CALL_CLOSE)
                if closed < 0:
                    self._held = text
                    return
                block, text = text[:closed], text[closed + len(CALL_CLOSE) :]
                call = _call_in(block)
                if call is None:
                    self._state, line_start = _TEXT, False
                    yield TextDelta(CALL_OPEN + block + CALL_CLOSE)
                else:
                    self.calls.append(call)
                    self._state, self._quiet_whitespace = _START, True
            elif self._state is _FENCE_HEAD:
                ended = text.find("\n")
                info = (text if ended < 0 else text[:ended]).lstrip(" ")[len(FENCE) :]
                if "`" in info:  # "```x```" is inline code, not a fence (CommonMark)
                    line = text if ended < 0 else text[:ended]
                    self._state, line_start, text = _TEXT, False, text[len(line) :]
                    yield TextDelta(line)
                elif ended < 0:
                    if not any(kind.startswith(info.strip().lower()) for kind in _FENCE_INFO):
                        self._state, self._line_start = _CODE, False  # ```python: code, shown as it comes
                        yield TextDelta(text)
                        self._held = ""
                        return
                    self._held = text
                    return
                elif info.strip().lower() in _FENCE_INFO:
                    self._state, self._head, text, line_start = _FENCE, text[: ended + 1], text[ended + 1 :], True
                else:
                    self._state, line_start = _CODE, True
                    yield TextDelta(text[: ended + 1])
                    text = text[ended + 1 :]
            elif self._state is _FENCE:
                body = text.lstrip()
                if body and not body.startswith("{"):  # not a call: the fence streams on as code
                    self._state, line_start = _CODE, True
                    yield TextDelta(self._head)
                    continue
                closing = _fence_in(text, True)
                if closing < 0:
                    self._held = text
                    return
                after = text.index(FENCE, closing) + len(FENCE)
                call = self._fenced_call(text[:closing])
                if call is None:
                    self._state, line_start = _TEXT, False
                    yield TextDelta(self._head + text[:after])
                else:
                    self.calls.append(call)
                    self._state, self._quiet_whitespace = _START, True
                text = text[after:]
            else:  # _CODE: a fence shown as it comes, until the line that closes it
                closing = _fence_in(text, line_start)
                if closing >= 0:
                    after = text.index(FENCE, closing) + len(FENCE)
                    self._state, line_start = _TEXT, False
                    yield TextDelta(text[:after])
                    text = text[after:]
                    continue
                held = self._could_be_starting(text, line_start, tags=False)
                yield from self._show(text[:held])
                self._hold(text, held, line_start)
                return
        self._held = ""
        self._line_start = line_start

    def _show(self, text: str) -> Iterator[TextDelta]:
        if text:
            yield TextDelta(text)

    def _hold(self, text: str, at: int, line_start: bool) -> None:
        self._held = text[at:]
        self._line_start = line_start if at == 0 else text[at - 1] == "\n"

    def _could_open_a_block(self, text: str) -> bool:
        return bool(self._tools) and (CALL_OPEN.startswith(text) or FENCE.startswith(text))

    def _could_be_starting(self, text: str, line_start: bool, *, tags: bool = True) -> int:
        """Where the end of `text` may be starting a `<tool_call>` tag or a fence line (its length:
        nowhere), so that it is held until the next piece says."""
        at = len(text)
        tail = text.rfind("<") if tags else -1
        if tail >= 0 and CALL_OPEN.startswith(text[tail:]):
            at = tail
        line = text.rfind("\n") + 1
        if (line > 0 or line_start) and line < len(text) and _FENCE_STARTING.fullmatch(text, line):
            at = min(at, line)
        return at

    def _fenced_call(self, block: str) -> TextCall | None:
        """A fence's call: one naming a tool of the request, or an object that is nothing but a
        call (its name and its arguments object), which is answered as a call to an unknown tool
        with the tools there are, so the model can name one of them."""
        call = _call_in(block)
        if call is None:
            return None
        return call if _loose(call.name) in self._tools or _only_a_call(_loads(block)) else None


def _fence_in(text: str, line_start: bool) -> int:
    """Where the first line that opens (or closes) a fence begins in `text`, or -1; `line_start`:
    whether `text` itself begins a line."""
    for found in _FENCE_LINE.finditer(text):
        if found.start() > 0 or line_start:
            return found.start()
    return -1


def _call_in(block: str) -> TextCall | None:
    """The call a block holds when it is one JSON object naming a tool, with its arguments (or
    `parameters`, as Llama models write them) as an object or a JSON string, or none; otherwise
    None, and the block is shown."""
    try:
        found = _loads(block)
    except ValueError:
        return None
    if not isinstance(found, dict) or not isinstance(found.get("name"), str) or not found["name"]:
        return None
    arguments: Any = found["arguments"] if "arguments" in found else found.get("parameters")
    if arguments is None:
        return TextCall(found["name"], {})
    if isinstance(arguments, dict):
        return TextCall(found["name"], arguments)
    if isinstance(arguments, str):
        return TextCall(found["name"], *read_arguments(arguments))
    return None


def _only_a_call(found: dict) -> bool:
    keys = set(found) - {"name"}
    return len(keys) == 1 and keys <= {"arguments", "parameters"} and isinstance(found[keys.pop()], dict)


def _loads(text: str) -> Any:
    """JSON, or JSON with the `//` and `/* */` comments small models annotate arguments with
    (`"day": "2026-12-07" // the day`), read without them: a comment is never a value."""
    try:
        return json.loads(text)
    except ValueError:
        stripped = _without_comments(text)
        if stripped == text:
            raise
        return json.loads(stripped)


def _without_comments(text: str) -> str:
    """`text` less its `//` and `/* */` comments outside JSON strings."""
    out, at, quoted = [], 0, False
    while at < len(text):
        character = text[at]
        if quoted:
            out.append(character)
            if character == "\\" and at + 1 < len(text):
                out.append(text[at + 1])
                at += 1
            elif character == '"':
                quoted = False
        elif character == '"':
            quoted = True
            out.append(character)
        elif text.startswith("//", at):
            ended = text.find("\n", at)
            at = len(text) if ended < 0 else ended
            continue
        elif text.startswith("/*", at):
            ended = text.find("*/", at + 2)
            at = len(text) if ended < 0 else ended + 2
            continue
        else:
            out.append(character)
        at += 1
    return "".join(out)


def _loose(name: str) -> str:
    """A tool's name as a small model may spell it: letters and digits, lower-cased (the agent
    resolves `create_user_habit` to `createUserHabit` the same way)."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _starts_an_object(rest: str) -> bool:
    try:
        value, _end = _DECODER.raw_decode(rest.strip())
    except ValueError:
        return False
    return isinstance(value, dict)


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    return {list: "array", int: "number", float: "number"}.get(type(value), type(value).__name__)
