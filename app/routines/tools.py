"""Tools for routines (timed and list), schedules, and today's check and skip.

Everything that acts on a routine ENTRY takes the entry's own id, read from getUserRoutines or
getTodayRoutine — never the habit's or task's id (the service refuses that with the right id).
"""

from datetime import date

from flask_babel import format_date, format_number
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from pydantic import BaseModel, Field

from app.agent.registry import Proposal, pinned, tool
from app.routines import schedules, today
from app.routines import services as routines
from app.routines.models.routines import RoutineKind

ROUTINE_REF = "Its id or exact name."
HHMM = "HH:mm"


class RoutineRef(BaseModel):
    routine: str = Field(description=ROUTINE_REF)


class EntryNew(BaseModel):
    habit_id: str | None = Field(None, description="Id or exact name; or send task_id.")
    task_id: str | None = Field(None, description="Id or exact name.")
    starts_at: str | None = Field(None, description=HHMM)
    ends_at: str | None = Field(None, description=HHMM)


class EntryKept(EntryNew):
    id: str | None = Field(None, description="The id of an entry to keep.")


class SectionNew(BaseModel):
    name: str
    icon: str | None = None
    starts_at: str = Field(description=HHMM)
    ends_at: str | None = Field(None, description=HHMM + "; before the start: runs past midnight.")
    entries: list[EntryNew] = Field(default_factory=list)


class SectionKept(SectionNew):
    id: str | None = Field(None, description="The id of a section to keep.")
    entries: list[EntryKept] = Field(default_factory=list)


class ListItemNew(BaseModel):
    habit_id: str | None = None
    task_id: str | None = None


class ListItemKept(ListItemNew):
    id: str | None = Field(None, description="The id of an entry to keep.")


NEW_DAYS = Field(default_factory=list, description="Weekdays it runs from now (as in createUserSchedule).")


class TimedRoutineNew(BaseModel):
    name: str
    icon: str | None = None
    sections: list[SectionNew] = Field(min_length=1)
    weekdays: list[str] = NEW_DAYS


class TimedRoutineReplace(RoutineRef):
    name: str
    icon: str | None = None
    sections: list[SectionKept] = Field(min_length=1)


class ListRoutineNew(BaseModel):
    name: str
    icon: str | None = None
    items: list[ListItemNew] = Field(default_factory=list, description="Habits and tasks in order.")
    weekdays: list[str] = NEW_DAYS


class ListRoutineReplace(RoutineRef):
    name: str
    icon: str | None = None
    items: list[ListItemKept]


class Rename(RoutineRef):
    name: str
    icon: str | None = None


class SectionEdit(RoutineRef):
    section_id: str
    name: str | None = None
    icon: str | None = None
    starts_at: str | None = Field(None, description=HHMM)
    ends_at: str | None = Field(None, description=HHMM + "; null: open-ended.")


class AddHabit(RoutineRef):
    habit: str = Field(description="Id or exact name.")
    section_id: str | None = Field(None, description="For a timed routine; omit for a list routine.")
    starts_at: str | None = None
    ends_at: str | None = None


class AddTask(RoutineRef):
    task: str = Field(description="Id or exact name.")
    section_id: str | None = None
    starts_at: str | None = None
    ends_at: str | None = None


class EntryRef(BaseModel):
    entry_id: str = Field(description="The ENTRY id, never a habit id.")


class Weekdays(RoutineRef):
    weekdays: list[str] = Field(min_length=1, description="Monday…Sunday, or 0 (Monday) to 6.")


class Check(EntryRef):
    day: date | None = Field(None, description="Omit for today; a past date checks late (less XP).")


class Skip(EntryRef):
    skip: bool = Field(True, description="False undoes a skip.")
    day: date | None = Field(None, description="Omit for today; never a future date.")


def _described(routine):
    return {"routine": routines.describe(routine)}


def _created(change):
    """A new routine, and the days that moved to it from another routine (tell the person)."""
    return {"routine": routines.describe(change.routine), "moved": change.to_dict()["moved"]}


# Reading --------------------------------------------------------------------------------------


@tool(domain="routines", kind="read", label=_l("Read your routines"))
def getUserRoutines(ctx, args):
    """Every routine: sections, entries (each with its own ENTRY id beside the habit or task id)
    and weekdays."""
    return {"routines": [routines.describe(routine) for routine in routines.listing(ctx.user)]}


@tool(domain="routines", kind="read", label=_l("Read today's routine"))
def getTodayRoutine(ctx, args):
    """Today's routine (the person's time zone): each entry's ENTRY id, checked or skipped. Null
    when nothing is scheduled."""
    view = today.today_routine(ctx.user)
    return {"today": view.to_dict() if view else None}


@tool(domain="routines", kind="read", label=_l("Read your schedule"))
def getUserSchedules(ctx, args):
    """Which routine runs on which weekday (one routine per weekday at most)."""
    week = schedules.week(ctx.user)
    names = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
    return {
        "week": [
            {"weekday": names[day], "routine": {"id": str(r.id), "name": r.name} if (r := week.get(day)) else None}
            for day in range(7)
        ]
    }


# Building -------------------------------------------------------------------------------------


@tool(kind="write", label=_l("Created a routine"), domain="routines", page="/routines", args=TimedRoutineNew)
def createUserRoutine(ctx, args):
    """Create a timed routine: sections with an HH:mm window holding entries of EXISTING habits
    or tasks (create missing ones first). Returns every new id."""
    sections = [section.model_dump() for section in args.sections]
    return _created(
        schedules.create_scheduled(ctx.user, RoutineKind.TIMED, args.name, args.icon, sections, args.weekdays)
    )


@tool(kind="write", label=_l("Created a list routine"), domain="routines", page="/routines", args=ListRoutineNew)
def createListRoutine(ctx, args):
    """Create a list routine: an ordered checklist of EXISTING habits and tasks, no times."""
    items = [item.model_dump() for item in args.items]
    return _created(schedules.create_scheduled(ctx.user, RoutineKind.LIST, args.name, args.icon, items, args.weekdays))


@tool(kind="write", label=_l("Renamed a routine"), domain="routines", page="/routines", args=Rename)
def renameUserRoutine(ctx, args):
    """Rename a routine (and change its icon if given)."""
    return _described(routines.rename(ctx.user, args.routine, args.name, args.icon))


@tool(kind="write", label=_l("Changed a routine section"), domain="routines", page="/routines", args=SectionEdit)
def editRoutineSection(ctx, args):
    """Change a section's name, icon or window (unsent fields stay); its entries must fit the
    new window."""
    changes = args.model_dump(exclude_unset=True, exclude={"routine", "section_id"})
    return _described(routines.edit_section(ctx.user, args.routine, args.section_id, **changes))


@tool(kind="write", label=_l("Added a habit to a routine"), domain="routines", page="/routines", args=AddHabit)
def addHabitToRoutineSection(ctx, args):
    """Add an EXISTING habit to a timed routine's section, or to a list routine."""
    routine = routines.add_entry(ctx.user, args.routine, habit_id=args.habit, section_id=args.section_id,
                                 starts_at=args.starts_at, ends_at=args.ends_at)  # fmt: skip
    return _described(routine)


@tool(kind="write", label=_l("Added a task to a routine"), domain="routines", page="/routines", args=AddTask)
def addTaskToRoutineSection(ctx, args):
    """Add an EXISTING task to a timed routine's section, or to a list routine."""
    routine = routines.add_entry(ctx.user, args.routine, task_id=args.task, section_id=args.section_id,
                                 starts_at=args.starts_at, ends_at=args.ends_at)  # fmt: skip
    return _described(routine)


def _entry_removal(ctx, args):
    """The entry and the routine it leaves."""
    entry = routines.get_entry(ctx.user, args.entry_id)
    summary = _("Remove “%(item)s” from the routine “%(routine)s” (the item itself and past days stay)",
                item=entry.item.name, routine=entry.routine.name)  # fmt: skip
    return Proposal(summary, pinned(args), {"id": str(entry.id), "item": entry.item.name})


def _rebuild(ctx, args, kept_sections, kept_entries):
    """What a replace removes: the sections and entries of the routine now that the tree sent leaves out."""
    routine = routines.resolve(ctx.user, args.routine)
    removed = [f"“{entry.item.name}”" for entry in routine.entries if str(entry.id) not in kept_entries]
    removed += [_("the section “%(name)s”", name=section.name) for section in routine.sections
                if str(section.id) not in kept_sections]  # fmt: skip
    if removed:
        summary = _("Rebuild the routine “%(name)s” as sent, removing %(removed)s", name=routine.name,
                    removed=", ".join(removed))  # fmt: skip
    else:
        summary = _("Rebuild the routine “%(name)s” as sent (nothing in it is removed)", name=routine.name)
    facts = {"id": str(routine.id), "name": routine.name, "sections": sorted(str(s.id) for s in routine.sections),
             "entries": sorted(str(e.id) for e in routine.entries)}  # fmt: skip
    return Proposal(summary, pinned(args, routine=routine.id), facts)


def _timed_rebuild(ctx, args):
    """A timed routine keeps the sections and entries whose ids were sent."""
    kept_sections = {section.id for section in args.sections if section.id}
    kept_entries = {entry.id for section in args.sections for entry in section.entries if entry.id}
    return _rebuild(ctx, args, kept_sections, kept_entries)


def _list_rebuild(ctx, args):
    """A list routine keeps the entries whose ids were sent."""
    return _rebuild(ctx, args, set(), {item.id for item in args.items if item.id})


def _routine_deletion(ctx, args):
    """The routine, by name, that goes with its sections, entries and schedule."""
    routine = routines.resolve(ctx.user, args.routine)
    summary = _("Delete the routine “%(name)s” with its sections, entries and schedule (its habits and tasks stay)",
                name=routine.name)  # fmt: skip
    return Proposal(summary, pinned(args, routine=routine.id), {"id": str(routine.id), "name": routine.name})


def _unscheduling(ctx, args):
    """The routine that stops running on any day."""
    routine = routines.resolve(ctx.user, args.routine)
    summary = _("Unschedule the routine “%(name)s”: it stays, but runs on no day", name=routine.name)
    return Proposal(summary, pinned(args, routine=routine.id), {"id": str(routine.id), "name": routine.name})


CHECK_SUMMARIES = {  # (a past day, checked now) → what the card says the click does
    (False, False): _l("Check “%(name)s” (%(routine)s) for today: it earns %(xp)s XP"),
    (False, True): _l("Uncheck “%(name)s” (%(routine)s) for today: its %(xp)s XP come off again"),
    (True, False): _l("Check “%(name)s” (%(routine)s) on %(day)s, late: it earns %(xp)s XP"),
    (True, True): _l("Uncheck “%(name)s” (%(routine)s) on %(day)s: its %(xp)s XP come off again"),
}


def _check(ctx, args):
    """The entry, the day and the XP a check pays (or an uncheck takes back). The day is read
    again at the click: a card for today confirmed after midnight no longer says what would happen."""
    found = today.check_preview(ctx.user, args.entry_id, day=args.day)
    past = found.day != today.local_today(ctx.user)[1]
    summary = CHECK_SUMMARIES[past, found.checked] % {
        "name": found.name, "routine": found.routine, "xp": format_number(found.xp),
        "day": format_date(found.day, "medium"),
    }  # fmt: skip
    facts = {"entry": found.entry_id, "day": found.day.isoformat(), "checked": found.checked}
    return Proposal(summary, pinned(args), facts)


@tool(kind="write", label=_l("Removed a routine entry"), domain="routines", page="/routines", args=EntryRef,
      confirm=_entry_removal)  # fmt: skip
def removeRoutineItem(ctx, args):
    """Take one ENTRY out of its routine. The habit or task and past days stay."""
    return _described(routines.remove_entry(ctx.user, args.entry_id))


@tool(kind="write", label=_l("Rebuilt a routine"), domain="routines", page="/routines", args=TimedRoutineReplace,
      confirm=_timed_rebuild, follows_a_read=True)  # fmt: skip
def replaceUserRoutine(ctx, args):
    """Replace a whole timed routine with the COMPLETE routine you just read, changed: sent ids
    are kept, anything left out is REMOVED."""
    tree = {"name": args.name, "icon": args.icon, "sections": [s.model_dump() for s in args.sections]}
    return _described(routines.replace(ctx.user, args.routine, tree))


@tool(kind="write", label=_l("Rebuilt a list routine"), domain="routines", page="/routines",
      args=ListRoutineReplace, confirm=_list_rebuild, follows_a_read=True)  # fmt: skip
def replaceListRoutine(ctx, args):
    """Replace a list routine's name and whole list: items left out are removed."""
    tree = {"name": args.name, "icon": args.icon, "entries": [item.model_dump() for item in args.items]}
    return _described(routines.replace(ctx.user, args.routine, tree))


@tool(kind="write", label=_l("Deleted a routine"), domain="routines", page="/routines", args=RoutineRef,
      confirm=_routine_deletion)  # fmt: skip
def deleteUserRoutine(ctx, args):
    """Delete a routine with its sections, entries and schedule (habits and tasks stay)."""
    routine = routines.resolve(ctx.user, args.routine)
    name = routine.name
    routines.delete(ctx.user, routine.id)
    return {"deleted": name}


# Schedules ------------------------------------------------------------------------------------


def _scheduled(ctx, args):
    return schedules.set_days(ctx.user, args.routine, args.weekdays).to_dict()


@tool(kind="write", label=_l("Scheduled a routine"), domain="routines", page="/routines", args=Weekdays)
def createUserSchedule(ctx, args):
    """Run a routine on these weekdays; a day held by another routine MOVES to this one (the
    answer lists what moved: tell the person)."""
    return _scheduled(ctx, args)


@tool(kind="write", label=_l("Changed a schedule"), domain="routines", page="/routines", args=Weekdays)
def updateUserSchedule(ctx, args):
    """Replace the weekdays a routine runs on (days of another routine move to it)."""
    return _scheduled(ctx, args)


@tool(kind="write", label=_l("Unscheduled a routine"), domain="routines", page="/routines", args=RoutineRef,
      confirm=_unscheduling)  # fmt: skip
def deleteUserSchedule(ctx, args):
    """Unschedule a routine: it stays, but runs on no day."""
    return schedules.clear(ctx.user, args.routine).to_dict()


# Today ----------------------------------------------------------------------------------------


@tool(kind="write", label=_l("Checked an item"), domain="routines", page="/routines", args=Check, confirm=_check)
def checkRoutineItem(ctx, args):
    """Check (or uncheck, if checked) one routine ENTRY; grants XP. ONLY when the person
    explicitly asks."""
    return today.check(ctx.user, args.entry_id, day=args.day).to_dict()


@tool(kind="write", label=_l("Skipped an item"), domain="routines", page="/routines", args=Skip)
def skipRoutineItem(ctx, args):
    """Skip one routine ENTRY for the day (no XP, never a failure), or undo a skip. ONLY when
    the person asks."""
    return today.skip(ctx.user, args.entry_id, skip=args.skip, day=args.day).to_dict()
