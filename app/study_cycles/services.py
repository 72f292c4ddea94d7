"""Study cycles: the week's plan over notebook pages, its queue of blocks, laps and sessions.

One path for every caller. The page's editor and the assistant both send the WHOLE
configuration to `save_cycle` (the assistant fills what the model did not send from
`configuration_of`, so a partial edit keeps the rest); the planner (planner.plan) is run
only when something it reads changed, so blocks edited by hand survive a rename.

Minutes typed in a form must be in steps of 5 (`snap=False` refuses "12" and says so); the
assistant's minutes are snapped to the nearest step (`snap=True`).

Credit: a session's minutes (logged by hand, or one completed Focus work cycle on an entry linked
to a page) go to the running lap of every active cycle holding the page (or a page it sits
inside), filling that subject's blocks in queue order; when the last block fills, the lap
finishes, the next starts and what is left goes on into it. Deleting a session takes its
minutes out of laps still running; a finished lap keeps them, so history never changes.
"""

import itertools
from dataclasses import dataclass, field
from datetime import timedelta

from app.events import announce
from app.extensions import db
from app.focus.models import CycleKind
from app.notebook import services as notebook
from app.routines import services as routines
from app.routines.today import local_today
from app.shared.errors import Invalid, NotFound
from app.shared.fields import UNSET, as_uuid, given
from app.shared.models import utcnow
from app.shared.ownership import owned
from app.shared.values import NUMBER_MAX, clock_from, day_from, whole_number_from
from app.study_cycles import planner
from app.study_cycles.models import (
    CYCLE_NAME_MAX,
    BlockMode,
    SessionSource,
    StudyBlock,
    StudyCredit,
    StudyCycle,
    StudyCycleDay,
    StudyCycleSubject,
    StudyEntryLink,
    StudyLap,
    StudySession,
)

STEP = planner.STEP
DAY_MAX = 24 * 60
WEEK_MAX = 7 * DAY_MAX
LARGEST_BLOCK_MAX = 240
SESSION_MINUTES_MAX = 600
SESSION_DAYS_BACK = 30  # a session may be dated today or up to 30 days before
SESSIONS_LISTED_MAX = 31
WEEKDAYS = {
    name: number
    for number, names in enumerate(
        (
            ("monday", "mon", "segunda", "segunda-feira", "seg"),
            ("tuesday", "tue", "terça", "terca", "terça-feira", "terca-feira", "ter"),
            ("wednesday", "wed", "quarta", "quarta-feira", "qua"),
            ("thursday", "thu", "quinta", "quinta-feira", "qui"),
            ("friday", "fri", "sexta", "sexta-feira", "sex"),
            ("saturday", "sat", "sábado", "sabado", "sáb", "sab"),
            ("sunday", "sun", "domingo", "dom"),
        )
    )
    for name in names
}
"""Weekday names the assistant may send, in English or Portuguese (casefolded), to 0 Monday … 6 Sunday."""


# Finding cycles ----------------------------------------------------------------------------------


def active_cycles(user):
    return _cycles(user, StudyCycle.archived_at.is_(None), order=(StudyCycle.created_at, StudyCycle.id))


def archived_cycles(user):
    return _cycles(user, StudyCycle.archived_at.is_not(None), order=(StudyCycle.archived_at.desc(), StudyCycle.id))


def every_cycle(user):
    return _cycles(user, order=(StudyCycle.created_at, StudyCycle.id))


def _cycles(user, *where, order):
    return db.session.scalars(db.select(StudyCycle).where(StudyCycle.user_id == user.id, *where).order_by(*order)).all()


def get_cycle(user, cycle_id):
    """One of the user's cycles, archived ones included (the pages show their history)."""
    return owned(StudyCycle, cycle_id, user, key="STUDY_CYCLE_NOT_FOUND")


def resolve_cycle(user, ref):
    """An ACTIVE cycle by id or by name in any letter case. Unknown, another user's and archived
    cycles get the same answer, listing the active cycles."""
    active = active_cycles(user)
    cycle_id = as_uuid(ref)
    if cycle_id is not None:
        found = [cycle for cycle in active if cycle.id == cycle_id]
    else:
        wanted = " ".join(str(ref or "").split()).casefold()
        found = [cycle for cycle in active if cycle.name.casefold() == wanted] if wanted else []
    if len(found) > 1:
        raise Invalid("STUDY_CYCLE_AMBIGUOUS", ref=str(ref), candidates=_named(found))
    if not found:
        raise NotFound("STUDY_CYCLE_NOT_ACTIVE", ref=str(ref or ""), cycles=_named(active) or "—")
    return found[0]


def _named(cycles):
    return "; ".join(f"{cycle.name} (id {cycle.id})" for cycle in cycles)


def _active(user, cycle_id):
    cycle = get_cycle(user, cycle_id)
    if cycle.archived:
        raise Invalid("STUDY_CYCLE_ARCHIVED")
    return cycle


# The configuration -------------------------------------------------------------------------------


def configuration_of(cycle):
    """The cycle's whole configuration, in the shape `save_cycle` takes."""
    return {
        "name": cycle.name,
        "days": {day.weekday: {"minutes": day.minutes, "starts_at": day.starts_at} for day in cycle.days},
        "subjects": [
            {"page": str(s.page_id), "importance": s.importance, "mastery": s.mastery, "minutes": s.minutes}
            for s in cycle.subjects
        ],
        "largest_block": cycle.largest_block,
        "default_mode": cycle.default_mode.value,
    }


@dataclass
class Configuration:
    """A checked configuration: every value clean, the subjects' pages resolved."""

    name: str
    days: dict  # weekday -> (minutes, starts_at); rest days left out
    subjects: list  # (page, importance, mastery, hand-set minutes or None)
    largest_block: int | None
    default_mode: BlockMode

    @property
    def week_minutes(self):
        return sum(minutes for minutes, _starts in self.days.values())

    def planner_input(self):
        return (
            self.week_minutes,
            tuple((page.id, importance, mastery, minutes) for page, importance, mastery, minutes in self.subjects),
            self.largest_block,
            self.default_mode,
        )


def check_configuration(user, configuration, snap=False):
    """The configuration cleaned, or one refusal naming every field at fault (its key is the
    problem's own when there is one problem, so the message says exactly what is wrong)."""
    problems = {}
    name = " ".join(str(configuration.get("name") or "").split())
    if not name:
        problems["name"] = "STUDY_CYCLE_NAME_REQUIRED"
    elif len(name) > CYCLE_NAME_MAX:
        problems["name"] = "STUDY_CYCLE_NAME_TOO_LONG"
    days = {}
    for weekday, day in (configuration.get("days") or {}).items():
        minutes = _minutes(day.get("minutes"), snap, problems, f"minutes_{weekday}", maximum=DAY_MAX)
        starts = day.get("starts_at")
        starts_at = None
        if starts not in (None, ""):
            starts_at = clock_from(starts)
            if starts_at is None:
                problems[f"starts_{weekday}"] = "TIME_INVALID"
        if minutes:
            days[weekday] = (minutes, starts_at)
    largest = configuration.get("largest_block")
    largest_block = None
    if largest not in (None, ""):
        largest_block = _minutes(largest, snap, {}, "largest_block")
        if not largest_block or largest_block > LARGEST_BLOCK_MAX:
            problems["largest_block"] = "STUDY_LARGEST_BLOCK_INVALID"
    mode = str(configuration.get("default_mode") or "TIME").strip().upper()
    if mode not in BlockMode.__members__:
        problems["default_mode"] = "STUDY_MODE_INVALID"
    subjects = _subjects(user, configuration.get("subjects") or [], snap, problems)
    if not problems and not days:
        problems["days"] = "STUDY_WEEK_EMPTY"
    checked = Configuration(name, days, subjects, largest_block, BlockMode.__members__.get(mode, BlockMode.TIME))
    if not problems:
        try:
            _plan(checked)
        except planner.PlanImpossible:
            raise Invalid(
                "STUDY_WEEK_TOO_SHORT",
                minutes=checked.week_minutes,
                subjects=len(subjects),
            ) from None
    _refuse(problems)
    return checked


def _refuse(problems):
    """One refusal for every field at fault; its key is the problem's own when there is one kind
    of problem, so the message says exactly what is wrong. (Keys whose message takes parameters
    are raised on their own, never as a field's.)"""
    if not problems:
        return
    keys = set(problems.values())
    raise Invalid(keys.pop() if len(keys) == 1 else "INVALID_INPUT", details=problems)


def _minutes(value, snap, problems, field_name, maximum=None):
    """Whole minutes in steps of 5 (snapped to the nearest step when `snap`); 0 or more."""
    if value in (None, ""):
        return 0
    number = whole_number_from(value, WEEK_MAX)  # no field here holds more than a week
    if number is None and maximum is not None and whole_number_from(value, NUMBER_MAX) is not None:
        problems[field_name] = "STUDY_DAY_TOO_LONG"
        return 0
    if number is None:
        problems[field_name] = "STUDY_MINUTES_STEP"
        return 0
    if snap:
        number = (number + STEP // 2) // STEP * STEP
    elif number % STEP:
        problems[field_name] = "STUDY_MINUTES_STEP"
        return 0
    if maximum is not None and number > maximum:
        problems[field_name] = "STUDY_DAY_TOO_LONG"
    return number


def _scale(value, problems, field_name):
    text = str(value if value is not None else "").strip()
    if isinstance(value, bool) or text not in ("1", "2", "3", "4", "5"):
        problems[field_name] = "SCALE_INVALID"
        return 3
    return int(text)


def _subjects(user, given_subjects, snap, problems):
    """Each subject's page (by id or exact title), weights and hand-set minutes; no page twice and
    no page together with a page inside it."""
    if not given_subjects:
        problems["subjects"] = "STUDY_SUBJECTS_REQUIRED"
        return []
    chosen = []
    for subject in given_subjects:
        page = notebook.resolve_page(user, subject.get("page"))
        suffix = str(page.id)
        importance = _scale(subject.get("importance", 3), problems, f"importance_{suffix}")
        mastery = _scale(subject.get("mastery", 3), problems, f"mastery_{suffix}")
        minutes = _minutes(subject.get("minutes"), snap, problems, f"subject_minutes_{suffix}") or None
        if any(kept.id == page.id for kept, *_rest in chosen):
            raise Invalid("STUDY_SUBJECT_TWICE", page=page.title)
        chosen.append((page, importance, mastery, minutes))
    for outer, *_rest in chosen:
        inside = notebook.pages_inside(user, outer)
        for inner, *_more in chosen:
            if inner.id in inside:
                raise Invalid(
                    "STUDY_SUBJECTS_OVERLAP",
                    inner=inner.title,
                    outer=outer.title,
                )
    return chosen


def _plan(checked):
    subjects = [
        planner.Subject(page.id, importance, mastery, minutes)
        for page, importance, mastery, minutes in checked.subjects
    ]
    return planner.plan(checked.week_minutes, subjects, checked.largest_block, checked.default_mode.value)


# Writing a cycle ---------------------------------------------------------------------------------


def save_cycle(user, cycle_id, configuration, snap=False):
    """Create a cycle (`cycle_id` None) or replace an active one's configuration; the planner
    runs when the week, the subjects, the largest block or the default mode changed."""
    checked = check_configuration(user, configuration, snap)
    if cycle_id is None:
        cycle = StudyCycle(user_id=user.id)
        db.session.add(cycle)
        before = None
    else:
        cycle = _active(user, cycle_id)
        before = _planner_input_of(cycle)
    cycle.name = checked.name
    cycle.largest_block = checked.largest_block
    cycle.default_mode = checked.default_mode
    _write_days(cycle, checked.days)
    by_page = _write_subjects(cycle, checked.subjects)
    if before != checked.planner_input():
        cycle.blocks.clear()
        db.session.flush()
        for block in _plan(checked):
            cycle.blocks.append(
                StudyBlock(
                    number=block.number,
                    subject=by_page[block.subject],
                    minutes=block.minutes,
                    mode=BlockMode(block.mode),
                )
            )
    if not cycle.laps:
        cycle.laps.append(StudyLap(number=1))
    db.session.flush()
    _settle(cycle)
    _saved(user)
    return cycle


def _planner_input_of(cycle):
    """What the planner read when it last ran, compared with `Configuration.planner_input`."""
    return (
        sum(day.minutes for day in cycle.days),
        tuple((s.page_id, s.importance, s.mastery, s.minutes) for s in cycle.subjects),
        cycle.largest_block,
        cycle.default_mode,
    )


def create_cycle(user, configuration, snap=False):
    return save_cycle(user, None, configuration, snap)


def _write_days(cycle, days):
    kept = {day.weekday: day for day in cycle.days}
    for weekday, day in kept.items():
        if weekday not in days:
            cycle.days.remove(day)
    for weekday, (minutes, starts_at) in sorted(days.items()):
        day = kept.get(weekday)
        if day is None:
            cycle.days.append(StudyCycleDay(weekday=weekday, minutes=minutes, starts_at=starts_at))
        else:
            day.minutes, day.starts_at = minutes, starts_at


def _write_subjects(cycle, subjects):
    """Kept pages keep their row (and so their credits); {page id: subject row}."""
    kept = {subject.page_id: subject for subject in cycle.subjects}
    wanted = {page.id for page, *_rest in subjects}
    for page_id, subject in kept.items():
        if page_id not in wanted:
            cycle.subjects.remove(subject)
    rows = {}
    for position, (page, importance, mastery, minutes) in enumerate(subjects):
        row = kept.get(page.id) or StudyCycleSubject(page_id=page.id, page=page)
        row.importance, row.mastery, row.minutes, row.position = importance, mastery, minutes, position
        if row not in cycle.subjects:
            cycle.subjects.append(row)
        rows[page.id] = row
    return rows


def edit_block(user, cycle_id, number, minutes=UNSET, mode=UNSET, concept=UNSET, snap=False):
    """Change one block, named by its number in the queue; what is not given stays. A concept (a
    page inside the subject, or "NEXT") makes the block GOAL; TIME with a concept is refused."""
    cycle = _active(user, cycle_id)
    block = next((block for block in cycle.blocks if str(block.number) == str(number).strip()), None)
    if block is None:
        raise Invalid("STUDY_BLOCK_NOT_FOUND", last=len(cycle.blocks))
    problems = {}
    changes = {}
    if given(minutes):
        largest = cycle.largest_block or planner.DEFAULT_LARGEST_BLOCK
        changes["minutes"] = _minutes(minutes, snap, problems, "minutes")
        if "minutes" not in problems and not STEP <= changes["minutes"] <= largest:
            raise Invalid("STUDY_BLOCK_OVER_LARGEST", largest=largest)
    wanted_mode = None
    if given(mode) and mode not in (None, ""):
        wanted_mode = BlockMode.__members__.get(str(mode).strip().upper())
        if wanted_mode is None:
            problems["mode"] = "STUDY_MODE_INVALID"
    _refuse(problems)
    has_concept = given(concept) and concept not in (None, "")
    if has_concept and wanted_mode == BlockMode.TIME:
        raise Invalid("STUDY_BLOCK_MODE_CONTRADICTION", details={"concept": "STUDY_BLOCK_MODE_CONTRADICTION"})
    if has_concept:
        changes["mode"] = BlockMode.GOAL
        changes["concept_page_id"] = _concept(user, block, concept)
    elif wanted_mode is not None:
        changes["mode"] = wanted_mode
        if wanted_mode == BlockMode.TIME:
            changes["concept_page_id"] = None
    for name, value in changes.items():
        setattr(block, name, value)
    db.session.flush()
    _settle(cycle)
    _saved(user)
    return block


def _concept(user, block, concept):
    """The concept page's id (a page inside the block's subject), or None for NEXT."""
    if str(concept).strip().upper() == planner.NEXT:
        return None
    page = notebook.resolve_page(user, concept)
    subject_page = block.subject.page
    if page.id not in notebook.pages_inside(user, subject_page):
        raise Invalid(
            "STUDY_CONCEPT_OUTSIDE_SUBJECT",
            concept=page.title,
            subject=subject_page.title,
        )
    return page.id


def archive_cycle(user, cycle_id):
    """Stop planning; the laps and their credits stay as history."""
    cycle = get_cycle(user, cycle_id)
    if not cycle.archived:
        cycle.archived_at = utcnow()
        _saved(user)
    return cycle


def delete_cycle(user, cycle_id):
    """Delete the cycle with its blocks, laps and credits; the sessions stay (they are study done)."""
    cycle = get_cycle(user, cycle_id)
    db.session.delete(cycle)
    _saved(user)


def _saved(user):
    db.session.commit()
    announce(user, "study_cycles")


# Laps --------------------------------------------------------------------------------------------


@dataclass
class BlockProgress:
    block: StudyBlock
    done: int  # minutes credited to it in the lap

    @property
    def left(self):
        return max(self.block.minutes - self.done, 0)

    @property
    def finished(self):
        return self.left == 0


@dataclass
class Lap:
    """A lap and how far its queue is filled."""

    lap: StudyLap
    blocks: list = field(default_factory=list)  # BlockProgress, in queue order

    @property
    def done(self):
        return sum(progress.done for progress in self.blocks)

    @property
    def total(self):
        return sum(progress.block.minutes for progress in self.blocks)

    @property
    def finished(self):
        return bool(self.blocks) and all(progress.finished for progress in self.blocks)

    @property
    def current(self):
        """The first block not yet full, or None."""
        return next((progress for progress in self.blocks if not progress.finished), None)

    @property
    def percent(self):
        return round(100 * self.done / self.total) if self.total else 0

    @property
    def runs(self):
        """The queue as a student reads it: blocks in a row alike (same subject, minutes, mode and
        concept) go together, so fourteen half hours of one subject are one line, not fourteen."""
        runs = []
        for progress in self.blocks:
            if runs and runs[-1].takes(progress.block):
                runs[-1].blocks.append(progress)
            else:
                runs.append(Run([progress]))
        return runs


@dataclass
class Run:
    """Blocks side by side in the queue that are alike: BlockProgress, in queue order."""

    blocks: list

    @property
    def first(self):
        return self.blocks[0].block

    def takes(self, block):
        first = self.first
        return (block.subject_id, block.minutes, block.mode, block.concept_page_id) == (
            first.subject_id, first.minutes, first.mode, first.concept_page_id
        )  # fmt: skip

    @property
    def finished(self):
        """How many of its blocks are full."""
        return sum(1 for progress in self.blocks if progress.finished)


def running_lap(cycle):
    return next((lap for lap in cycle.laps if lap.finished_at is None), None)


def lap_progress(cycle, lap=None):
    """The lap (default the running one) with its credits spread over each subject's blocks in
    queue order."""
    lap = lap or running_lap(cycle) or cycle.laps[-1]
    credited = {}
    for credit in lap.credits:
        credited[credit.subject_id] = credited.get(credit.subject_id, 0) + credit.minutes
    progress = Lap(lap)
    for block in cycle.blocks:
        done = min(block.minutes, credited.get(block.subject_id, 0))
        credited[block.subject_id] = credited.get(block.subject_id, 0) - done
        progress.blocks.append(BlockProgress(block, done))
    return progress


def _room(cycle, lap, subject_id):
    share = sum(block.minutes for block in cycle.blocks if block.subject_id == subject_id)
    credited = sum(credit.minutes for credit in lap.credits if credit.subject_id == subject_id)
    return max(share - credited, 0)


def _settle(cycle):
    """A running lap whose every block is full finishes, and the next one starts."""
    lap = running_lap(cycle)
    if lap is not None and cycle.blocks and lap_progress(cycle, lap).finished:
        lap.finished_at = utcnow()
        next_lap = StudyLap(number=lap.number + 1)
        cycle.laps.append(next_lap)
        db.session.flush()
        return next_lap
    return lap


def _credit(user, session):
    """Credit the session's minutes to each active cycle holding its page (see the module's doc)."""
    for cycle in active_cycles(user):
        subject = _subject_for(user, cycle, session.page_id)
        if subject is None or not cycle.blocks:
            continue
        left = session.minutes
        lap = running_lap(cycle)
        while left > 0 and lap is not None:
            taken = min(_room(cycle, lap, subject.id), left)
            if taken == 0:
                break
            lap.credits.append(
                StudyCredit(subject_id=subject.id, session_id=session.id, day=session.day, minutes=taken)
            )
            db.session.flush()
            left -= taken
            settled = _settle(cycle)
            if settled is lap:
                break
            lap = settled


def _subject_for(user, cycle, page_id):
    for subject in cycle.subjects:
        if subject.page_id == page_id or page_id in notebook.pages_inside(user, subject.page):
            return subject
    return None


def _cycles_holding(user, page):
    return [cycle for cycle in active_cycles(user) if _subject_for(user, cycle, page.id) is not None]


# Sessions ----------------------------------------------------------------------------------------


def log_session(user, page_ref, minutes, day=None, now=None):
    """Study done away from the timer, on a page that is (or sits inside) a subject of an active
    cycle; dated today unless a day of the last 30 is given. Its minutes count at once."""
    page = notebook.resolve_page(user, page_ref)
    today = local_today(user, now)[1]
    problems = {}
    length = whole_number_from(minutes, SESSION_MINUTES_MAX)
    if not length:
        problems["minutes"] = "STUDY_SESSION_MINUTES_INVALID"
    studied_on = today
    if day not in (None, ""):
        studied_on = day_from(day)
        if studied_on is None:
            problems["day"] = "DATE_INVALID"
        elif studied_on > today:
            problems["day"] = "STUDY_SESSION_IN_FUTURE"
        elif studied_on < today - timedelta(days=SESSION_DAYS_BACK):
            problems["day"] = "STUDY_SESSION_TOO_OLD"
    _refuse(problems)
    if not _cycles_holding(user, page):
        raise Invalid("STUDY_SESSION_NO_CYCLE", page=page.title)
    session = StudySession(
        user_id=user.id, page_id=page.id, day=studied_on, minutes=length, source=SessionSource.MANUAL
    )
    db.session.add(session)
    db.session.flush()
    _credit(user, session)
    _saved(user)
    return session


def delete_session(user, session_id):
    """Delete a session logged by hand: its minutes leave laps still running; a finished lap keeps
    them. A session made by the Focus timer is not deletable (it records a cycle someone lived)."""
    session = get_session(user, session_id)
    credits = db.session.scalars(db.select(StudyCredit).where(StudyCredit.session_id == session.id)).all()
    for credit in credits:
        lap = db.session.get(StudyLap, credit.lap_id)
        if lap.finished_at is None:
            db.session.delete(credit)
        else:
            credit.session_id = None
    db.session.delete(session)
    _saved(user)


def get_session(user, session_id):
    session = owned(StudySession, session_id, user, key="STUDY_SESSION_NOT_FOUND")
    if session.source != SessionSource.MANUAL:
        raise NotFound("STUDY_SESSION_NOT_FOUND")
    return session


def sessions(user, days=7, now=None, source=SessionSource.MANUAL):
    """The sessions of the last `days` days (today included, 1–31), newest first."""
    count = whole_number_from(days, SESSIONS_LISTED_MAX)
    if not count:
        raise Invalid("STUDY_SESSIONS_DAYS_INVALID", details={"days": "STUDY_SESSIONS_DAYS_INVALID"})
    today = local_today(user, now)[1]
    where = [StudySession.user_id == user.id, StudySession.day > today - timedelta(days=count)]
    if source is not None:
        where.append(StudySession.source == source)
    return db.session.scalars(
        db.select(StudySession).where(*where).order_by(StudySession.day.desc(), StudySession.created_at.desc())
    ).all()


def every_session(user):
    return db.session.scalars(
        db.select(StudySession).where(StudySession.user_id == user.id).order_by(StudySession.day, StudySession.id)
    ).all()


def session_data(session):
    return {
        "id": str(session.id),
        "page": notebook.page_data(session.page),
        "day": session.day.isoformat(),
        "minutes": session.minutes,
        "source": session.source.value,
    }


# The Focus timer -------------------------------------------------------------------------------


def page_for_entry(user, entry_id):
    """The page a routine entry is studied for, or None."""
    link = _link(user, entry_id)
    return link.page if link else None


def link_entry(user, entry_id, page_ref):
    """Study this page in the entry's Focus timer (`page_ref` empty: study nothing)."""
    entry = routines.get_entry(user, entry_id)
    link = _link(user, entry.id)
    if page_ref in (None, ""):
        if link is not None:
            db.session.delete(link)
        _saved(user)
        return None
    page = notebook.resolve_page(user, page_ref)
    if link is None:
        link = StudyEntryLink(user_id=user.id, entry_id=entry.id)
        db.session.add(link)
    link.page_id = page.id
    link.page = page
    _saved(user)
    return page


def _link(user, entry_id):
    entry_uuid = as_uuid(entry_id)
    if entry_uuid is None:
        return None
    return db.session.scalar(
        db.select(StudyEntryLink).where(StudyEntryLink.user_id == user.id, StudyEntryLink.entry_id == entry_uuid)
    )


def entry_links(user):
    return db.session.scalars(
        db.select(StudyEntryLink).where(StudyEntryLink.user_id == user.id).order_by(StudyEntryLink.created_at)
    ).all()


def credit_timer_cycle(user, cycle):
    """A completed Focus work cycle on an entry linked to a page becomes a session of that page
    (once per timer cycle) and credits the cycles holding it. Called by focus.record_cycle."""
    if cycle.kind != CycleKind.WORK or cycle.entry_id is None:
        return None
    link = _link(user, cycle.entry_id)
    if link is None:
        return None
    session = StudySession(
        user_id=user.id,
        page_id=link.page_id,
        day=cycle.day,
        minutes=cycle.minutes,
        source=SessionSource.TIMER,
        timer_cycle_id=cycle.id,
    )
    db.session.add(session)
    db.session.flush()
    _credit(user, session)
    _saved(user)
    return session


# Today -----------------------------------------------------------------------------------------


@dataclass
class TodaySlice:
    """One active cycle's part of today: the day's minutes, what was studied today, and the
    blocks (from the first open one on) that fill what is left."""

    cycle: StudyCycle
    day: object
    minutes: int
    starts_at: object
    studied: int
    blocks: list = field(default_factory=list)  # (block, minutes for today)

    @property
    def left(self):
        return max(self.minutes - self.studied, 0)

    def to_dict(self):
        return {
            "cycleId": str(self.cycle.id),
            "name": self.cycle.name,
            "day": self.day.isoformat(),
            "minutes": self.minutes,
            "startsAt": routines.clock(self.starts_at),
            "studied": self.studied,
            "left": self.left,
            "blocks": [{**block_data(block), "minutesToday": minutes} for block, minutes in self.blocks],
        }


def today(user, now=None):
    """Each active cycle's slice of today (a rest day has 0 minutes and no blocks)."""
    day = local_today(user, now)[1]
    return [_slice(cycle, day) for cycle in active_cycles(user)]


def _slice(cycle, day):
    planned = next((row for row in cycle.days if row.weekday == day.weekday()), None)
    lap_ids = [lap.id for lap in cycle.laps]
    studied = (
        db.session.scalar(
            db.select(db.func.coalesce(db.func.sum(StudyCredit.minutes), 0)).where(
                StudyCredit.lap_id.in_(lap_ids), StudyCredit.day == day
            )
        )
        if lap_ids
        else 0
    )
    found = TodaySlice(cycle, day, planned.minutes if planned else 0, planned.starts_at if planned else None, studied)
    wanted = found.left
    open_blocks = ((progress.block, progress.left) for progress in lap_progress(cycle).blocks if progress.left)
    next_laps = itertools.cycle([(block, block.minutes) for block in cycle.blocks])
    for block, left in itertools.chain(open_blocks, next_laps):
        if wanted <= 0:
            break
        taken = min(left, wanted)
        found.blocks.append((block, taken))
        wanted -= taken
    return found


def widget(user):
    """The dashboard's "Study today" widget: each active cycle's slice of today."""
    return {"slices": today(user)}


def plan_for_today(user, now=None):
    """What the notebook's getStudyPlanForToday answers: each active cycle's slice of today."""
    return [found.to_dict() for found in today(user, now)]


# Reading a cycle -------------------------------------------------------------------------------


def block_data(block):
    concept = None
    if block.mode == BlockMode.GOAL:
        concept = notebook.page_data(block.concept_page) if block.concept_page else planner.NEXT
    return {
        "number": block.number,
        "subject": notebook.page_data(block.subject.page),
        "minutes": block.minutes,
        "mode": block.mode.value,
        "concept": concept,
    }


def lap_data(cycle):
    progress = lap_progress(cycle)
    current = progress.current
    return {
        "number": progress.lap.number,
        "done": progress.done,
        "total": progress.total,
        "currentBlock": current.block.number if current else None,
        "blocksDone": sum(1 for found in progress.blocks if found.finished),
        "blocks": len(progress.blocks),
    }


def cycle_summary(cycle):
    return {"id": str(cycle.id), "name": cycle.name, "lap": lap_data(cycle)}


def cycle_data(cycle):
    """A whole cycle: the week, the subjects with their weights, each block with its number and
    how full it is in the running lap."""
    progress = lap_progress(cycle)
    return {
        "id": str(cycle.id),
        "name": cycle.name,
        "archived": cycle.archived,
        "week": [
            {"weekday": day.weekday, "minutes": day.minutes, "startsAt": routines.clock(day.starts_at)}
            for day in cycle.days
        ],
        "subjects": [
            {
                "page": notebook.page_data(subject.page),
                "importance": subject.importance,
                "mastery": subject.mastery,
                "minutesSetByHand": subject.minutes,
            }
            for subject in cycle.subjects
        ],
        "largestBlock": cycle.largest_block,
        "defaultMode": cycle.default_mode.value,
        "lap": lap_data(cycle),
        "blocks": [{**block_data(found.block), "done": found.done} for found in progress.blocks],
    }


def weekday_from(value):
    """0 Monday … 6 Sunday from a number or a weekday's name in English or Portuguese, any case."""
    text = str(value if value is not None else "").strip().casefold()
    if text in ("0", "1", "2", "3", "4", "5", "6"):
        return int(text)
    return WEEKDAYS.get(text)
