"""Focus mode in the data export.

One function per section the domain's declaration names, `export_<section>(user)`, read by the
export on the configuration page (app/profile/configuration.py)."""

from app.focus.models import FocusTimer, MicroTask, PinnedStep, TimerCycle
from app.shared.export import iso, owned_rows


def export_focus(user):
    """Focus mode: each day's steps of each routine entry, the names pinned to entries, and the
    timer cycles completed (a cycle whose entry was deleted keeps its day, kind and minutes),
    and each entry's timer as it was last changed."""
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
        "focus_timers": [
            {
                "entry_id": str(row.entry_id),
                "day": iso(row.day),
                "phase": str(row.phase),
                "state": str(row.state),
                "planned_seconds": row.planned_seconds,
                "elapsed_ms": row.elapsed_ms,
                "started_at": iso(row.started_at),
                "paused_at": iso(row.paused_at),
                "pauses": row.pauses,
            }
            for row in owned_rows(FocusTimer, user, FocusTimer.created_at)
        ],
    }
