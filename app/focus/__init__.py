"""Focus mode: one routine entry of today, its small steps (micro-tasks) and its timer."""

from flask_babel import lazy_gettext as _l

from app.domains import Domain, Elsewhere

DOMAIN = Domain(
    "focus",
    Elsewhere("opened on one routine entry of today, at /focus"),
    export={"focus": ("micro_tasks", "pinned_steps", "timer_cycles", "focus_timers")},
    ids={"micro_task_id": "micro_tasks"},
    errors={
        "FOCUS_ENTRY_NOT_TODAY": _l("This entry is not in today's routine. Focus mode opens on today's entries."),
        "FOCUS_ENTRY_REQUIRED": _l("Say which routine entry: send its entry id (getDayView lists today's)."),
        "FOCUS_ENTRY_REQUIRED_OPEN": _l(
            "Say which routine entry: send its entry id. The entry open in Focus mode is “%(name)s”, "
            "entry id %(entry_id)s."
        ),
        "MICRO_TASK_NOT_FOUND": _l("We couldn't find that step. It may have been deleted."),
        "MICRO_TASK_TEXT_REQUIRED": _l("Write the step first."),
        "MICRO_TASK_TEXT_TOO_LONG": _l("Use at most 200 characters for a step."),
        "MICRO_TASKS_FULL": _l("This entry already has 50 steps today. Delete one to add another."),
        "MICRO_TASK_ORDER_INVALID": _l("Send every step of this entry for today, each exactly once."),
        "TIMER_CYCLE_INVALID": _l("That timer cycle could not be recorded: it needs an id, a kind and minutes."),
        "FOCUS_WORK_MINUTES_INVALID": _l("Choose a focus length from 1 to 120 minutes."),
        "FOCUS_BREAK_MINUTES_INVALID": _l("Choose a break length from 1 to 60 minutes."),
        "FOCUS_TIMER_RUNNING": _l("The timer is already running."),
        "FOCUS_TIMER_PAUSED": _l("The timer is paused: resume it, or reset it to start a new focus."),
        "FOCUS_TIMER_NOT_RUNNING": _l("The timer isn't running, so there is nothing to pause."),
        "FOCUS_TIMER_NOT_PAUSED": _l("The timer isn't paused, so there is nothing to resume."),
        "FOCUS_TIMER_STOPPED": _l("The timer is already stopped."),
    },
    catalogue=("Focus mode",),
    toolset="micro-tasks of a routine entry of today, the day view",
)
