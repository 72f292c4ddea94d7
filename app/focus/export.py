"""Focus mode in the data export.

One function per section the domain's declaration names, `export_<section>(user)`, read by the
export on the configuration page (app/profile/configuration.py)."""

from app.focus.models import MicroTask, PinnedStep, TimerCycle
from app.shared.export import iso, owned_rows


def export_focus(user):
    """Focus mode: each day's steps of each routine entry, the names pinned to entries, and the
    timer cycles completed (a cycle whose entry was deleted keeps its day, kind and minutes)."""
    return {
        "micro_tasks": [
            {
                "id": str(row.id),
                "entry_id": str(row.entry_id),
                "day": iso(row.day),
                "text": row.text,
                "done": row.done,
                "position": row.position,
            }
            for row in owned_rows(MicroTask, user, MicroTask.day, MicroTask.entry_id, MicroTask.position)
        ],
        "pinned_steps": [
            {"entry_id": str(row.entry_id), "name": row.name, "pinned_at": iso(row.created_at)}
            for row in owned_rows(PinnedStep, user, PinnedStep.entry_id, PinnedStep.created_at)
        ],
        "timer_cycles": [
            {
                "cycle_id": str(row.cycle_id),
                "entry_id": str(row.entry_id) if row.entry_id else None,
                "day": iso(row.day),
                "kind": str(row.kind),
                "minutes": row.minutes,
                "completed_at": iso(row.completed_at),
            }
            for row in owned_rows(TimerCycle, user, TimerCycle.completed_at)
        ],
    }
