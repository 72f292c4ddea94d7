"""The fallback chain: several free-tier links behaving as one reliable model.

Each model call walks the links in order. A failure before output is committed (the first
non-empty text delta, or the tool calls of a round that ended properly) moves on to the next link
and rests the failing one; a failure after commit never switches model silently, it raises
`StreamInterrupted` with what was already streamed. The chain is the only retry loop: the SDKs
never retry.

Each link is read on a helper thread (a greenlet under gevent) that feeds a queue, so the caller
waits on the queue, never inside an SDK: the link's first-event, idle and total budgets and the
caller's deadline are measured on model events (keep-alive bytes do not count), a `Waiting` comes
out at least every quarter second of silence (or, for a caller with a `Wake`, whenever it wakes the
stream), and when the caller stops listening the link's connection is cut under the SDK at once.
"""

from __future__ import annotations

import logging
import queue
import statistics
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, TypeVar
from zoneinfo import ZoneInfo

from flask import current_app
from pydantic import BaseModel

from app import daemons
from app.llm import metrics, structured, windows
from app.llm.cooldowns import Clock, cooldown_book
from app.llm.errors import (
    ChainExhausted,
    DeadlineReached,
    FailureKind,
    LLMError,
    LLMNotConfigured,
    StreamInterrupted,
)
from app.llm.http import Cut
from app.llm.messages import (
    ChatRequest,
    Completed,
    Generating,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallReady,
    Waiting,
)
from app.llm.providers.base import ProviderAdapter, join_system, schema_instruction
from app.llm.schemas import portable_schema
from app.llm.settings import NOT_CONFIGURED_HINT, ChainSettings, Timeouts

log = logging.getLogger(__name__)

Schema = TypeVar("Schema", bound=BaseModel)

# A consumer hears from the chain at least this often, model or no model; one that can wake the
# stream when it needs to look (`Wake`) only this often, as a safety net. Thousands of turns wait
# on silent models at once, and each `Waiting` wakes one of them for nothing.
WAITING_EVERY = 0.25
WAITING_EVERY_WITH_WAKE = 5.0

JSON_RETRY_WARNING = (
    "Your previous answer was not valid JSON for the requested schema. "
    "Reply with ONLY the JSON object, nothing before or after it."
)
JSON_CUT_WARNING = (
    "Your previous answer was cut off at the length limit before its JSON object ended. "
    "Reply with ONLY the JSON object, shorter: fewer items and shorter texts, so that it ends."
)


@dataclass(frozen=True)
class LastError:
    kind: str
    status: int | None
    message: str
    at: datetime
    detail: str | None = None  # which limit was hit, or the provider's own error code


@dataclass(frozen=True)
class LinkState:
    """One row of the admin page `/admin/llm`."""

    name: str
    model: str | None
    status: Literal["ready", "cooling", "skipped", "blocked"]
    detail: str
    cooling_until: datetime | None = None
    last_error: LastError | None = None
    recent_latency_ms: float | None = None
    recent_first_token_ms: float | None = None
    unusable_answers: int = 0  # since this process started: answers that could not be read as asked


class _LinkRecord:
    """What the chain remembers about a link for the admin page."""

    def __init__(self) -> None:
        self.last_error: LastError | None = None
        self.latencies: deque[float] = deque(maxlen=20)
        self.first_tokens: deque[float] = deque(maxlen=20)
        self.unusable_answers = 0


class Chain:
    def __init__(
        self,
        settings: ChainSettings,
        adapters: list[ProviderAdapter],
        *,
        clock: Clock = time.time,
    ):
        self.settings = settings
        self.adapters = list(adapters)
        self._clock = clock
        self._cooldowns = cooldown_book(settings.redis_url, settings.redis_prefix, clock)
        self._records = {adapter.name: _LinkRecord() for adapter in self.adapters}
        self._lock = threading.Lock()
        self._windows = windows.Windows()

    @property
    def configured(self) -> bool:
        return bool(self.adapters)

    @property
    def link_names(self) -> list[str]:
        return [adapter.name for adapter in self.adapters]

    # -- the doors -------------------------------------------------------------------------------

    def stream(
        self,
        request: ChatRequest,
        *,
        deadline: float | None = None,
        wake: Wake | None = None,
        gather: float | None = None,
    ) -> Iterator[StreamEvent]:
        """Streams one model call; closing the iterator cuts the HTTP stream it is reading.

        `deadline` is an absolute `time.monotonic()`: no link is started after it, and the link
        being read is cut at it. A `Waiting` comes first, so a caller that checks its own deadline
        on every event ends the call in its own words; read on, and the chain raises
        `DeadlineReached` (nothing committed yet) or `StreamInterrupted` (output committed).
        While the model is silent a `Waiting` comes at least every quarter second; with a `wake`,
        at once when it is called, and otherwise every WAITING_EVERY_WITH_WAKE seconds.

        With `gather` (seconds), text is given as it comes but at most once per `gather`: the
        pieces read meanwhile leave together, as one `TextDelta` (a model sends 30–150 pieces a
        second; a person reads no faster for each of them being its own event). Without it, each
        piece leaves on its own.
        """
        self._require_configured()
        return self._walk_streaming(request, deadline, wake, gather)

    def structured(
        self, request: ChatRequest, schema: type[Schema], *, retry: bool = True, deadline: float | None = None
    ) -> Schema:
        """One non-streamed answer read as `schema` (app/llm/structured.py: fences, prose around
        the one object, extra fields and numbers sent as strings are read; nothing is guessed).

        An unreadable answer is asked for again once (when `retry`), walking the chain from its
        first link again, with a JSON-only warning appended to the system prompt, or, for an answer
        cut off inside its JSON, a request for a shorter one. A second unreadable answer, or a
        repair no link answers, raises `AnswerUnreadable` (`AI_ANSWER_UNUSABLE`): a model did
        answer, so the caller must not say that none could be reached (`AI_UNAVAILABLE`, when no
        link answered at all). Each link's total budget, and `deadline` (as in `stream`), bound
        every attempt.
        """
        self._require_configured()
        asked, failures = request, []
        for attempt in range(2 if retry else 1):
            try:
                text, link = self._walk_json(asked, schema, deadline)
            except DeadlineReached:
                raise
            except ChainExhausted as exhausted:
                if not failures:
                    raise
                raise structured.AnswerUnreadable([*failures, *exhausted.failures]) from exhausted
            try:
                return structured.read(text, schema)
            except structured.Unreadable as unreadable:
                failure = LLMError(FailureKind.MALFORMED, link, 200, f"unreadable as {schema.__name__}: {unreadable}")
                failures.append(failure)
                self._note_unusable(link, failure)
                log.warning("LLM link %s gave an unreadable answer (attempt %d): %s", link, attempt + 1, unreadable)
                warning = JSON_CUT_WARNING if unreadable.cut else JSON_RETRY_WARNING
                asked = replace(request, system=join_system(request.system, warning))
        raise structured.AnswerUnreadable(failures)

    def link_states(self) -> list[LinkState]:
        adapters = {a.name: a for a in self.adapters}
        cooling = self._cooldowns.active(adapters)
        states = []
        for name in dict.fromkeys((*self.settings.order, *self.settings.blocked)):
            if name in self.settings.blocked:
                states.append(LinkState(name, None, "blocked", "blocked by BEYOU_LLM_BLOCKED"))
                continue
            if name not in adapters:
                reason = self.settings.skipped.get(name, "not configured")
                states.append(LinkState(name, None, "skipped", f"skipped: {reason}"))
                continue
            record = self._records[name]
            with self._lock:
                latency = _median_ms(record.latencies)
                first_token = _median_ms(record.first_tokens)
                last_error = record.last_error
                unusable = record.unusable_answers
            until = None
            status, detail = "ready", "ready"
            if cooldown := cooling.get(name):
                until = datetime.fromtimestamp(cooldown.until, UTC)
                status, detail = "cooling", f"cooling until {until:%Y-%m-%d %H:%M:%S} UTC ({cooldown.reason})"
            states.append(
                LinkState(name, adapters[name].model, status, detail, until, last_error, latency, first_token, unusable)
            )
        return states

    def close(self) -> None:
        for adapter in self.adapters:
            adapter.close()

    # -- walking the links -----------------------------------------------------------------------

    def _walk_streaming(
        self, request: ChatRequest, deadline: float | None, wake: Wake | None, gather: float | None
    ) -> Iterator[StreamEvent]:
        failures: list[LLMError] = []
        every = WAITING_EVERY if wake is None else WAITING_EVERY_WITH_WAKE
        for adapter in self._candidates():
            if deadline is not None and time.monotonic() >= deadline:
                failures.append(LLMError(FailureKind.TIMEOUT, "chain", None, f"deadline passed before {adapter.name}"))
                yield Waiting()  # the caller's own clock check has the first word
                raise DeadlineReached(failures)
            try:
                fitted = self._fitted(adapter, request)
            except windows.WindowTooSmall as refused:
                failures.append(refused)
                continue
            budget = _Budget(self.settings.timeouts, time.monotonic(), deadline)
            reader = _Reader(adapter, lambda adapter=adapter, fitted=fitted: adapter.stream(fitted))
            text: list[str] = []
            calls: list[ToolCall] = []
            committed = False
            outcome = "cancelled"
            if wake is not None:
                wake.listen(reader.items)
            try:
                for event in self._events(adapter, reader, budget, every, gather):
                    if isinstance(event, TextDelta | ToolCallReady):
                        if isinstance(event, TextDelta):
                            if "\x00" in event.text:  # no text column can store NUL (PostgreSQL)
                                event = TextDelta(event.text.replace("\x00", ""))
                            if not event.text:
                                continue
                            text.append(event.text)
                        else:
                            calls.append(event.call)
                        if not committed:
                            committed = True
                            elapsed = time.monotonic() - budget.started
                            metrics.FIRST_TOKEN.labels(adapter.name).observe(elapsed)
                            self._note_first_token(adapter.name, elapsed)
                    elif isinstance(event, Completed):
                        outcome = "ok"
                        self._note_success(adapter.name, event, time.monotonic() - budget.started)
                    yield event
            except LLMError as failure:
                if budget.caller_deadline_passed():
                    self._note_error(adapter.name, failure)  # the caller's clock, not the link's fault
                    yield Waiting()  # a caller that checks its deadline on every event ends in its own words
                else:
                    self._rest(adapter.name, failure)
                if committed:
                    outcome = FailureKind.INTERRUPTED.value
                    raise StreamInterrupted(
                        failure, link=adapter.name, partial_text="".join(text), partial_tool_calls=calls
                    ) from failure
                outcome = failure.kind.value
                failures.append(failure)
                if budget.caller_deadline_passed():
                    raise DeadlineReached(failures) from failure
                metrics.FALLBACKS.labels(adapter.name, failure.kind.value).inc()
                log.warning("LLM link %s failed before output, falling through: %s", adapter.name, failure)
                continue
            finally:
                if wake is not None:
                    wake.listen(None)
                reader.stop()
                metrics.ATTEMPTS.labels(adapter.name, outcome).inc()
            return
        metrics.EXHAUSTED.inc()
        raise windows.exhausted(failures)

    def _events(
        self, adapter: ProviderAdapter, reader: _Reader, budget: _Budget, every: float, gather: float | None
    ) -> Iterator[StreamEvent]:
        """One link's events from its reader, under its budget; `Waiting` in every silence (at
        least `every` seconds apart) and whenever the caller wakes the stream.

        Silence is measured from when the link said something, not from when the caller took it:
        a caller busy with an event (running a tool) does not make the link late, and an event
        already read is delivered without looking at the clock, except text past the total budget.

        With `gather`, text already read leaves as one `TextDelta` once nothing more is waiting,
        and at most one every `gather` seconds; anything else the link says first lets the text
        before it go. After text leaves, nothing is taken from the reader until `gather` seconds
        have passed: what the link says meanwhile leaves with the next piece, and the caller
        wakes once a window instead of once a chunk (a model sends 30 to 150 a second). The first
        piece after a quiet window leaves at once.
        """
        spoke_at = time.monotonic()
        held: list[str] = []
        text_at = 0.0  # when the next text may leave
        while True:
            if text_at and (window := text_at - time.monotonic()) > 0:
                time.sleep(window)
            said = _next(reader.items)
            if said is None:
                now = time.monotonic()
                if held:
                    text_at = now + gather if gather else 0.0
                    yield _joined(held)
                    continue
                budget.check(adapter, now)
                said = _next(reader.items, max(0.0, min(spoke_at + every, budget.limit()) - now))
                if said is None:
                    budget.check(adapter, time.monotonic())
                    spoke_at = time.monotonic()
                    yield Waiting()
                    continue
            said_at, item = said
            if isinstance(item, TextDelta):
                budget.heard(said_at)
                now = time.monotonic()
                if held and now >= budget.end:  # what came in time is given before the budget ends it
                    yield _joined(held)
                budget.check(adapter, now, waiting=False)
                spoke_at = now
                if gather is None:
                    yield item
                else:
                    held.append(item.text)
                continue
            if isinstance(item, Generating):
                budget.heard(said_at)
                budget.check(adapter, time.monotonic(), waiting=False)
                if time.monotonic() - spoke_at >= every:
                    spoke_at = time.monotonic()
                    yield Waiting()
                continue
            if held:  # the text said before it goes first
                text_at = time.monotonic() + gather if gather else 0.0
                yield _joined(held)
            if item is _WOKEN:  # the caller's, not the model's: the link's silence goes on
                yield Waiting()
                continue
            if isinstance(item, _Ended):
                if item.error is not None:
                    raise item.error
                return
            budget.heard(said_at)
            yield item

    def _walk_json(self, request: ChatRequest, schema: type[BaseModel], deadline: float | None) -> tuple[str, str]:
        failures: list[LLMError] = []
        for adapter in self._candidates():
            if deadline is not None and time.monotonic() >= deadline:
                failures.append(LLMError(FailureKind.TIMEOUT, "chain", None, f"deadline passed before {adapter.name}"))
                raise DeadlineReached(failures)
            try:
                fitted = self._fitted(adapter, request, schema)
            except windows.WindowTooSmall as refused:
                failures.append(refused)
                continue
            budget = _Budget(self.settings.timeouts, time.monotonic(), deadline)
            reader = _Reader(adapter, lambda adapter=adapter, fitted=fitted: _answer_of(adapter, fitted, schema))
            answered = False
            try:
                _said_at, item = reader.items.get(timeout=max(0.0, budget.end - time.monotonic()))
                if isinstance(item, _Ended):
                    raise item.error or adapter.failure(FailureKind.MALFORMED, None, "no answer")
                text = item.text
            except queue.Empty:
                failure = budget.overdue(adapter, time.monotonic())
            except LLMError as error:
                failure = error
            else:
                answered = True
                elapsed = time.monotonic() - budget.started
                metrics.ATTEMPTS.labels(adapter.name, "ok").inc()
                metrics.CALL_TIME.labels(adapter.name).observe(elapsed)
                with self._lock:
                    self._records[adapter.name].latencies.append(elapsed)
                return text, adapter.name
            finally:
                # A reader that handed over its answer has read it whole and ends by itself; cut
                # now, before it lets go of its connection, it would shut the one the pool is
                # about to lend the next call.
                if not answered:
                    reader.stop()
            failures.append(failure)
            metrics.ATTEMPTS.labels(adapter.name, failure.kind.value).inc()
            if budget.caller_deadline_passed():
                self._note_error(adapter.name, failure)
                raise DeadlineReached(failures)
            self._rest(adapter.name, failure)
            metrics.FALLBACKS.labels(adapter.name, failure.kind.value).inc()
        metrics.EXHAUSTED.inc()
        raise windows.exhausted(failures)

    def _fitted(
        self, adapter: ProviderAdapter, request: ChatRequest, schema: type[BaseModel] | None = None
    ) -> ChatRequest:
        """The request as this link takes it: its tools at most, cut to its window, counting the
        JSON instruction an adapter adds for `schema` (app/llm/windows.py). A link whose window
        cannot hold it is passed over, not rested: the request is at fault, and another link, or
        a shorter message, may do."""
        window = self._windows.of(adapter.link)
        extra = schema_instruction(portable_schema(schema)) if schema is not None and window is not None else ""
        try:
            return windows.fit(request, adapter.link, window, extra)
        except windows.WindowTooSmall as refused:
            metrics.ATTEMPTS.labels(adapter.name, "too_long").inc()
            log.warning("LLM link %s passed over: %s", adapter.name, refused)
            raise

    def _candidates(self) -> Iterator[ProviderAdapter]:
        """Links to try, in order: resting ones are skipped, except the last, which is always tried."""
        cooling = self._cooldowns.active(self.link_names)
        last = len(self.adapters) - 1
        for index, adapter in enumerate(self.adapters):
            if adapter.name in cooling and index != last:
                metrics.ATTEMPTS.labels(adapter.name, "skipped_cooldown").inc()
                continue
            yield adapter

    # -- bookkeeping -----------------------------------------------------------------------------

    def _rest(self, link: str, failure: LLMError) -> None:
        seconds = self._rest_seconds(failure)
        self._note_error(link, failure)
        if failure.limit is not None:
            metrics.LIMITS.labels(link, failure.limit.label).inc()
        if seconds > 0:
            reason = f"{failure.kind.value}: {failure.detail}" if failure.detail else failure.kind.value
            self._cooldowns.enter(link, seconds, reason)
            metrics.COOLDOWNS.labels(link, failure.kind.value).inc()

    def _rest_seconds(self, failure: LLMError) -> float:
        """How long a link rests: a daily limit until the provider's reset; otherwise the delay
        the provider asked for; a per-minute limit that named none, the rest of a minute; the
        settings' rest for rate limits and for other failures."""
        limit = failure.limit
        if limit is not None and limit.window == "day" and limit.resets_in:
            return _until_midnight(self._clock(), limit.resets_in)
        if failure.retry_after is not None:
            return failure.retry_after
        if limit is not None and limit.window == "minute":
            return 60.0
        return self.settings.cooldown_rate_limit if failure.kind.is_rate_limit else self.settings.cooldown_error

    def _note_error(self, link: str, failure: LLMError) -> None:
        with self._lock:
            self._records[link].last_error = LastError(
                failure.kind.value,
                failure.status,
                failure.message,
                datetime.fromtimestamp(self._clock(), UTC),
                failure.detail,
            )

    def _note_unusable(self, link: str, failure: LLMError) -> None:
        """A link answered with nothing readable as asked: its last error, and one more in its
        count of unusable answers (the admin page, and `beyou_llm_unusable_answers_total`)."""
        self._note_error(link, failure)
        metrics.UNUSABLE.labels(link).inc()
        with self._lock:
            self._records[link].unusable_answers += 1

    def _note_first_token(self, link: str, seconds: float) -> None:
        with self._lock:
            self._records[link].first_tokens.append(seconds)

    def _note_success(self, link: str, event: Completed, seconds: float) -> None:
        metrics.CALL_TIME.labels(link).observe(seconds)
        if event.usage:
            if event.usage.prompt_tokens:
                metrics.TOKENS.labels(link, "prompt").inc(event.usage.prompt_tokens)
            if event.usage.completion_tokens:
                metrics.TOKENS.labels(link, "completion").inc(event.usage.completion_tokens)
        with self._lock:
            self._records[link].latencies.append(seconds)

    def _require_configured(self) -> None:
        if not self.configured:
            raise LLMNotConfigured(NOT_CONFIGURED_HINT)


@dataclass
class _Budget:
    """When one link's call must end: its first model event within `first_event`, then no
    silence longer than `idle`, the whole call within `total`, and never past the caller's
    deadline."""

    timeouts: Timeouts
    started: float
    deadline: float | None
    heard_at: float | None = None

    @property
    def end(self) -> float:
        own_end = self.started + self.timeouts.total
        return own_end if self.deadline is None else min(own_end, self.deadline)

    def limit(self) -> float:
        """The moment the link must have said something more."""
        if self.heard_at is None:
            return min(self.started + self.timeouts.first_event, self.end)
        return min(self.heard_at + self.timeouts.idle, self.end)

    def heard(self, now: float) -> None:
        self.heard_at = now

    def caller_deadline_passed(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def check(self, adapter: ProviderAdapter, now: float, *, waiting: bool = True) -> None:
        """Raises the link's timeout once a budget ran out (silences count only while waiting)."""
        if now >= (self.limit() if waiting else self.end):
            raise self.overdue(adapter, now)

    def overdue(self, adapter: ProviderAdapter, now: float) -> LLMError:
        if self.deadline is not None and now >= self.deadline:
            return adapter.failure(FailureKind.TIMEOUT, None, "the caller's deadline passed")
        if now >= self.started + self.timeouts.total:
            return adapter.failure(FailureKind.TIMEOUT, None, f"no end after {self.timeouts.total:g}s")
        if self.heard_at is None:
            return adapter.failure(FailureKind.TIMEOUT, None, f"no model event within {self.timeouts.first_event:g}s")
        return adapter.failure(FailureKind.TIMEOUT, None, f"no model event for {self.timeouts.idle:g}s")


@dataclass(frozen=True)
class _Answer:
    text: str


@dataclass(frozen=True)
class _Ended:
    error: BaseException | None = None


_WOKEN = object()  # what a `Wake` puts among a link's events


class Wake:
    """A caller's way to hear from its stream at once while the model is silent: calling it, from
    any thread, makes the stream yield a `Waiting` now, so the caller looks at what it was woken
    for (a turn asked to stop). A call while no link is being read is kept for the next one."""

    def __init__(self) -> None:
        self._events: queue.SimpleQueue[Any] | None = None
        self._called = False

    def __call__(self) -> None:
        self._called = True
        events = self._events
        if events is not None:
            events.put((time.monotonic(), _WOKEN))

    def listen(self, events: queue.SimpleQueue[Any] | None) -> None:
        """The link being read now (None: none). A call that came in between is heard at once;
        one heard twice only makes one more `Waiting`."""
        self._events = events
        if events is not None and self._called:
            self._called = False
            events.put((time.monotonic(), _WOKEN))


def _answer_of(adapter: ProviderAdapter, request: ChatRequest, schema: type[BaseModel]) -> Iterator[_Answer]:
    yield _Answer(adapter.complete_json(request, schema))


class _Reader:
    """Reads one link on a helper thread (a greenlet under gevent) into `items` as (when the link
    said it, what it said), ending with an `_Ended`. `stop()` cuts the link's connection under the
    SDK, which then fails at once and lets the thread end; nobody waits for it."""

    def __init__(self, adapter: ProviderAdapter, read: Callable[[], Iterator[Any]]):
        self.items: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._adapter = adapter
        self._read = read
        self._cut = Cut()
        daemons.start(self._run, f"llm-{adapter.name}")

    def _run(self) -> None:
        try:
            with self._adapter.cuttable(self._cut), closing(self._read()) as events:
                for event in events:
                    if self._cut.done:
                        break
                    self.items.put((time.monotonic(), event))
        except Exception as error:
            self.items.put((time.monotonic(), _Ended(error)))
        else:
            self.items.put((time.monotonic(), _Ended()))

    def stop(self) -> None:
        self._cut()


def _next(items: queue.SimpleQueue[Any], wait: float | None = None) -> Any:
    """The reader's next item, waiting up to `wait` seconds (None: not at all), or None. The
    wait is outside the `except`: a turn waiting on a silent model holds no exception and
    traceback through its wait."""
    try:
        return items.get_nowait() if wait is None else items.get(timeout=wait)
    except queue.Empty:
        return None


def _joined(held: list[str]) -> TextDelta:
    """The held pieces of text as one, leaving `held` empty."""
    text = "".join(held)
    held.clear()
    return TextDelta(text)


def _until_midnight(now: float, zone: str) -> float:
    """Seconds from `now` to the next midnight in `zone` (a provider's daily reset)."""
    here = datetime.fromtimestamp(now, ZoneInfo(zone))
    midnight = datetime.combine(here.date() + timedelta(days=1), datetime.min.time(), here.tzinfo)
    return midnight.timestamp() - now


def _median_ms(values: deque[float]) -> float | None:
    return round(statistics.median(values) * 1000, 1) if values else None


EXTENSION_KEY = "llm_chain"  # where the app keeps its chain


def current_chain() -> Chain:
    """The app's chain itself, for what sees every link (the admin page, readiness checks);
    a feature that calls a model goes through `model(label)` instead."""
    return current_app.extensions[EXTENSION_KEY]
