"""The chain's failure taxonomy.

Upstream code (the agent, onboarding, the briefing, the notebook AI) only ever sees these classes:
every SDK exception is translated at the provider adapter, so nothing above `app.llm` depends on
which SDK a link happens to use. Each user-facing error carries a stable `key` the UI translates.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from app.llm.messages import ToolCall


class FailureKind(StrEnum):
    RATE_LIMITED = "rate_limited"
    QUOTA = "quota"
    UNAVAILABLE = "unavailable"
    TIMEOUT = "timeout"
    CONNECTION = "connection"
    AUTH = "auth"
    BAD_REQUEST = "bad_request"
    MALFORMED = "malformed"
    INTERRUPTED = "interrupted"

    @property
    def is_rate_limit(self) -> bool:
        """Rate limits and quotas earn the long cooldown: the provider told us to go away."""
        return self in (FailureKind.RATE_LIMITED, FailureKind.QUOTA)


@dataclass(frozen=True)
class Limit:
    """Which of its limits a provider said was hit, in its own words: a per-minute one passes with
    its retry delay, a per-day one lasts until the provider's reset. `resets_in` is the time zone
    whose midnight resets a daily limit, when the provider documents one."""

    window: Literal["minute", "day"] | None = None
    measure: Literal["requests", "tokens", "input tokens"] | None = None
    quota_id: str | None = None
    resets_in: str | None = None

    @property
    def label(self) -> str:
        """Bounded words for metrics and the admin page: "per-minute requests", "per-day tokens"."""
        words = [f"per-{self.window}" if self.window else "", self.measure or ""]
        return " ".join(word for word in words if word) or "unspecified limit"

    def __str__(self) -> str:
        return f"{self.label} ({self.quota_id})" if self.quota_id else self.label


class ChainConfigError(RuntimeError):
    """The configured line-up cannot make a chain; raised at boot so the app refuses to start."""


class LLMError(Exception):
    """One link failed. `retry_after` is what the provider asked for, in seconds, when it said;
    `limit` which of its limits it said was hit; `detail` its own code for the failure (Groq's
    `tool_use_failed`), so an admin reads what the provider said, not only our class of it."""

    key = "AI_UNAVAILABLE"

    def __init__(
        self,
        kind: FailureKind,
        provider: str,
        status: int | None = None,
        message: str = "",
        *,
        retry_after: float | None = None,
        limit: Limit | None = None,
        detail: str | None = None,
    ):
        self.kind = FailureKind(kind)
        self.provider = provider
        self.status = status
        self.message = message
        self.retry_after = retry_after
        self.limit = limit
        self.detail = str(limit) if limit is not None and detail is None else detail
        status_text = f" {status}" if status is not None else ""
        super().__init__(f"{provider}: {self.kind.value}{status_text}: {message}".rstrip(": "))


class ChainExhausted(LLMError):
    """Every link failed before committing output. `failures` lists each link's failure, in order."""

    key = "AI_UNAVAILABLE"

    def __init__(self, failures: list[LLMError]):
        self.failures = list(failures)
        last = self.failures[-1] if self.failures else None
        summary = "; ".join(str(f) for f in self.failures) or "no link could answer"
        super().__init__(
            last.kind if last else FailureKind.UNAVAILABLE,
            last.provider if last else "chain",
            last.status if last else None,
            summary,
        )
        self.args = (f"every link failed: {summary}",)


class DeadlineReached(ChainExhausted):
    """The caller's deadline (`Chain.stream(..., deadline=)`) passed before any link committed
    output: the chain starts no link after it and cuts the one it was reading. `failures` ends
    with the deadline itself (kind `timeout`, provider `chain`). After output was committed, the
    deadline ends the call as a `StreamInterrupted` whose cause is a `timeout` instead."""

    key = "TIMEOUT"


class StreamInterrupted(LLMError):
    """A link failed after output reached the caller; the chain never replays it on another link.

    Carries what was already streamed so the turn can be persisted as it ended.
    """

    key = "AI_STREAM_INTERRUPTED"

    def __init__(
        self,
        cause: LLMError,
        *,
        link: str,
        partial_text: str,
        partial_tool_calls: list[ToolCall],
    ):
        self.cause = cause
        self.link = link
        self.partial_text = partial_text
        self.partial_tool_calls = list(partial_tool_calls)
        super().__init__(
            FailureKind.INTERRUPTED,
            cause.provider,
            cause.status,
            f"after output was committed ({cause.kind.value}): {cause.message}",
        )


class LLMNotConfigured(LLMError):
    """Development skipped every link for lack of keys; the assistant explains how to configure it."""

    key = "AI_NOT_CONFIGURED"

    def __init__(self, hint: str):
        self.hint = hint
        super().__init__(FailureKind.UNAVAILABLE, "chain", None, hint)
