"""The study cycles in the data export: the cycles with their laps, and the sessions.

One function per section the domain's declaration names, `export_<section>(user)`, read by the
export on the configuration page (app/profile/configuration.py)."""

from app.shared.export import iso
from app.study_cycles import services as study_cycles


def export_study_cycles(user):
    """Every study cycle (archived too): its configuration, its blocks and each lap with its credits."""
    return [
        {
            **study_cycles.cycle_data(cycle),
            "laps": [
                {
                    "number": lap.number,
                    "startedAt": iso(lap.started_at),
                    "finishedAt": iso(lap.finished_at),
                    "credits": [
                        {
                            "pageId": str(credit.subject.page_id),
                            "sessionId": str(credit.session_id) if credit.session_id else None,
                            "day": credit.day.isoformat(),
                            "minutes": credit.minutes,
                        }
                        for credit in lap.credits
                    ],
                }
                for lap in cycle.laps
            ],
        }
        for cycle in study_cycles.every_cycle(user)
    ]


def export_study_sessions(user):
    """The study sessions (logged by hand or from the Focus timer) and the entries studied for a page."""
    return {
        "sessions": [study_cycles.session_data(session) for session in study_cycles.every_session(user)],
        "entryLinks": [
            {"entryId": str(link.entry_id), "pageId": str(link.page_id)} for link in study_cycles.entry_links(user)
        ],
    }
