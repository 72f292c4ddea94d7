"""Focus mode: one routine entry of today, its small steps (micro-tasks) and its timer.

Everything hangs off the routine ENTRY (its own id, never the habit's or task's), and only an
entry of the routine scheduled today (the user's time zone) opens: another day's entry is
refused with FOCUS_ENTRY_NOT_TODAY, another user's exactly like an unknown one (ENTRY_NOT_FOUND).

Steps belong to one local day. Pinning belongs to the step's NAME within the entry: a pinned
name is kept for the entry on every day, so reading the list adds each pinned name missing
today (the read writes, and announces it); deleting a pinned step stops keeping its name.

The timer of an entry lives here, not in a browser, so every device shows the same clock: its
state (running, paused, stopped), its phase (a focus, then the break that follows on its own),
the time the phase ran before its current run and when that run started. Every page counts down
from what the server says is left. A phase that reaches its length ends when the timer is next
read or changed, at the moment it reached it (even when no page was open to see it), and only
then is it recorded as a timer cycle, once per cycle id. The assistant never calls
`record_cycle` nor changes the timer: a cycle is time someone actually spent, and the day view
only reads it.
"""

import uuid
from dataclasses import dataclass, field, replace
from datetime import UTC, timedelta

from sqlalchemy import inspect
from sqlalchemy.exc import IntegrityError

from app.events import announce
from app.extensions import db
from app.focus.models import TEXT_MAX, CycleKind, FocusTimer, MicroTask, PinnedStep, TimerCycle, TimerState
from app.routines import schedules
from app.routines import services as routines
from app.routines.today import local_today, today_routine
from app.shared.errors import Conflict, Invalid, NotFound
from app.shared.models import utcnow
from app.shared.ownership import owned
from app.shared.values import whole_number_from
from app.study_cycles import services as study_cycles

WORK_MINUTES = (1, 120)  # the bounds of the user's settings, and of a reported cycle
BREAK_MINUTES = (1, 60)
STEPS_MAX = 50  # per entry per day: a list longer than this is no longer a focus list


# The entry ---------------------------------------------------------------------------------------


def todays_entry(user, entry_id, now=None):
    """(the user's routine entry, today's local date) when the entry is in today's routine."""
    entry = routines.get_entry(user, entry_id)
    today = local_today(user, now)[1]
    scheduled = schedules.routine_on(user, today)
    if scheduled is None or scheduled.id != entry.routine_id:
        raise Invalid("FOCUS_ENTRY_NOT_TODAY")
    return entry, today


def refuse_missing_entry(user, open_entry_id=None):
    """The refusal for a call that needs an entry and got none: it names the entry open in
    Focus mode, when there is one, because that is usually the one meant — but never assumes it."""
    if open_entry_id is not None:
        try:
            entry = routines.get_entry(user, open_entry_id)
        except NotFound:
            entry = None
        if entry is not None:
            raise Invalid("FOCUS_ENTRY_REQUIRED_OPEN", name=entry.item.name, entry_id=str(entry.id))
    raise Invalid("FOCUS_ENTRY_REQUIRED")


@dataclass
class EntrySteps:
    """One entry's steps on one day, in order, and the names pinned to the entry."""

    entry: object
    day: object
    steps: list = field(default_factory=list)
    pinned_names: set = field(default_factory=set)  # casefolded

    def is_pinned(self, step):
        return _key(step.text) in self.pinned_names

    @property
    def done(self):
        return sum(1 for step in self.steps if step.done)

    def step_data(self, step):
        return {"id": str(step.id), "text": step.text, "done": step.done, "pinned": self.is_pinned(step)}

    def to_dict(self):
        return {
            "entry_id": str(self.entry.id),
            "entry_name": self.entry.item.name,
            "day": self.day.isoformat(),
            "done": self.done,
            "total": len(self.steps),
            "steps": [self.step_data(step) for step in self.steps],
        }


# Steps -----------------------------------------------------------------------------------------


def list_steps(user, entry_id, now=None):
    """Today's steps of an entry. Each pinned name missing today is added first (unchecked, at the
    end): this read writes, commits and announces when it added any."""
    entry, today = todays_entry(user, entry_id, now)
    steps = _steps(user, entry, today)
    if db.session.new or db.session.dirty:
        _saved(user)
    return steps


def add(user, entry_id, text, now=None):
    """Add a step at the end of today's list of the entry."""
    problems = {}
    clean = _clean_text(text, problems)
    if problems:
        raise Invalid("INVALID_INPUT", details=problems)
    entry, today = todays_entry(user, entry_id, now)
    steps = _steps(user, entry, today)
    if len(steps.steps) >= STEPS_MAX:
        raise Invalid("MICRO_TASKS_FULL", details={"text": "MICRO_TASKS_FULL"})
    step = MicroTask(user_id=user.id, entry_id=entry.id, day=today, text=clean, done=False, position=len(steps.steps))
    db.session.add(step)
    steps.steps.append(step)
    _saved(user)
    return step, steps


def check(user, micro_task_id, done=None, now=None):
    """Mark a step of today done or not (`done` None: the other way round)."""
    step, steps = _todays_step(user, micro_task_id, now)
    step.done = (not step.done) if done is None else bool(done)
    _saved(user)
    return step, steps


def pin(user, micro_task_id, pinned=True, now=None):
    """Pin (or unpin) the step's NAME within its entry: pinned, the name is kept on every day."""
    step, steps = _todays_step(user, micro_task_id, now)
    key = _key(step.text)
    pins = _pins(user, step.entry_id)
    if pinned and key not in {_key(pin.name) for pin in pins}:
        db.session.add(PinnedStep(user_id=user.id, entry_id=step.entry_id, name=step.text))
        steps.pinned_names.add(key)
    elif not pinned:
        for kept in pins:
            if _key(kept.name) == key:
                db.session.delete(kept)
        steps.pinned_names.discard(key)
    _saved(user)
    return step, steps


def delete(user, micro_task_id, now=None):
    """Delete a step of today. Deleting a pinned step also stops keeping its name."""
    step, steps = _todays_step(user, micro_task_id, now)
    key = _key(step.text)
    for kept in _pins(user, step.entry_id):
        if _key(kept.name) == key:
            db.session.delete(kept)
    steps.pinned_names.discard(key)
    steps.steps.remove(step)
    db.session.delete(step)
    _renumber(steps.steps)
    _saved(user)
    return steps


def reorder(user, entry_id, ordered_ids, now=None):
    """Put today's steps of the entry in this order: every step id exactly once."""
    entry, today = todays_entry(user, entry_id, now)
    steps = _steps(user, entry, today)
    by_id = {str(step.id): step for step in steps.steps}
    wanted = [str(routines.as_uuid(value) or value) for value in ordered_ids or ()]
    if sorted(wanted) != sorted(by_id):
        raise Invalid("MICRO_TASK_ORDER_INVALID")
    steps.steps = [by_id[step_id] for step_id in wanted]
    _renumber(steps.steps)
    _saved(user)
    return steps


def move(user, micro_task_id, offset, now=None):
    """Move a step one place up (offset < 0) or down (offset > 0): the keyboard's reorder."""
    step, steps = _todays_step(user, micro_task_id, now)
    ordered = list(steps.steps)
    index = ordered.index(step)
    target = min(max(index + (1 if offset > 0 else -1 if offset < 0 else 0), 0), len(ordered) - 1)
    ordered.insert(target, ordered.pop(index))
    steps.steps = ordered
    _renumber(ordered)
    _saved(user)
    return step, steps


def step_to_delete(user, micro_task_id, now=None):
    """(the user's step of today, whether its name is pinned): what `delete` would remove, read
    without changing anything."""
    step = owned(MicroTask, micro_task_id, user, key="MICRO_TASK_NOT_FOUND")
    _entry, today = todays_entry(user, step.entry_id, now)
    if step.day != today:
        raise NotFound("MICRO_TASK_NOT_FOUND")
    return step, any(_key(kept.name) == _key(step.text) for kept in _pins(user, step.entry_id))


def _todays_step(user, micro_task_id, now):
    """The user's step with its entry's steps of today; a step of another day is not addressable."""
    step = owned(MicroTask, micro_task_id, user, key="MICRO_TASK_NOT_FOUND")
    entry, today = todays_entry(user, step.entry_id, now)
    if step.day != today:
        raise NotFound("MICRO_TASK_NOT_FOUND")
    steps = _steps(user, entry, today)
    return next(kept for kept in steps.steps if kept.id == step.id), steps


def _steps(user, entry, day):
    """The entry's steps on `day`, each pinned name missing that day added (not yet committed)."""
    steps = list(
        db.session.scalars(
            db.select(MicroTask)
            .where(MicroTask.user_id == user.id, MicroTask.entry_id == entry.id, MicroTask.day == day)
            .order_by(MicroTask.position, MicroTask.created_at, MicroTask.id)
        )
    )
    present = {_key(step.text) for step in steps}
    pins = _pins(user, entry.id)
    for kept in pins:
        if _key(kept.name) not in present and len(steps) < STEPS_MAX:
            step = MicroTask(user_id=user.id, entry_id=entry.id, day=day, text=kept.name, done=False)
            db.session.add(step)
            steps.append(step)
            present.add(_key(kept.name))
    _renumber(steps)
    return EntrySteps(entry, day, steps, {_key(kept.name) for kept in pins})


def _pins(user, entry_id):
    return list(
        db.session.scalars(
            db.select(PinnedStep)
            .where(PinnedStep.user_id == user.id, PinnedStep.entry_id == entry_id)
            .order_by(PinnedStep.created_at, PinnedStep.id)
        )
    )


def _clean_text(value, problems, field_name="text"):
    text = " ".join(str(value or "").split())
    if not text:
        problems[field_name] = "MICRO_TASK_TEXT_REQUIRED"
    elif len(text) > TEXT_MAX:
        problems[field_name] = "MICRO_TASK_TEXT_TOO_LONG"
    return text


def _key(name):
    """Names match whatever their letter case: "Stretch" pinned keeps "stretch" too."""
    return " ".join(name.split()).casefold()


def _renumber(steps):
    for position, step in enumerate(steps):
        if step.position != position:
            step.position = position


def _saved(user):
    db.session.commit()
    announce(user, "focus")


# The timer ---------------------------------------------------------------------------------------


def record_cycle(user, entry_id, cycle_id, kind, minutes, now=None):
    """Record a work or break period the entry's timer ran to its end (`now`: that end), on the
    local day it ended, once per cycle id: the same id again returns the row already recorded
    and writes nothing. (cycle, created). The timer was started on an entry of that day; the
    day it is read on may be another, so only the entry's owner is checked here."""
    entry = routines.get_entry(user, entry_id)
    today = local_today(user, now)[1]
    problems = {}
    cycle_uuid = routines.as_uuid(cycle_id)
    if cycle_uuid is None:
        problems["cycle_id"] = "TIMER_CYCLE_INVALID"
    chosen = next((choice for choice in CycleKind if choice.value == str(kind or "").strip().upper()), None)
    if chosen is None:
        problems["kind"] = "TIMER_CYCLE_INVALID"
    low, high = WORK_MINUTES if chosen != CycleKind.BREAK else BREAK_MINUTES
    length = minutes_from(minutes)
    if length is None or not low <= length <= high:
        problems["minutes"] = "TIMER_CYCLE_INVALID"
    if problems:
        raise Invalid("TIMER_CYCLE_INVALID", details=problems)
    recorded = _cycle(user, cycle_uuid)
    if recorded is not None:
        return recorded, False
    cycle = TimerCycle(user_id=user.id, cycle_id=cycle_uuid, entry_id=entry.id, day=today, kind=chosen, minutes=length)
    if now is not None:
        cycle.completed_at = now
    db.session.add(cycle)
    try:
        db.session.commit()
    except IntegrityError:  # the same cycle, sent twice at once: the other request recorded it
        db.session.rollback()
        return _cycle(user, cycle_uuid), False
    announce(user, "focus")
    study_cycles.credit_timer_cycle(user, cycle)
    return cycle, True


def _cycle(user, cycle_uuid):
    return db.session.scalar(
        db.select(TimerCycle).where(TimerCycle.user_id == user.id, TimerCycle.cycle_id == cycle_uuid)
    )


def minutes_from(value):
    """A whole number of minutes typed or sent ("25", 25), or None for anything else ("2.5", "²", True)."""
    return whole_number_from(value, 9999)


def timer(user):
    """The timer's lengths, in minutes, from the user's configuration."""
    return {"work": user.focus_work_minutes, "break": user.focus_break_minutes}


@dataclass(frozen=True)
class TimerView:
    """An entry's timer as it stands at `at`: what every page shows and counts down from.

    `banked_ms` is what the phase ran before its current run; while running, the time since
    `started_at` adds to it."""

    entry_id: uuid.UUID
    day: object
    phase: CycleKind
    state: TimerState
    planned_ms: int
    banked_ms: int
    started_at: object  # the current run's start, while running
    cycle_id: uuid.UUID | None
    pauses: int
    work_ms: int  # the user's configured lengths: the next focus, and the break after a focus
    break_ms: int
    at: object
    revision: int = 0  # the row's count of changes (0: never started); a page keeps the highest

    @property
    def elapsed_ms(self):
        running = self.state == TimerState.RUNNING
        return self.banked_ms + (_ms(self.at - self.started_at) if running else 0)

    @property
    def remaining_ms(self):
        return max(self.planned_ms - self.elapsed_ms, 0)

    def ended(self):
        """(the phases that reached their length by `at`, each as (kind, cycle id, minutes, the
        moment it ended), the timer after them): a focus is followed by its break from the
        moment it ended; after a break the timer stops, ready for the next focus."""
        ended, view = [], self
        while view.state == TimerState.RUNNING and view.elapsed_ms >= view.planned_ms:
            end = view.started_at + timedelta(milliseconds=view.planned_ms - view.banked_ms)
            ended.append((view.phase, view.cycle_id, view.planned_ms // 60000, end))
            if view.phase == CycleKind.WORK:
                view = replace(
                    view,
                    phase=CycleKind.BREAK,
                    planned_ms=view.break_ms,
                    banked_ms=0,
                    started_at=end,
                    cycle_id=uuid.uuid4(),
                    pauses=0,
                )
            else:
                view = view.stopped()
        return ended, view

    def stopped(self, **changes):
        """The timer stopped, ready for the next focus at the user's focus length."""
        return replace(
            self,
            phase=CycleKind.WORK,
            state=TimerState.STOPPED,
            planned_ms=self.work_ms,
            banked_ms=0,
            started_at=None,
            cycle_id=None,
            pauses=0,
            **changes,
        )

    def to_dict(self):
        return {
            "phase": self.phase.value,
            "state": self.state.value,
            "planned_seconds": self.planned_ms // 1000,
            "elapsed_seconds": self.elapsed_ms // 1000,
            "remaining_seconds": -(-self.remaining_ms // 1000),
        }


def timer_state(user, entry_id, now=None):
    """The entry's timer now. A phase that reached its length meanwhile ends here: it is
    recorded and the timer moves on, so this read may write (and announce it)."""
    now = _aware(now)
    entry, today = todays_entry(user, entry_id, now)
    return _settled(user, entry, today, now)[1]


def start_timer(user, entry_id, now=None):
    """Start a focus on a stopped timer, as long as the user's focus length."""
    now = _aware(now)
    entry, today = todays_entry(user, entry_id, now)
    row, view = _settled(user, entry, today, now)
    if view.state == TimerState.RUNNING:
        raise Conflict("FOCUS_TIMER_RUNNING")
    if view.state == TimerState.PAUSED:
        raise Conflict("FOCUS_TIMER_PAUSED")
    if row is None:
        row = FocusTimer(user_id=user.id, entry_id=entry.id)
        db.session.add(row)
    _restart(row, user, today)
    row.state, row.started_at = TimerState.RUNNING, now
    row.cycle_id = uuid.uuid4()
    try:
        return _timer_saved(user, row, now)
    except IntegrityError:  # a first start on another device at the same moment made the row
        db.session.rollback()
        raise Conflict("FOCUS_TIMER_RUNNING") from None


def pause_timer(user, entry_id, now=None):
    """Pause the running phase: the time it ran is kept, and the clock stands still everywhere."""
    now = _aware(now)
    entry, today = todays_entry(user, entry_id, now)
    row, view = _settled(user, entry, today, now)
    if view.state != TimerState.RUNNING:
        raise Conflict("FOCUS_TIMER_NOT_RUNNING")
    row.elapsed_ms, row.day = view.elapsed_ms, today
    row.state, row.started_at, row.paused_at = TimerState.PAUSED, None, now
    row.pauses += 1
    return _timer_saved(user, row, now)


def resume_timer(user, entry_id, now=None):
    """Run a paused phase again from where it stood."""
    now = _aware(now)
    entry, today = todays_entry(user, entry_id, now)
    row, view = _settled(user, entry, today, now)
    if view.state != TimerState.PAUSED:
        raise Conflict("FOCUS_TIMER_NOT_PAUSED")
    row.state, row.started_at, row.paused_at, row.day = TimerState.RUNNING, now, None, today
    return _timer_saved(user, row, now)


def stop_timer(user, entry_id, now=None):
    """Stop (reset) a running or paused timer: the phase under way is not a cycle and is not
    recorded; the next start is a new focus."""
    now = _aware(now)
    entry, today = todays_entry(user, entry_id, now)
    row, view = _settled(user, entry, today, now)
    if view.state == TimerState.STOPPED:
        raise Conflict("FOCUS_TIMER_STOPPED")
    _restart(row, user, today)
    return _timer_saved(user, row, now)


def timers_of(user, entry_ids, now=None):
    """{entry id: its TimerView at `now`} for these entries, read only: a phase past its end is
    shown as it has moved on, but recorded only by `timer_state` and the changes."""
    now = _aware(now)
    rows = db.session.scalars(
        db.select(FocusTimer).where(FocusTimer.user_id == user.id, FocusTimer.entry_id.in_(list(entry_ids)))
    )
    today = local_today(user, now)[1]
    return {row.entry_id: _current(_view(user, row, row.entry_id, today, now).ended()[1], today) for row in rows}


def _settled(user, entry, today, now):
    """(the entry's timer row or None, its view at `now`) once every phase that ended is
    recorded and the row moved past it; a paused or stopped timer of another day is forgotten."""
    row = _timer_row(user, entry.id)
    ended, view = _view(user, row, entry.id, today, now).ended()
    if ended:
        for kind, cycle_id, minutes, end in ended:
            record_cycle(user, entry.id, cycle_id, kind, minutes, now=end)
        row = _timer_row(user, entry.id)  # recording commits; take the row again, locked
        ended, view = _view(user, row, entry.id, today, now).ended()
        if ended:
            _apply(row, view)
            view = _timer_saved(user, row, now)
    current = _current(view, today)
    if row is not None and current is not view:
        _restart(row, user, today)
        current = _timer_saved(user, row, now)
    return row, current


def _timer_row(user, entry_id):
    statement = db.select(FocusTimer).where(FocusTimer.user_id == user.id, FocusTimer.entry_id == entry_id)
    return db.session.scalar(statement.with_for_update().execution_options(populate_existing=True))


def _view(user, row, entry_id, today, now):
    """The row as a view at `now`; no row is a timer never started: stopped, ready for a focus."""
    work_ms, break_ms = user.focus_work_minutes * 60000, user.focus_break_minutes * 60000
    if row is None:
        return TimerView(
            entry_id, today, CycleKind.WORK, TimerState.STOPPED, work_ms, 0, None, None, 0, work_ms, break_ms, now
        )
    # a stopped timer takes the focus length configured now; a phase under way keeps its own
    planned_ms = work_ms if row.state == TimerState.STOPPED else row.planned_seconds * 1000
    started_at = _aware(row.started_at) if row.started_at is not None else None
    return TimerView(
        row.entry_id,
        row.day,
        row.phase,
        row.state,
        planned_ms,
        row.elapsed_ms,
        started_at,
        row.cycle_id,
        row.pauses,
        work_ms,
        break_ms,
        now,
        row.revision,
    )


def _current(view, today):
    """A timer last changed on another day and left paused (or stopped) is forgotten: today
    starts afresh. A running one carries on past midnight."""
    if view.day == today or view.state == TimerState.RUNNING:
        return view
    return view.stopped(day=today)


def _apply(row, view):
    row.day, row.phase, row.state = view.day, view.phase, view.state
    row.planned_seconds, row.elapsed_ms = view.planned_ms // 1000, view.banked_ms
    row.started_at, row.paused_at, row.cycle_id, row.pauses = view.started_at, None, view.cycle_id, view.pauses


def _restart(row, user, today):
    """The row as a stopped timer ready for a focus of the user's length."""
    row.day, row.phase, row.state = today, CycleKind.WORK, TimerState.STOPPED
    row.planned_seconds = user.focus_work_minutes * 60
    row.elapsed_ms, row.started_at, row.paused_at, row.cycle_id, row.pauses = 0, None, None, None, 0


def _timer_saved(user, row, now):
    if inspect(row).persistent:  # counted in the database, in the order its writes are made
        row.revision = FocusTimer.revision + 1
    db.session.commit()
    announce(user, "focus")
    return _view(user, row, row.entry_id, row.day, now)


def _aware(moment):
    """`moment` (default: now) in UTC; SQLite hands datetimes back without their zone."""
    moment = moment or utcnow()
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _ms(delta):
    return int(delta.total_seconds() * 1000)


# The day view ----------------------------------------------------------------------------------


@dataclass
class DayEntry:
    """One entry of today: what it is, checked or skipped, its steps, its completed cycles and
    its timer."""

    entry: object  # today.EntryView
    steps_done: int
    steps_total: int
    cycles: int  # completed work periods
    focus_minutes: int
    timer: TimerView | None = None  # None: never started

    @property
    def status(self):
        return "DONE" if self.entry.checked else "SKIPPED" if self.entry.skipped else "OPEN"

    def to_dict(self):
        return {
            "entry_id": self.entry.entry_id,
            "name": self.entry.name,
            "item_type": self.entry.item_type,
            "starts_at": routines.clock(self.entry.starts_at),
            "ends_at": routines.clock(self.entry.ends_at),
            "status": self.status,
            "micro_tasks_done": self.steps_done,
            "micro_tasks_total": self.steps_total,
            "completed_cycles": self.cycles,
            "timer": self.timer.to_dict() if self.timer else {"state": TimerState.STOPPED.value},
        }


@dataclass
class DayView:
    day: object
    routine: object  # today.RoutineDay, or None when nothing is scheduled today
    entries: list = field(default_factory=list)

    @property
    def cycles(self):
        return sum(entry.cycles for entry in self.entries)

    @property
    def focus_minutes(self):
        return sum(entry.focus_minutes for entry in self.entries)

    def entry(self, entry_id):
        return next((found for found in self.entries if found.entry.entry_id == str(entry_id)), None)

    def to_dict(self):
        return {
            "day": self.day.isoformat(),
            "routine": self.routine.name if self.routine else None,
            "completed_cycles": self.cycles,
            "entries": [entry.to_dict() for entry in self.entries],
        }


def day_view(user, now=None):
    """Today's entries with their status, steps done of total (a pinned name not yet added today
    counts as a step to do), completed work cycles and timers. Reads only."""
    day = local_today(user, now)[1]
    plan = today_routine(user, day)
    view = DayView(day, plan)
    if plan is None:
        return view
    entry_ids = [uuid.UUID(entry.entry_id) for entry in plan.entries]
    steps = db.session.execute(
        db.select(MicroTask.entry_id, MicroTask.text, MicroTask.done).where(
            MicroTask.user_id == user.id, MicroTask.day == day, MicroTask.entry_id.in_(entry_ids)
        )
    ).all()
    pins = db.session.execute(
        db.select(PinnedStep.entry_id, PinnedStep.name).where(
            PinnedStep.user_id == user.id, PinnedStep.entry_id.in_(entry_ids)
        )
    ).all()
    cycles = db.session.execute(
        db.select(TimerCycle.entry_id, db.func.count(), db.func.sum(TimerCycle.minutes))
        .where(TimerCycle.user_id == user.id, TimerCycle.day == day, TimerCycle.kind == CycleKind.WORK)
        .group_by(TimerCycle.entry_id)
    ).all()
    counted = {entry_id: (count, minutes or 0) for entry_id, count, minutes in cycles}
    timers = timers_of(user, entry_ids, now)
    for entry in plan.entries:
        entry_id = uuid.UUID(entry.entry_id)
        own = [(text, done) for owner, text, done in steps if owner == entry_id]
        present = {_key(text) for text, _done in own}
        waiting = {_key(name) for owner, name in pins if owner == entry_id} - present
        count, minutes = counted.get(entry_id, (0, 0))
        done = sum(1 for _text, done in own if done)
        view.entries.append(DayEntry(entry, done, len(own) + len(waiting), count, minutes, timers.get(entry_id)))
    return view
