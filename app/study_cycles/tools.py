"""The eleven study cycle tools. They translate what the model names — a cycle by name or id
(active cycles only), weekdays in any case or in Portuguese, pages by id or exact title — into
the requests the pages send, and call the same service (app/study_cycles/services.py): the same
planner, the same rule of non-overlapping subjects, the same credit path.

A partial edit is filled in from the cycle as it stands, because the service takes the whole
configuration. No tool writes, lists or deletes a Focus timer cycle: those record time someone
actually spent, and only the browser reports them.
"""

from datetime import date
from typing import Literal

from flask_babel import format_date
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from pydantic import BaseModel, Field

from app.agent.registry import Proposal, pinned, tool
from app.notebook import services as notebook
from app.shared.errors import Invalid
from app.shared.fields import UNSET
from app.study_cycles import services as study_cycles

PAGE = "/notebook/cycles"
CYCLE_REF = "The cycle's name (any letter case) or id; only active cycles answer (listStudyCycles)."
PAGE_REF = "A notebook page's id or exact title."


class StudyDay(BaseModel):
    day: str = Field(description="A weekday: Monday…Sunday, any letter case, or in Portuguese (segunda…domingo).")
    minutes: int | None = Field(None, ge=0, le=1440, description="Study minutes that day (snapped to steps of 5).")
    starts_at: str | None = Field(None, description='Optional start time HH:MM; "none" removes it.')


class StudySubjectNew(BaseModel):
    page: str = Field(description=PAGE_REF)
    importance: int = Field(3, ge=1, le=5, description="1–5: how much the subject matters.")
    mastery: int = Field(3, ge=1, le=5, description="1–5: how well the person already knows it.")
    minutes: int | None = Field(None, ge=5, description="Optional weekly minutes set by hand; left out: by weight.")


class StudySubjectEdit(BaseModel):
    page: str = Field(description=PAGE_REF)
    importance: int | None = Field(None, ge=1, le=5, description="Left out: kept (3 for a new subject).")
    mastery: int | None = Field(None, ge=1, le=5, description="Left out: kept (3 for a new subject).")
    minutes: int | None = Field(None, ge=5, description="Weekly minutes set by hand; left out: kept.")


class StudyCycleNew(BaseModel):
    name: str = Field(description="The cycle's name.")
    days: list[StudyDay] = Field(description="The study days; a day left out is rest.")
    subjects: list[StudySubjectNew] = Field(
        description="The notebook pages to study; never a page together with a page inside it."
    )
    largest_block: int | None = Field(None, ge=5, le=240, description="Optional: no block longer than this.")
    default_mode: Literal["TIME", "GOAL"] | None = Field(
        None, description="TIME: study N minutes; GOAL: reach the subject's next concept. Default TIME."
    )


class StudyCycleEdit(BaseModel):
    cycle: str = Field(description=CYCLE_REF)
    name: str | None = None
    days: list[StudyDay] | None = Field(None, description="Only these days change; the others stay.")
    subjects: list[StudySubjectEdit] | None = Field(
        None, description="The WHOLE new list; a kept subject keeps its weights and minutes unless new ones are sent."
    )
    largest_block: int | None = Field(None, ge=5, le=240)
    default_mode: Literal["TIME", "GOAL"] | None = None


class StudyBlockEdit(BaseModel):
    cycle: str = Field(description=CYCLE_REF)
    number: int = Field(description="The block's number in the queue (getStudyCycle).")
    minutes: int | None = Field(None, ge=1, description="Snapped to steps of 5; at most the largest block.")
    mode: Literal["TIME", "GOAL"] | None = None
    concept: str | None = Field(
        None, description='GOAL only: a page inside the subject (id or exact title), or "NEXT" for the board\'s next.'
    )


class CycleRef(BaseModel):
    cycle: str = Field(description=CYCLE_REF)


class StudySessionNew(BaseModel):
    page: str = Field(description=PAGE_REF + " It must be (or sit inside) a subject of an active cycle.")
    minutes: int = Field(ge=1, le=600, description="Minutes studied.")
    day: date | None = Field(None, description="YYYY-MM-DD within the last 30 days; leave out for today.")


class StudySessionRef(BaseModel):
    session_id: str = Field(description="The session's id (listStudySessions).")


class SessionDays(BaseModel):
    days: int = Field(7, ge=1, le=31, description="How many days back, today included.")


# The translation: what the model names → what the pages send -----------------------------------


def _weekday(name):
    weekday = study_cycles.weekday_from(name)
    if weekday is None:
        raise Invalid("WEEKDAY_INVALID", details={"days": "WEEKDAY_INVALID"})
    return weekday


def _days(sent, current=None):
    """The week: `current` with only the days sent replaced; a day sent without minutes or start
    keeps what it had, and "none" removes the start."""
    days = {weekday: dict(day) for weekday, day in (current or {}).items()}
    for sent_day in sent:
        weekday = _weekday(sent_day.day)
        day = days.setdefault(weekday, {"minutes": 0, "starts_at": None})
        if sent_day.minutes is not None:
            day["minutes"] = sent_day.minutes
        if sent_day.starts_at is not None:
            day["starts_at"] = None if sent_day.starts_at.strip().lower() == "none" else sent_day.starts_at
    return days


def _subjects(user, sent, current):
    kept = {subject["page"]: subject for subject in current}
    subjects = []
    for subject in sent:
        page = notebook.resolve_page(user, subject.page)
        before = kept.get(str(page.id), {"importance": 3, "mastery": 3, "minutes": None})
        subjects.append(
            {
                "page": str(page.id),
                "importance": subject.importance if subject.importance is not None else before["importance"],
                "mastery": subject.mastery if subject.mastery is not None else before["mastery"],
                "minutes": subject.minutes if subject.minutes is not None else before["minutes"],
            }
        )
    return subjects


def _saved(cycle):
    return study_cycles.cycle_data(cycle)


# Reads -----------------------------------------------------------------------------------------


@tool(domain="study_cycles", kind="read", label=_l("Read today's study"))
def getStudyToday(ctx, args):
    """Today's slice of each active study cycle: the day's minutes, what was already studied today,
    and the blocks (number, subject, minutes for today, mode, concept) that fill the rest."""
    return {"today": study_cycles.plan_for_today(ctx.user)}


@tool(domain="study_cycles", kind="read", label=_l("Read your study cycles"))
def listStudyCycles(ctx, args):
    """The active study cycles, each with its running lap: minutes done of the lap's total and the
    number of the current block."""
    return {"cycles": [study_cycles.cycle_summary(cycle) for cycle in study_cycles.active_cycles(ctx.user)]}


@tool(domain="study_cycles", kind="read", label=_l("Read a study cycle"), args=CycleRef)
def getStudyCycle(ctx, args):
    """A whole active cycle: the week, the subjects with their weights, and each block with its
    number, minutes, mode, concept and how full it is in the running lap. Read it before editing."""
    return _saved(study_cycles.resolve_cycle(ctx.user, args.cycle))


@tool(domain="study_cycles", kind="read", label=_l("Read your study sessions"), args=SessionDays)
def listStudySessions(ctx, args):
    """The study sessions logged by hand in the last N days (1–31, default 7), newest first, with
    their ids. Focus timer cycles are not listed."""
    return {"sessions": [study_cycles.session_data(session) for session in study_cycles.sessions(ctx.user, args.days)]}


# Writes ----------------------------------------------------------------------------------------


@tool(domain="study_cycles", kind="write", label=_l("Created a study cycle"), page=PAGE, args=StudyCycleNew)
def createStudyCycle(ctx, args):
    """Create a study cycle over notebook pages and plan its queue of blocks, as the page's editor
    does. Confirm the subjects and the week with the person first. Minutes snap to steps of 5.
    Returns the new cycle with its id and blocks."""
    configuration = {
        "name": args.name,
        "days": _days(args.days),
        "subjects": _subjects(ctx.user, args.subjects, []),
        "largest_block": args.largest_block,
        "default_mode": args.default_mode or "TIME",
    }
    return _saved(study_cycles.create_cycle(ctx.user, configuration, snap=True))


@tool(domain="study_cycles", kind="write", label=_l("Changed a study cycle"), page=PAGE, args=StudyCycleEdit,
      follows_a_read=True)  # fmt: skip
def editStudyCycle(ctx, args):
    """Change an active cycle: only what is sent changes (read it with getStudyCycle first). Days
    sent replace only those days; subjects, when sent, are the whole new list. The queue is planned
    again when the week, the subjects, the largest block or the default mode change."""
    cycle = study_cycles.resolve_cycle(ctx.user, args.cycle)
    configuration = study_cycles.configuration_of(cycle)
    if args.name is not None:
        configuration["name"] = args.name
    if args.days is not None:
        configuration["days"] = _days(args.days, configuration["days"])
    if args.subjects is not None:
        configuration["subjects"] = _subjects(ctx.user, args.subjects, configuration["subjects"])
    if args.largest_block is not None:
        configuration["largest_block"] = args.largest_block
    if args.default_mode is not None:
        configuration["default_mode"] = args.default_mode
    return _saved(study_cycles.save_cycle(ctx.user, cycle.id, configuration, snap=True))


@tool(domain="study_cycles", kind="write", label=_l("Changed a study block"), page=PAGE, args=StudyBlockEdit,
      follows_a_read=True)  # fmt: skip
def editStudyBlock(ctx, args):
    """Change one block of an active cycle, named by its number (getStudyCycle); only the fields
    sent change. A concept makes the block GOAL; TIME together with a concept is refused."""
    cycle = study_cycles.resolve_cycle(ctx.user, args.cycle)
    block = study_cycles.edit_block(
        ctx.user,
        cycle.id,
        args.number,
        minutes=args.minutes if args.minutes is not None else UNSET,
        mode=args.mode if args.mode is not None else UNSET,
        concept=args.concept if args.concept is not None else UNSET,
        snap=True,
    )
    return study_cycles.block_data(block)


@tool(domain="study_cycles", kind="write", label=_l("Archived a study cycle"), page=PAGE, args=CycleRef)
def archiveStudyCycle(ctx, args):
    """Archive an active cycle: it stops planning and its laps stay as history."""
    cycle = study_cycles.archive_cycle(ctx.user, study_cycles.resolve_cycle(ctx.user, args.cycle).id)
    return {"archived": {"id": str(cycle.id), "name": cycle.name}}


def _cycle_deletion(ctx, args):
    """The active cycle, by name, that goes for good."""
    cycle = study_cycles.resolve_cycle(ctx.user, args.cycle)
    summary = _("Delete the study cycle “%(name)s” with its blocks and laps, for good (its sessions stay)",
                name=cycle.name)  # fmt: skip
    return Proposal(summary, pinned(args, cycle=cycle.id), {"id": str(cycle.id), "name": cycle.name})


@tool(domain="study_cycles", kind="write", label=_l("Deleted a study cycle"), page=PAGE, args=CycleRef,
      confirm=_cycle_deletion)  # fmt: skip
def deleteStudyCycle(ctx, args):
    """Delete an active cycle with its blocks and laps, for good. Offer archiving instead when the
    person might want its history."""
    cycle = study_cycles.resolve_cycle(ctx.user, args.cycle)
    deleted = {"id": str(cycle.id), "name": cycle.name}
    study_cycles.delete_cycle(ctx.user, cycle.id)
    return {"deleted": deleted}


@tool(domain="study_cycles", kind="write", label=_l("Logged a study session"), page=PAGE, args=StudySessionNew)
def logStudySession(ctx, args):
    """Log study the person says they did away from the timer, on a notebook page, today or on a
    day of the last 30 they name; the minutes count at once in the page's cycle. Returns the new
    session's id. A wrong session is corrected by deleting it and logging it again."""
    return study_cycles.session_data(study_cycles.log_session(ctx.user, args.page, args.minutes, day=args.day))


def _session_deletion(ctx, args):
    """The logged session: its minutes, page and day."""
    session = study_cycles.get_session(ctx.user, args.session_id)
    summary = _("Delete the %(minutes)s minutes of study logged on “%(page)s” on %(day)s", minutes=session.minutes,
                page=session.page.title, day=format_date(session.day, "medium"))  # fmt: skip
    return Proposal(summary, pinned(args), {"id": str(session.id), "minutes": session.minutes})


@tool(domain="study_cycles", kind="write", label=_l("Deleted a study session"), page=PAGE, args=StudySessionRef,
      confirm=_session_deletion)  # fmt: skip
def deleteStudySession(ctx, args):
    """Delete a session the person logged by hand (listStudySessions gives the ids); its minutes
    come off the lap when that lap is still running."""
    study_cycles.delete_session(ctx.user, args.session_id)
    return {"deleted": args.session_id}
