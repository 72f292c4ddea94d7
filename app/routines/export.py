"""The routines in the data export: the routines, the weekday schedule, each entry's checks, and the
day outcomes and XP history every streak and chart is read from.

One function per section the domain's declaration names, `export_<section>(user)`, read by the
export on the configuration page (app/profile/configuration.py)."""

from app.routines import services as routines
from app.routines.models.checks import EntryCheck
from app.routines.models.history import DayOutcome, XpDay
from app.routines.models.routines import Routine, ScheduleDay
from app.shared.export import iso, owned_rows


def export_routines(user):
    """Routines as `routines.describe` reads them: sections, entries and weekdays."""
    return [routines.describe(routine) for routine in owned_rows(Routine, user, Routine.created_at)]


def export_schedule(user):
    """weekday (0 = Monday) -> routine id."""
    return {str(day.weekday): str(day.routine_id) for day in owned_rows(ScheduleDay, user, ScheduleDay.weekday)}


def export_day_outcomes(user):
    return [
        {
            "owner_type": str(row.owner_type),
            "owner_id": str(row.owner_id),
            "day": iso(row.day),
            "outcome": str(row.outcome),
        }
        for row in owned_rows(DayOutcome, user, DayOutcome.day)
    ]


def export_entry_checks(user):
    """Each routine entry's day: checked or skipped, the XP it paid, and the facts frozen for it."""
    return [
        {
            "day": iso(row.day),
            "entry_id": str(row.entry_id),
            "routine_id": str(row.routine_id),
            "routine_name": row.routine_name,
            "section_name": row.section_name,
            "item_type": str(row.item_type),
            "item_id": str(row.item_id),
            "item_name": row.item_name,
            "difficulty": row.difficulty,
            "importance": row.importance,
            "starts_at": iso(row.starts_at),
            "ends_at": iso(row.ends_at),
            "checked": row.checked,
            "skipped": row.skipped,
            "checked_at": iso(row.checked_at),
            "xp": row.xp,
        }
        for row in owned_rows(EntryCheck, user, EntryCheck.day, EntryCheck.section_position, EntryCheck.position)
    ]


def export_xp_days(user):
    return [
        {"owner_type": str(row.owner_type), "owner_id": str(row.owner_id), "day": iso(row.day), "xp": row.xp}
        for row in owned_rows(XpDay, user, XpDay.day)
    ]
