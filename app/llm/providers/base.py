"""The one interface every provider adapter implements, and the status-code taxonomy they share."""

from __future__ import annotations

import email.utils
import json
import re
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from pydantic import BaseModel

from app.llm.errors import FailureKind, Limit, LLMError
from app.llm.http import Cut, LinkTransport
from app.llm.messages import AdapterEvent, ChatRequest, PromptPieces
from app.llm.settings import LinkSettings, Timeouts

JSON_ONLY_INSTRUCTION = (
    "Answer with one JSON object and nothing else (no prose, no code fences). "
    "It must validate against this JSON Schema:\n{schema}"
)


class ProviderAdapter(ABC):
    """Speaks one provider's protocol for one link.

    `stream` yields `TextDelta`, `Generating` (the model is producing something else: reasoning,
    a piece of a tool call) and, only once the stream ended with a finish reason, the round's
    `ToolCallReady` events followed by `Completed`. `complete_json` returns the raw text of a
    non-streamed JSON answer. Both raise `LLMError` and nothing else; closing the `stream`
    generator closes the HTTP response, and a `Cut` entered with `cuttable` cuts it from another
    thread while the SDK is blocked reading.
    """

    transport: LinkTransport | None = None  # the adapters whose SDK reads through our HTTP client

    def __init__(self, link: LinkSettings, timeouts: Timeouts):
        self.link = link
        self.timeouts = timeouts

    @property
    def name(self) -> str:
        return self.link.name

    @property
    def model(self) -> str:
        return self.link.model

    @abstractmethod
    def stream(self, request: ChatRequest) -> Iterator[AdapterEvent]: ...

    @abstractmethod
    def complete_json(self, request: ChatRequest, schema: type[BaseModel]) -> str: ...

    def close(self) -> None:  # noqa: B027 (optional hook)
        """Release pooled connections."""

    def cuttable(self, cut: Cut) -> AbstractContextManager[None]:
        """While inside, `cut()` from another thread cuts the connections this thread reads."""
        return self.transport.cutting(cut) if self.transport is not None else nullcontext()

    def failure(self, kind: FailureKind, status: int | None = None, message: str = "", **kw: Any) -> LLMError:
        return LLMError(kind, self.name, status, message[:500], **kw)


def kind_for_status(status: int | None, body_text: str = "") -> FailureKind:
    """What an HTTP status means for the chain. 402/413 are how free tiers say "over your limit"."""
    lowered = body_text.lower()
    if status == 429:
        if "quota" in lowered or "insufficient_balance" in lowered or "billing" in lowered:
            return FailureKind.QUOTA
        return FailureKind.RATE_LIMITED
    if status == 402:
        return FailureKind.QUOTA
    if status == 413:
        return FailureKind.RATE_LIMITED
    if status in (401, 403):
        return FailureKind.AUTH
    if status in (408, 504):
        return FailureKind.TIMEOUT
    if status is not None and 400 <= status < 500:
        return FailureKind.BAD_REQUEST
    return FailureKind.UNAVAILABLE


def retry_after_seconds(headers: Mapping[str, str] | None, body: Any = None) -> float | None:
    """`Retry-After` (seconds or HTTP date), `retry-after-ms`, or Google's RetryInfo in the body."""
    if headers:
        lowered = {k.lower(): v for k, v in headers.items()}
        if (ms := lowered.get("retry-after-ms")) is not None:
            try:
                return max(0.0, float(ms) / 1000)
            except ValueError:
                pass
        if (value := lowered.get("retry-after")) is not None:
            try:
                return max(0.0, float(value))
            except ValueError:
                parsed = email.utils.parsedate_to_datetime(value) if value else None
                if parsed is not None:
                    return max(0.0, parsed.timestamp() - time.time())
    return _google_retry_delay(body)


def _google_retry_delay(body: Any) -> float | None:
    for detail in _google_details(body, "RetryInfo"):
        match = re.fullmatch(r"\s*([\d.]+)s\s*", str(detail.get("retryDelay", "")))
        if match:
            return float(match.group(1))
    return None


def google_limit(body: Any, resets_in: str | None = None) -> Limit | None:
    """The limit a google.rpc `QuotaFailure` names, the longest when it names several (a per-day
    one outlasts a per-minute one). Its violations read, as Gemini sends them (public recordings in
    google-gemini/gemini-cli#8437 and RooCodeInc/Roo-Code#3883):
    `{"quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
    "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier", ...}`, with
    `...PerDayPerProjectPerModel-FreeTier` for the daily one and
    `GenerateContentInputTokensPerModelPerMinute-FreeTier` for input tokens."""
    found: list[Limit] = []
    for detail in _google_details(body, "QuotaFailure"):
        for violation in detail.get("violations") or []:
            if not isinstance(violation, dict):
                continue
            quota_id, metric = str(violation.get("quotaId") or ""), str(violation.get("quotaMetric") or "")
            named = f"{quota_id} {metric}".lower()
            window = "day" if "perday" in named else "minute" if "perminute" in named else None
            measure = (
                "input tokens" if "inputtoken" in named or "input_token" in named
                else "tokens" if "token" in named
                else "requests" if "request" in named
                else None
            )  # fmt: skip
            found.append(Limit(window, measure, quota_id or metric or None, resets_in if window == "day" else None))
    windows = {"day": 2, "minute": 1}
    return max(found, key=lambda limit: windows.get(limit.window or "", 0), default=None)


def _google_details(body: Any, kind: str) -> list[dict]:
    """The google.rpc error details of one `@type` (`RetryInfo`, `QuotaFailure`) in an error body."""
    if isinstance(body, str):
        try:
            body = json.loads(body)
        except ValueError:
            return []
    if isinstance(body, list) and body:
        body = body[0]
    if not isinstance(body, dict):
        return []
    error = body.get("error", body)
    details = error.get("details") if isinstance(error, dict) else None
    return [d for d in details or [] if isinstance(d, dict) and str(d.get("@type", "")).endswith(f".{kind}")]


# Groq's words for the limit a 429 hit: "Rate limit reached for model `llama-3.1-8b-instant` ...
# on tokens per minute (TPM): Limit 6000, Used 4093, Requested 3531. Please try again in 16.2s."
# (with "code": "rate_limit_exceeded"; and "on requests per day (RPD)" for the daily one).
_NAMED_LIMIT = re.compile(r"\bon (requests|tokens) per (minute|day)\b", re.IGNORECASE)


def named_limit(message: str) -> Limit | None:
    """The limit an OpenAI-compatible provider's message names, as Groq words it."""
    match = _NAMED_LIMIT.search(message or "")
    return Limit(match.group(2).lower(), match.group(1).lower()) if match else None


def kind_for_limit(limit: Limit | None, default: FailureKind) -> FailureKind:
    """A limit that passes within the minute is a rate limit; a daily one is a quota."""
    if limit is not None and limit.window == "minute":
        return FailureKind.RATE_LIMITED
    if limit is not None and limit.window == "day":
        return FailureKind.QUOTA
    return default


def schema_instruction(schema_json: dict) -> str:
    return JSON_ONLY_INSTRUCTION.format(schema=json.dumps(schema_json, ensure_ascii=False))


def join_system(*prompts: str | PromptPieces) -> PromptPieces:
    """The prompts one after the other, a blank line between, still as pieces (see PromptPieces)."""
    pieces: list[str] = []
    for prompt in filter(None, prompts):
        pieces.extend(("\n\n",) if pieces else ())
        pieces.extend(prompt.pieces if isinstance(prompt, PromptPieces) else (prompt,))
    return PromptPieces(tuple(pieces))
