"""The model's window: how many tokens a link's server holds for one request, how many a
request takes, and the request cut, whole messages and whole toolsets at a time, to fit it.

A window is `BEYOU_LLM_<NAME>_CONTEXT` when set. Otherwise a self-hosted link asks its server,
once (`Windows`): llama.cpp answers `GET /props` with `default_generation_settings.n_ctx`, and its
`GET /v1/models` with `data[0].meta.n_ctx`; vLLM's `/v1/models` says `max_model_len`; Ollama's
`GET /api/ps` gives a loaded model's `context_length`, and `POST /api/show` the `num_ctx` a
Modelfile fixed. (Ollama's `model_info["<arch>.context_length"]` is the length the model was
trained for, not what the server holds: Ollama serves 4k to 256k by its own memory and cuts the
rest silently, so it is no window.) A server that says none of these has an unknown window, and so
has a hosted link: its request goes as it is.

The count is an estimate (`text_tokens`), calibrated against the servers' own
`usage.prompt_tokens` (tests/chain/test_window_estimate.py holds it to recorded figures): a run
of letters costs WORD plus LETTER a letter, and a word with an accented letter ACCENTED more
(a tokenizer trained mostly on English splits "ação" into pieces); a run with digits in it (ids,
numbers, dates) one token a character; ASCII punctuation half a token, a line break one; any other
character one token for each UTF-8 byte past its first (two for CJK, three for an emoji). Each
message costs MESSAGE tokens of its chat template, the tool list TOOLS and each tool TOOL. On the
requests recorded (tests/chain/recorded_windows.json: a round from /habits with its tools, and a
Portuguese chat with a tool round, counted by llama.cpp for SmolLM2) it lands at ×1.03 and ×1.01,
and the test holds every recorded count between ×1.00 and ×1.25: a model whose tokenizer counts
more (a figure recorded later) must get its bound there. What an under-estimate eats comes out
of the room kept for the answer, never past the window.

`fit` keeps `reserve(window)` tokens for the answer, then sends the request whole if it fits and
otherwise drops, in this order: the oldest messages of the history, whole (a tool call with its
results; the history left starts with a person's message, as chat templates that alternate roles
require), then the toolsets the turn opened, then the page's toolsets. The core tools, the system
prompt and the turn's own messages always go; when even they do not fit, the link refuses the
request (`WindowTooSmall`) before sending a byte, and a chain whose every link refused says so
(`ContextTooSmall`, `AI_CONTEXT_TOO_SMALL`).
"""

from __future__ import annotations

import json
import logging
import math
import re
import threading
import time
from dataclasses import dataclass, replace
from functools import lru_cache

import httpx2

from app.llm.errors import ChainExhausted, FailureKind, LLMError
from app.llm.messages import ChatRequest, Message, PromptPieces, ToolSpec
from app.llm.schemas import portable_schema
from app.llm.settings import LinkSettings

log = logging.getLogger(__name__)

# The estimate's constants, the one place they are kept (calibrated in the module docstring).
WORD = 0.7
LETTER = 0.15
ACCENTED = 2.0
MESSAGE = 8
TOOLS = 120
TOOL = 4

READ_SECONDS = 3.0  # all of one server's answers about its window, together
UNKNOWN_FOR = 300.0  # seconds before a server that said nothing is asked again (it may have been starting)

CORE, PAGE, OPENED = 0, 1, 2  # a tool's tier: the core always goes; the opened go first, then the page's


@dataclass
class Trimmable(ChatRequest):
    """A request the chain may cut to a link's window and tools (`fit`). `kept`: how many of the
    last messages always go (the turn's own); `tool_tiers`: each tool's tier (CORE, PAGE or
    OPENED), in the order of `tools`; `system_without_tools`: the system prompt for a link that
    takes no tools (`max_tools` 0), which must tell the model it cannot act."""

    kept: int = 1
    tool_tiers: tuple[int, ...] = ()
    system_without_tools: str | PromptPieces | None = None


class WindowTooSmall(LLMError):
    """One link's window cannot hold the request's system prompt, its turn's messages and its core
    tools, with room for an answer: nothing was sent to it."""

    key = "AI_CONTEXT_TOO_SMALL"

    def __init__(self, link: str, needed: int, window: int):
        self.needed, self.window = needed, window
        super().__init__(
            FailureKind.BAD_REQUEST, link, None, f"the request needs about {needed} tokens; the window holds {window}"
        )


class ContextTooSmall(ChainExhausted):
    """Every link refused the request as too long for its window (`WindowTooSmall`)."""

    key = "AI_CONTEXT_TOO_SMALL"


def exhausted(failures: list[LLMError]) -> ChainExhausted:
    """What a walk of the chain that no link answered raises: `ContextTooSmall` when every link it
    tried refused the request as too long for its window, otherwise `ChainExhausted`."""
    if failures and all(isinstance(failure, WindowTooSmall) for failure in failures):
        return ContextTooSmall(failures)
    return ChainExhausted(failures)


# -- the estimate ------------------------------------------------------------------------------

_LETTERS = "A-Za-z\u00c0-\u024f"
_WORDS = re.compile(rf"(?<![{_LETTERS}0-9])[{_LETTERS}]+(?![{_LETTERS}0-9])")
_ACCENTED_WORDS = re.compile(rf"(?<![{_LETTERS}0-9])[A-Za-z]*[\u00c0-\u024f][{_LETTERS}]*(?![{_LETTERS}0-9])")
_WITH_DIGITS = re.compile(rf"[{_LETTERS}0-9]*[0-9][{_LETTERS}0-9]*")
_PUNCTUATION = re.compile(r"[!-/:-@\[-`{-~]")
_OTHER = re.compile(r"[^\x00-\x7f\u00c0-\u024f]+")


def text_tokens(text: str) -> int:
    """About how many tokens `text` takes (the module docstring says how it is counted)."""
    if not text:
        return 0
    words = _WORDS.findall(text)
    other = "".join(_OTHER.findall(text))
    estimate = (
        WORD * len(words)
        + LETTER * sum(map(len, words))
        + ACCENTED * len(_ACCENTED_WORDS.findall(text))
        + sum(map(len, _WITH_DIGITS.findall(text)))
        + 0.5 * len(_PUNCTUATION.findall(text))
        + text.count("\n")
        + len(other.encode())
        - len(other)
    )
    return math.ceil(estimate)


def message_tokens(message: Message) -> int:
    calls = sum(text_tokens(call.name + json.dumps(call.arguments, ensure_ascii=False)) for call in message.tool_calls)
    return MESSAGE + text_tokens(message.content) + calls


def entry_tokens(entry: dict) -> int:
    """A tool as the OpenAI-compatible wire names it: `{"name", "description", "parameters"}`."""
    return TOOL + text_tokens(json.dumps(entry, ensure_ascii=False, separators=(",", ":")))


@lru_cache(maxsize=512)
def tool_tokens(spec: ToolSpec) -> int:
    """A tool, counted once per tool."""
    return entry_tokens(
        {"name": spec.name, "description": spec.description, "parameters": portable_schema(spec.args_model)}
    )


@lru_cache(maxsize=1024)
def _piece_tokens(piece: str) -> int:
    """A system prompt's piece: the template's fixed text is the same string in every turn."""
    return text_tokens(piece)


def system_tokens(system: str | PromptPieces) -> int:
    if isinstance(system, PromptPieces):
        return sum(map(_piece_tokens, system.pieces))
    return text_tokens(system)


def request_tokens(request: ChatRequest, extra_system: str = "") -> int:
    """About how many tokens the request's prompt takes on the wire, with `extra_system` (what an
    adapter adds to the system prompt, such as a structured answer's schema) counted in."""
    tools = sum(map(tool_tokens, request.tools))
    return (
        MESSAGE
        + system_tokens(request.system)
        + text_tokens(extra_system)
        + sum(map(message_tokens, request.messages))
        + (TOOLS + tools if request.tools else 0)
    )


def reserve(window: int) -> int:
    """The tokens kept for the answer: 15 % of the window, at least 512."""
    return max(512, math.ceil(window * 0.15))


# -- the fit -----------------------------------------------------------------------------------


def fit(request: ChatRequest, link: LinkSettings, window: int | None, extra_system: str = "") -> ChatRequest:
    """The request as `link` takes it: at most its `max_tools` tools (none: the system prompt that
    says the model cannot act), then cut to `window` (None: unknown, sent as it is). Raises
    `WindowTooSmall` when the system prompt, the kept messages and the core tools do not fit."""
    trimmable = isinstance(request, Trimmable)
    tiers = request.tool_tiers if trimmable else (CORE,) * len(request.tools)
    kept = min(request.kept, len(request.messages)) if trimmable else len(request.messages)
    tools = list(zip(request.tools, tiers, strict=True))
    if link.max_tools == 0:
        tools = []
        if trimmable and request.system_without_tools is not None:
            request = replace(request, system=request.system_without_tools)
    elif link.max_tools is not None and len(tools) > link.max_tools:
        chosen = sorted(range(len(tools)), key=lambda index: (tools[index][1], index))[: link.max_tools]
        tools = [tools[index] for index in sorted(chosen)]
    if window is None:
        return _with(request, request.messages, tools)

    budget = window - reserve(window)
    fixed = MESSAGE + system_tokens(request.system) + text_tokens(extra_system)
    messages = request.messages
    history = [message_tokens(message) for message in messages[: len(messages) - kept]]
    own = sum(map(message_tokens, messages[len(messages) - kept :]))
    history_tokens = sum(history)

    def tools_cost(chosen):
        return TOOLS + sum(tool_tokens(spec) for spec, _tier in chosen) if chosen else 0

    start = 0
    while fixed + history_tokens + own + tools_cost(tools) > budget and start < len(history):
        start = _next_start(messages, start, len(history))
        history_tokens = sum(history[start:])
    for dropped in (OPENED, PAGE):
        if fixed + history_tokens + own + tools_cost(tools) <= budget:
            break
        tools = [(spec, tier) for spec, tier in tools if tier < dropped]
    needed = fixed + history_tokens + own + tools_cost(tools)
    if needed > budget:
        raise WindowTooSmall(link.name, needed + reserve(window), window)
    if start or len(tools) < len(request.tools):
        log.info("LLM link %s: request cut to its window of %d tokens (%d messages and %d tools left out)",
                 link.name, window, start, len(request.tools) - len(tools))  # fmt: skip
    return _with(request, messages[start:], tools)


def _next_start(messages: list[Message], start: int, end: int) -> int:
    """Where the history begins once its oldest message goes: past that message and the tool
    results that answer it, and past anything else until a person's message (or the kept ones)."""
    start += 1
    while start < end and messages[start].role != "user":
        start += 1
    return start


def _with(request: ChatRequest, messages: list[Message], tools: list[tuple[ToolSpec, int]]) -> ChatRequest:
    if len(messages) == len(request.messages) and len(tools) == len(request.tools):
        return request
    fitted = replace(request, messages=list(messages), tools=[spec for spec, _tier in tools])
    if isinstance(fitted, Trimmable):
        fitted = replace(fitted, kept=min(fitted.kept, len(messages)), tool_tiers=tuple(tier for _s, tier in tools))
    return fitted


# -- what the server says ----------------------------------------------------------------------


class Windows:
    """Each link's window: its setting, or what its server said, asked once per process (a server
    that said nothing is asked again after UNKNOWN_FOR seconds). Asking never fails a call: a
    server that does not answer, or answers otherwise, leaves the window unknown."""

    def __init__(self) -> None:
        self._known: dict[str, tuple[int | None, float]] = {}
        self._locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()

    def of(self, link: LinkSettings) -> int | None:
        if link.context is not None:
            return link.context
        if not link.tells_its_window or not link.base_url:
            return None
        if (known := self._fresh(link.name)) is not None:
            return known[0]
        with self._lock:
            asking = self._locks.setdefault(link.name, threading.Lock())
        with asking:  # one asks; the turns that came meanwhile read its answer
            if (known := self._fresh(link.name)) is not None:
                return known[0]
            window = read_window(link)
            self._known[link.name] = (window, time.monotonic())
            if window is None:
                log.warning("LLM link %s did not say its window: its requests go uncut (set BEYOU_LLM_%s_CONTEXT)",
                            link.name, link.name.upper())  # fmt: skip
            else:
                log.info("LLM link %s holds %d tokens (its server says)", link.name, window)
            return window

    def _fresh(self, name: str) -> tuple[int | None, float] | None:
        known = self._known.get(name)
        if known is None or (known[0] is None and time.monotonic() - known[1] >= UNKNOWN_FOR):
            return None
        return known


def read_window(link: LinkSettings) -> int | None:
    """What the link's server says it holds, asked the ways llama.cpp, vLLM and Ollama say it, in
    that order, within READ_SECONDS in all; None when none answers with a window."""
    base = (link.base_url or "").rstrip("/")
    root = base.removesuffix("/v1")
    headers = {"Authorization": f"Bearer {link.api_key}"} if link.api_key else {}
    deadline = time.monotonic() + READ_SECONDS
    asks = (
        ("GET", f"{root}/props", None, _llama_cpp_props),
        ("GET", f"{base}/models", None, lambda said: _served_models(said, link.model)),
        ("GET", f"{root}/api/ps", None, lambda said: _ollama_loaded(said, link.model)),
        ("POST", f"{root}/api/show", {"model": link.model}, _ollama_parameters),
    )
    with httpx2.Client(headers=headers, follow_redirects=False) as client:
        for method, url, body, read in asks:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                answer = client.request(method, url, json=body, timeout=left)
                window = read(answer.json()) if answer.status_code == 200 else None
            except (httpx2.HTTPError, ValueError, TypeError, AttributeError, KeyError, IndexError):
                window = None
            if isinstance(window, int) and not isinstance(window, bool) and window > 0:
                return window
    return None


def _llama_cpp_props(said):
    return said["default_generation_settings"]["n_ctx"]


def _served_models(said, model):
    """llama.cpp's `data[i].meta.n_ctx` or vLLM's `data[i].max_model_len`, of the link's model
    (or the only one served)."""
    served = said["data"]
    entry = next((entry for entry in served if entry.get("id") == model), served[0])
    return (entry.get("meta") or {}).get("n_ctx") or entry.get("max_model_len")


def _ollama_loaded(said, model):
    names = {model, f"{model}:latest"}  # Ollama names a model's default tag
    loaded = [entry for entry in said["models"] if names & {entry.get("name"), entry.get("model")}]
    return loaded[0]["context_length"] if loaded else None


def _ollama_parameters(said):
    match = re.search(r"^num_ctx\s+(\d+)\s*$", said.get("parameters") or "", re.MULTILINE)
    return int(match.group(1)) if match else None
