"""The profile in the data export: the account as its settings read it.

One function per section the domain's declaration names, `export_<section>(user)`, read by the
export on the configuration page (app/profile/configuration.py)."""

from app.catalogue.entities import progress_data, streak_data
from app.profile.configuration import settings
from app.shared.export import iso


def export_profile(user):
    """The account as `settings` reads it, with what only the export carries (never the password
    hash or session data)."""
    return {
        "id": str(user.id),
        **settings(user),
        "created_at": iso(user.created_at),
        "max_constance": user.max_constance or 0,
        # What the assistant has noted about the person: an inference about someone is their data.
        "assistant_note": user.assistant_note,
        "progress": progress_data(user),
        "streak": streak_data(user),
    }
