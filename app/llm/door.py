"""The one door services take to the chain: `model(label, bucket=...)`.

Every feature that needs a model (the agent's streamed turns; onboarding, the daily briefing and
the notebook AI, which want one validated pydantic object) asks for it here instead of reaching
into `app.extensions`. The door names itself, so its calls are counted under its own label
(`beyou_llm_door_calls_total{door,outcome}`) beside the chain's per-link metrics, and it may carry
its own per-user rate bucket: a structured call spends one from it before any model is asked, and
gets it back when it ends with no link answering (every link failed before an answer, the caller's
deadline passed first, or no link is configured): a provider's outage is not billed to the user.
A call that ends with answers that could not be read (`AnswerUnreadable`, after its one repair)
keeps its unit: models were asked and answered. The two endings are told apart everywhere: the
error's key (`AI_UNAVAILABLE` against `AI_ANSWER_UNUSABLE`), so each door says what happened, and
the outcome it is counted under (`ai_unavailable`, `ai_answer_unusable`). The agent's door has none here — its budget is
per turn, spent when a turn is claimed (app/assistant/turn_budget.py), not per model round.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, TypeVar

from flask import current_app
from limits import RateLimitItem, parse
from prometheus_client import Counter, Histogram
from pydantic import BaseModel

from app.llm.errors import ChainExhausted, LLMError, LLMNotConfigured
from app.llm.structured import AnswerUnreadable

if TYPE_CHECKING:
    from app.llm.chain import Chain, Wake
    from app.llm.messages import ChatRequest, StreamEvent

log = logging.getLogger(__name__)

Schema = TypeVar("Schema", bound=BaseModel)

DOOR_CALLS = Counter("beyou_llm_door_calls", "Model calls by the door that asked, by outcome", ["door", "outcome"])
DOOR_SECONDS = Histogram(
    "beyou_llm_door_call_seconds",
    "From a door's request to its last event or validated answer",
    ["door"],
    buckets=(0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120),
)


class BudgetSpent(Exception):
    """The door's bucket is empty for this user; `reset_at` (UTC) is when the next call may go."""

    def __init__(self, door: str, reset_at: datetime):
        super().__init__(f"{door}: {reset_at.isoformat()}")
        self.door, self.reset_at = door, reset_at


@dataclass(frozen=True)
class RateBucket:
    """A per-user budget of calls, counted in the app's rate-limit storage (memory in one
    process, Redis shared by every worker). `setting` names the app config key holding the limit
    ("30 per hour"), read at each call so a test or an operator can change it."""

    scope: str
    setting: str

    def spend(self, user: Any) -> None:
        from app.extensions import limiter

        if not limiter.enabled:
            return
        limit = parse(current_app.config[self.setting])
        key = (self.scope, f"user:{user.id}")
        if not limiter.limiter.hit(limit, *key):
            reset, _remaining = limiter.limiter.get_window_stats(limit, *key)
            raise BudgetSpent(self.scope, datetime.fromtimestamp(reset, UTC))

    def refund(self, user: Any) -> None:
        """Give back the call `spend` counted."""
        give_back(parse(current_app.config[self.setting]), self.scope, f"user:{user.id}")


def give_back(limit: RateLimitItem, *identifiers: str) -> None:
    """Take back one count of `limit` for `identifiers`, in the app's rate-limit storage.

    `limits` has no refund: the fixed-window counter is decremented in its storage (memory's
    `decr` stops at zero; Redis has only `incr`, so a negative count, from a window that ended in
    between, is put back to zero). A storage that fails here is logged, never raised over the
    failure being reported."""
    from app.extensions import limiter

    if not limiter.enabled:
        return
    key = limit.key_for(*identifiers)
    storage = limiter.limiter.storage
    try:
        if hasattr(storage, "decr"):
            storage.decr(key)
        elif (count := storage.incr(key, limit.get_expiry(), amount=-1)) < 0:
            storage.incr(key, limit.get_expiry(), amount=-count)
    except Exception:
        log.warning("could not give back one of %s", key, exc_info=True)


class Model:
    """The chain as one door sees it: the same two calls, counted under the door's label."""

    def __init__(self, chain: Chain, label: str, bucket: RateBucket | None = None):
        self.chain, self.label, self.bucket = chain, label, bucket

    @property
    def configured(self) -> bool:
        return self.chain.configured

    def stream(
        self,
        request: ChatRequest,
        *,
        deadline: float | None = None,
        wake: Wake | None = None,
        gather: float | None = None,
    ) -> Iterator[StreamEvent]:
        """`Chain.stream` (closing the iterator still cuts the HTTP stream at once)."""
        started = time.monotonic()
        try:
            events = self.chain.stream(request, deadline=deadline, wake=wake, gather=gather)
        except LLMError as refused:
            self._count(refused, started)
            raise
        return self._counted(events, started)

    def structured(
        self,
        request: ChatRequest,
        schema: type[Schema],
        *,
        user: Any = None,
        retry: bool = True,
        deadline: float | None = None,
    ) -> Schema:
        """`Chain.structured`, after spending one call of the door's bucket for `user` (raises
        `BudgetSpent` before any model is asked when it is empty; given back when no model
        answered). Without a `deadline`, the call ends within AI_REQUEST_SECONDS, every link and
        the repair together (`DeadlineReached`): someone is waiting on it, and no link's own
        budgets (two minutes each) may hold them, or a worker, longer."""
        if self.bucket is not None:
            self.bucket.spend(user)
        started = time.monotonic()
        if deadline is None:
            deadline = started + current_app.config["AI_REQUEST_SECONDS"]
        try:
            answer = self.chain.structured(request, schema, retry=retry, deadline=deadline)
        except LLMError as failed:
            if self.bucket is not None and _nobody_answered(failed):
                self.bucket.refund(user)
            self._count(failed, started)
            raise
        self._count(None, started)
        return answer

    def _counted(self, events: Iterator[StreamEvent], started: float) -> Iterator[StreamEvent]:
        outcome: LLMError | str | None = "cancelled"  # the caller stopped reading before the end
        try:
            yield from events
            outcome = None
        except LLMError as failed:
            outcome = failed
            raise
        finally:
            events.close()
            self._count(outcome, started)

    def _count(self, outcome: LLMError | str | None, started: float) -> None:
        word = outcome.key.lower() if isinstance(outcome, LLMError) else outcome or "ok"
        DOOR_CALLS.labels(self.label, word).inc()
        DOOR_SECONDS.labels(self.label).observe(time.monotonic() - started)


def _nobody_answered(failure: LLMError) -> bool:
    """Whether a structured call ended with no link answering (an outage, a deadline, no link at
    all), rather than with answers that could not be read."""
    return isinstance(failure, ChainExhausted | LLMNotConfigured) and not isinstance(failure, AnswerUnreadable)


def model(label: str, *, bucket: RateBucket | None = None) -> Model:
    """The app's model, for the door named `label` (a metrics label: "agent", "briefing", ...)."""
    from app.llm.chain import current_chain

    return Model(current_chain(), label, bucket)
