"""Routines: what a day looks like.

A TIMED routine has ordered sections, each an HH:mm window holding entries ("this habit or task,
here, at this time"); a LIST routine is a flat ordered list of entries with no times. Entries
point at the user's own habits and tasks; another user's id is refused as not found.

Every edit keeps entry ids stable where it can, because an entry's id is what checks target
and what its check history hangs on. Past days never change with an edit: the day close froze
them (app.routines.models.checks).
"""

import uuid
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import inspect
from sqlalchemy.orm import joinedload, selectinload
from sqlalchemy.orm.attributes import set_committed_value

from app.events import announce
from app.extensions import db
from app.habits.models import Habit
from app.routines.models.history import OwnerType, XpDay
from app.routines.models.routines import Routine, RoutineEntry, RoutineKind, RoutineSection
from app.shared import icons
from app.shared.errors import Invalid, NotFound
from app.shared.fields import UNSET, given, resolve_named
from app.shared.values import clock_from
from app.tasks.models import Task

NAME_MAX = 256
TOLERANCE = timedelta(minutes=5)  # an entry may start or end this much outside its section's window
MINUTES_PER_DAY = 24 * 60


# Reading ---------------------------------------------------------------------------------


# Loading a routine with everything a page, a check or the assistant reads, in a fixed number of
# queries whatever the number of sections and entries: its weekdays, its sections, and its
# entries with the habit or task behind each joined into the entries' own query. Then
# `with_sections_filled` hands each section its entries from those: loading them through the
# sections too read every entry and every item twice (nine selects instead of three).
WHOLE_TREE = (
    selectinload(Routine.schedule_days),
    selectinload(Routine.sections),
    selectinload(Routine.entries).options(joinedload(RoutineEntry.habit), joinedload(RoutineEntry.task)),
)


def with_sections_filled(routine):
    """`routine` (loaded with WHOLE_TREE) with each section's `entries` set from the routine's,
    as a loaded collection: reading them runs no query. A section whose entries the session
    already holds (an edit in this transaction) keeps them."""
    for section in routine.sections:
        if "entries" in inspect(section).unloaded:
            mine = [entry for entry in routine.entries if entry.section_id == section.id]
            set_committed_value(section, "entries", mine)
    return routine


def listing(user):
    """The user's routines, by name, each with its whole tree loaded."""
    found = db.session.scalars(
        db.select(Routine)
        .where(Routine.user_id == user.id)
        .options(*WHOLE_TREE)
        .order_by(db.func.lower(Routine.name), Routine.id)
    ).all()
    return [with_sections_filled(routine) for routine in found]


@dataclass
class RoutineSummary:
    """A routine as the routine list shows it: the routine (its weekdays loaded) and how many
    sections and entries it holds."""

    routine: Routine
    sections: int
    entries: int


def overview(user):
    """The user's routines, by name, as `RoutineSummary`s: counts, not the sections and entries
    themselves (a heavy account's five routines hold hundreds of entries)."""
    sections = (
        db.select(db.func.count(RoutineSection.id)).where(RoutineSection.routine_id == Routine.id).scalar_subquery()
    )
    entries = db.select(db.func.count(RoutineEntry.id)).where(RoutineEntry.routine_id == Routine.id).scalar_subquery()
    rows = db.session.execute(
        db.select(Routine, sections, entries)
        .where(Routine.user_id == user.id)
        .options(selectinload(Routine.schedule_days))
        .order_by(db.func.lower(Routine.name), Routine.id)
    ).all()
    return [RoutineSummary(routine, section_count, entry_count) for routine, section_count, entry_count in rows]


def resolve(user, ref):
    """The user's routine by id or exact name (any letter case). Several routines with that name
    are refused with ROUTINE_AMBIGUOUS, listing their names and ids."""
    return resolve_named(Routine, user, ref, not_found="ROUTINE_NOT_FOUND", ambiguous="ROUTINE_AMBIGUOUS")


get = resolve  # every function taking a routine accepts its id or its exact name


def get_entry(user, entry_id):
    """One of the user's routine entries; unknown, malformed and foreign ids are ENTRY_NOT_FOUND."""
    entry_uuid = as_uuid(entry_id)
    entry = None
    if entry_uuid is not None:
        entry = db.session.scalar(
            db.select(RoutineEntry)
            .join(Routine, Routine.id == RoutineEntry.routine_id)
            .where(RoutineEntry.id == entry_uuid, Routine.user_id == user.id)
        )
    if entry is None:
        raise NotFound("ENTRY_NOT_FOUND")
    return entry


def describe(routine):
    """A JSON-able picture of a routine, entries resolved to names (what the assistant reads).
    It is also the shape `replace` takes, so a caller can edit it and send it back."""
    return {
        "id": str(routine.id),
        "kind": routine.kind.value,
        "name": routine.name,
        "icon": routine.icon,
        "xp": routine.xp,
        "level": routine.level,
        "weekdays": [day.weekday for day in routine.schedule_days],
        "sections": [
            {
                "id": str(section.id),
                "name": section.name,
                "icon": section.icon,
                "starts_at": clock(section.starts_at),
                "ends_at": clock(section.ends_at),
                "entries": [_describe_entry(entry) for entry in section.entries],
            }
            for section in routine.sections
        ],
        "entries": [_describe_entry(entry) for entry in routine.entries if entry.section_id is None],
    }


def _describe_entry(entry):
    return {
        "id": str(entry.id),
        "type": "HABIT" if entry.habit_id else "TASK",
        "habit_id": str(entry.habit_id) if entry.habit_id else None,
        "task_id": str(entry.task_id) if entry.task_id else None,
        "name": entry.item.name,
        "starts_at": clock(entry.starts_at),
        "ends_at": clock(entry.ends_at),
    }


def names_by_item(user, item_column):
    """item id -> the names of the routines holding it (each once, by name), where
    `item_column` is RoutineEntry.habit_id or RoutineEntry.task_id."""
    rows = db.session.execute(
        db.select(item_column, Routine.name)
        .join(Routine, Routine.id == RoutineEntry.routine_id)
        .where(Routine.user_id == user.id, item_column.is_not(None))
        .order_by(Routine.name)
    ).all()
    using = {}
    for item_id, routine_name in rows:
        names = using.setdefault(item_id, [])
        if routine_name not in names:
            names.append(routine_name)
    return using


def item_choices(user):
    """The user's habits and tasks, by name: what an entry can point at."""
    return {
        "habits": db.session.scalars(
            db.select(Habit).where(Habit.user_id == user.id).order_by(db.func.lower(Habit.name), Habit.id)
        ).all(),
        "tasks": db.session.scalars(
            db.select(Task).where(Task.user_id == user.id).order_by(db.func.lower(Task.name), Task.id)
        ).all(),
    }


def entries_for_item(user, item_id):
    """The user's entries (in any routine) that point at the habit or task `item_id`."""
    item_uuid = as_uuid(item_id)
    if item_uuid is None:
        return []
    return db.session.scalars(
        db.select(RoutineEntry)
        .join(Routine, Routine.id == RoutineEntry.routine_id)
        .where(
            Routine.user_id == user.id, db.or_(RoutineEntry.habit_id == item_uuid, RoutineEntry.task_id == item_uuid)
        )
        .order_by(Routine.name, RoutineEntry.position)
    ).all()


def is_in_any_routine(user, item_type, item_id):
    column = RoutineEntry.habit_id if item_type == OwnerType.HABIT else RoutineEntry.task_id
    return (
        db.session.scalar(
            db.select(RoutineEntry.id)
            .join(Routine, Routine.id == RoutineEntry.routine_id)
            .where(Routine.user_id == user.id, column == item_id)
            .limit(1)
        )
        is not None
    )


# Creating --------------------------------------------------------------------------------


def create_timed(user, name, icon=None, sections=()):
    """A TIMED routine with at least one section. `sections`: [{name, icon, starts_at "HH:mm",
    ends_at (optional; before the start = a window past midnight), entries: [{habit_id | task_id
    (id or exact name), starts_at, ends_at}]}]."""
    problems = {}
    routine = Routine(
        user_id=user.id, kind=RoutineKind.TIMED, name=_clean_name(name, problems), icon=icons.resolve(icon)
    )
    if not sections:
        problems["sections"] = "ROUTINE_SECTION_REQUIRED"
    planned = [_plan_section(user, spec, f"sections[{i}]", problems) for i, spec in enumerate(sections or ())]
    _refuse(problems)
    db.session.add(routine)
    for position, (fields, entries) in enumerate(planned):
        section = RoutineSection(position=position, **fields)
        routine.sections.append(section)
        for entry_position, entry_fields in enumerate(entries):
            section.entries.append(RoutineEntry(routine=routine, position=entry_position, **entry_fields))
    return _saved(user, routine)


def create_list(user, name, icon=None, entries=()):
    """A LIST routine: ordered entries [{habit_id | task_id}] with no sections and no times."""
    problems = {}
    routine = Routine(
        user_id=user.id, kind=RoutineKind.LIST, name=_clean_name(name, problems), icon=icons.resolve(icon)
    )
    planned = [_plan_list_entry(user, spec, f"entries[{i}]", problems) for i, spec in enumerate(entries or ())]
    _refuse(problems)
    db.session.add(routine)
    for position, fields in enumerate(planned):
        routine.entries.append(RoutineEntry(position=position, **fields))
    return _saved(user, routine)


# Editing piece by piece (the editor dialog and the assistant) ------------------------------


def rename(user, routine_id, name, icon=None):
    """New name; the icon changes only when one is given."""
    routine = get(user, routine_id)
    problems = {}
    name = _clean_name(name, problems)
    _refuse(problems)  # before the row changes: the refusal's page reads the routine, which would flush it
    routine.name = name
    if icon is not None:
        routine.icon = icons.resolve(icon)
    return _saved(user, routine)


def add_section(user, routine_id, name, starts_at, ends_at=None, icon=None):
    """A new, empty section at the end of a TIMED routine."""
    routine = get(user, routine_id)
    if routine.kind != RoutineKind.TIMED:
        raise Invalid("LIST_ROUTINE_HAS_NO_SECTIONS")
    problems = {}
    fields, _entries = _plan_section(
        user, {"name": name, "icon": icon, "starts_at": starts_at, "ends_at": ends_at}, None, problems
    )
    _refuse(problems)
    routine.sections.append(RoutineSection(position=len(routine.sections), **fields))
    return _saved(user, routine)


def edit_section(user, routine_id, section_id, *, name=UNSET, icon=UNSET, starts_at=UNSET, ends_at=UNSET):
    """Change only the given fields of a section (`ends_at` None = open-ended). Its entries'
    times are checked again against the new window."""
    routine = get(user, routine_id)
    section = _section_of(routine, section_id)
    problems = {}
    spec = {
        "name": name if given(name) else section.name,
        "icon": icon if given(icon) else section.icon,
        "starts_at": starts_at if given(starts_at) else section.starts_at,
        "ends_at": ends_at if given(ends_at) else section.ends_at,
        "entries": [
            {"habit_id": e.habit_id, "task_id": e.task_id, "starts_at": e.starts_at, "ends_at": e.ends_at}
            for e in section.entries
        ],
    }
    fields, _entries = _plan_section(user, spec, None, problems)
    _refuse(problems)
    for key, value in fields.items():
        setattr(section, key, value)
    return _saved(user, routine)


def remove_section(user, routine_id, section_id):
    """Remove a section and its entries. A TIMED routine keeps at least one section."""
    routine = get(user, routine_id)
    section = _section_of(routine, section_id)
    if len(routine.sections) == 1:
        raise Invalid("ROUTINE_SECTION_REQUIRED")
    db.session.delete(section)  # its entries go with it
    db.session.flush()
    db.session.expire(routine)
    _renumber(routine.sections)
    return _saved(user, routine)


def move_section(user, routine_id, section_id, offset):
    """Move a section up (offset < 0) or down (offset > 0) in its routine."""
    routine = get(user, routine_id)
    section = _section_of(routine, section_id)
    _move(routine.sections, section, offset)
    return _saved(user, routine)


def add_entry(user, routine_id, *, habit_id=None, task_id=None, section_id=None, starts_at=None, ends_at=None):
    """Put one habit or task (id or exact name) at the end of a section (TIMED; `section_id`
    required) or of a LIST routine. Times must sit inside the section's window ±5 minutes."""
    routine = get(user, routine_id)
    problems = {}
    spec = {"habit_id": habit_id, "task_id": task_id, "starts_at": starts_at, "ends_at": ends_at}
    if routine.kind == RoutineKind.LIST:
        fields = _plan_list_entry(user, spec, None, problems)
        _refuse(problems)
        routine.entries.append(RoutineEntry(position=len(routine.entries), **fields))
        return _saved(user, routine)
    if section_id in (None, ""):
        raise Invalid("INVALID_INPUT", details={"section_id": "ROUTINE_SECTION_REQUIRED"})
    section = _section_of(routine, section_id)
    fields = _plan_entry(user, spec, section.starts_at, section.ends_at, None, problems)
    _refuse(problems)
    section.entries.append(RoutineEntry(routine=routine, position=len(section.entries), **fields))
    return _saved(user, routine)


def edit_entry(user, entry_id, *, starts_at=UNSET, ends_at=UNSET):
    """Change only the given times of an entry (None clears one); they must sit inside the
    section's window ±5 minutes."""
    entry = get_entry(user, entry_id)
    if entry.section is None:
        raise Invalid("LIST_ROUTINE_HAS_NO_TIMES")
    problems = {}
    spec = {
        "habit_id": entry.habit_id,
        "task_id": entry.task_id,
        "starts_at": starts_at if given(starts_at) else entry.starts_at,
        "ends_at": ends_at if given(ends_at) else entry.ends_at,
    }
    fields = _plan_entry(user, spec, entry.section.starts_at, entry.section.ends_at, None, problems)
    _refuse(problems)
    entry.starts_at, entry.ends_at = fields["starts_at"], fields["ends_at"]
    return _saved(user, entry.routine)


def remove_entry(user, entry_id):
    """Take one entry out of its routine. The habit or task stays, and so do past days."""
    entry = get_entry(user, entry_id)
    routine, section = entry.routine, entry.section
    db.session.delete(entry)
    db.session.flush()
    db.session.expire(routine)
    if section is not None:
        db.session.expire(section)
    _renumber(section.entries if section is not None else routine.entries)
    return _saved(user, routine)


def move_entry(user, entry_id, offset):
    """Move an entry up (offset < 0) or down (offset > 0) within its section or list."""
    entry = get_entry(user, entry_id)
    siblings = entry.section.entries if entry.section else entry.routine.entries
    _move(siblings, entry, offset)
    return _saved(user, entry.routine)


# Replacing the whole tree --------------------------------------------------------------------


def replace(user, routine_id, tree):
    """Replace a routine with `tree` (the shape `describe` returns), merging by id.

    Sections and entries whose id belongs to this routine are kept and updated in place (an
    entry keeps its check history even when it moves to another section); anything the tree
    leaves out is removed; ids the routine does not know are ignored and a new row is made.
    """
    routine = get(user, routine_id)
    problems = {}
    name = _clean_name(tree.get("name"), problems)
    if routine.kind == RoutineKind.TIMED:
        specs = tree.get("sections") or []
        if not specs:
            problems["sections"] = "ROUTINE_SECTION_REQUIRED"
        planned = [_plan_section(user, spec, f"sections[{i}]", problems) for i, spec in enumerate(specs)]
    else:
        specs = tree.get("entries") or []
        planned = [_plan_list_entry(user, spec, f"entries[{i}]", problems) for i, spec in enumerate(specs)]
    _refuse(problems)

    routine.name = name
    if tree.get("icon") is not None:
        routine.icon = icons.resolve(tree.get("icon"))
    with db.session.no_autoflush:
        known_entries = {entry.id: entry for entry in routine.entries}
        kept_entries = []
        if routine.kind == RoutineKind.TIMED:
            known_sections = {section.id: section for section in routine.sections}
            sections = []
            for position, (spec, (fields, entry_fields)) in enumerate(zip(specs, planned, strict=True)):
                section = known_sections.pop(as_uuid(spec.get("id")), None) or RoutineSection()
                _apply(section, {**fields, "position": position})
                entry_specs = spec.get("entries") or []
                section.entries = [
                    _reuse_entry(known_entries, entry_spec, {**values, "position": entry_position})
                    for entry_position, (entry_spec, values) in enumerate(zip(entry_specs, entry_fields, strict=True))
                ]
                kept_entries += section.entries
                sections.append(section)
            routine.sections = sections
        else:
            kept_entries = [
                _reuse_entry(known_entries, spec, {**values, "position": position})
                for position, (spec, values) in enumerate(zip(specs, planned, strict=True))
            ]
        routine.entries = kept_entries
    return _saved(user, routine)


def _reuse_entry(known_entries, spec, values):
    """The routine's entry with the id in `spec` (or a new one), updated with `values`."""
    entry = known_entries.pop(as_uuid(spec.get("id")), None) or RoutineEntry()
    _apply(entry, values)
    return entry


def _apply(row, values):
    for key, value in values.items():
        setattr(row, key, value)


# Deleting --------------------------------------------------------------------------------------


def delete(user, routine_id):
    """Delete a routine with its sections, entries, schedule and XP history. The day outcomes of
    its habits and tasks, and the frozen past days, are kept."""
    routine = get(user, routine_id)
    db.session.execute(db.delete(XpDay).where(XpDay.owner_type == OwnerType.ROUTINE, XpDay.owner_id == routine.id))
    db.session.delete(routine)
    db.session.commit()
    announce(user, "routines")


# Validation ------------------------------------------------------------------------------------


def _clean_name(value, problems, field="name"):
    name = " ".join(str(value or "").split())
    if not name:
        problems[field] = "ROUTINE_NAME_REQUIRED"
    elif len(name) > NAME_MAX:
        problems[field] = "ROUTINE_NAME_TOO_LONG"
    return name


def _plan_section(user, spec, path, problems):
    """Validated section fields and its entries' fields, problems recorded under `path`."""
    spec = spec or {}
    name = " ".join(str(spec.get("name") or "").split())
    if not name:
        problems[_at(path, "name")] = "ROUTINE_SECTION_NAME_REQUIRED"
    elif len(name) > NAME_MAX:
        problems[_at(path, "name")] = "ROUTINE_NAME_TOO_LONG"
    starts_at = parse_time(spec.get("starts_at"), _at(path, "starts_at"), problems)
    if starts_at is None and _at(path, "starts_at") not in problems:
        problems[_at(path, "starts_at")] = "ROUTINE_SECTION_START_REQUIRED"
    ends_at = parse_time(spec.get("ends_at"), _at(path, "ends_at"), problems)
    entries = [
        _plan_entry(user, entry, starts_at, ends_at, _at(path, f"entries[{i}]"), problems)
        for i, entry in enumerate(spec.get("entries") or ())
    ]
    fields = {"name": name, "icon": icons.resolve(spec.get("icon")), "starts_at": starts_at, "ends_at": ends_at}
    return fields, entries


def _plan_entry(user, spec, section_start, section_end, path, problems):
    """Validated entry fields: the owned habit or task, and times inside the section's window."""
    fields = _item_fields(user, spec, path, problems)
    starts_at = parse_time(spec.get("starts_at"), _at(path, "starts_at"), problems)
    ends_at = parse_time(spec.get("ends_at"), _at(path, "ends_at"), problems)
    overnight = section_start is not None and section_end is not None and section_end < section_start
    if starts_at and ends_at and ends_at < starts_at and not overnight:
        problems[_at(path, "ends_at")] = "ITEM_END_BEFORE_START"
    if section_start is not None:
        if starts_at and not _inside(starts_at, section_start, section_end):
            problems[_at(path, "starts_at")] = "ITEM_START_OUT_OF_SECTION"
        if ends_at and section_end is not None and not _inside(ends_at, section_start, section_end):
            problems.setdefault(_at(path, "ends_at"), "ITEM_END_OUT_OF_SECTION")
    fields.update(starts_at=starts_at, ends_at=ends_at)
    return fields


def _plan_list_entry(user, spec, path, problems):
    fields = _item_fields(user, spec or {}, path, problems)
    fields.update(starts_at=None, ends_at=None)
    return fields


def _item_fields(user, spec, path, problems):
    """{habit_id, task_id} for exactly one of the user's habits or tasks (by id or exact name)."""
    habit_ref, task_ref = spec.get("habit_id"), spec.get("task_id")
    if (habit_ref in (None, "")) == (task_ref in (None, "")):
        problems[_at(path, "item")] = "ENTRY_ITEM_REQUIRED"
        return {"habit_id": None, "task_id": None}
    model, key, field = (
        (Habit, "HABIT_NOT_FOUND", "habit_id") if habit_ref not in (None, "") else (Task, "TASK_NOT_FOUND", "task_id")
    )
    ref = habit_ref if model is Habit else task_ref
    try:
        item = resolve_named(model, user, ref, not_found=key, ambiguous=key.replace("NOT_FOUND", "AMBIGUOUS"))
    except (NotFound, Invalid) as refusal:
        problems[_at(path, field)] = refusal.key
        return {"habit_id": None, "task_id": None}
    return {"habit_id": item.id if model is Habit else None, "task_id": item.id if model is Task else None}


def _inside(moment, start, end):
    """Whether `moment` falls in [start − 5 min, end + 5 min] (end None: only the start bound),
    the window wrapping past midnight when the section is overnight."""
    m, lo = _minutes(moment), _minutes(start) - 5
    if end is None:
        return m >= max(lo, 0)
    hi = _minutes(end) + 5
    if end >= start:
        return max(lo, 0) <= m <= min(hi, MINUTES_PER_DAY - 1)
    return m >= lo or m <= hi  # overnight: from the start to midnight, then up to the end


def _minutes(value):
    return value.hour * 60 + value.minute


def parse_time(value, field, problems):
    """An "HH:MM" (or time) value; blank is None; anything else ("07:00junk") records TIME_INVALID."""
    if value in (None, ""):
        return None
    moment = clock_from(value)
    if moment is None:
        problems[field] = "TIME_INVALID"
    return moment


def clock(value):
    return value.strftime("%H:%M") if value else None


def _at(path, field):
    return f"{path}.{field}" if path else field


def _refuse(problems):
    if problems:
        raise Invalid(next(iter(problems.values())), details=problems)


# Helpers ---------------------------------------------------------------------------------------


def as_uuid(value):
    if isinstance(value, uuid.UUID):
        return value
    try:
        return uuid.UUID(str(value).strip())
    except (TypeError, ValueError, AttributeError):
        return None


def _section_of(routine, section_id):
    wanted = as_uuid(section_id)
    for section in routine.sections:
        if section.id == wanted:
            return section
    raise NotFound("ROUTINE_SECTION_NOT_FOUND")


def _renumber(rows):
    for position, row in enumerate(rows):
        row.position = position


def _move(rows, row, offset):
    ordered = list(rows)
    index = ordered.index(row)
    target = min(max(index + (1 if offset > 0 else -1 if offset < 0 else 0), 0), len(ordered) - 1)
    ordered.insert(target, ordered.pop(index))
    _renumber(ordered)
    rows.sort(key=lambda r: r.position)


def _saved(user, routine):
    db.session.commit()
    announce(user, "routines")
    return routine
