"""The mood in the data export.

One function per section the domain's declaration names, `export_<section>(user)`, read by the
export on the configuration page (app/profile/configuration.py)."""

from app.mood.models import MoodEntry
from app.shared.export import iso, owned_rows


def export_mood(user):
    """Each logged day with its journal: the export is the owner's own download, going to them and
    not to a model, so it carries the words the assistant and every prompt never see."""
    return [
        {"date": iso(row.day), "level": row.level, "journal": row.journal, "updated_at": iso(row.updated_at)}
        for row in owned_rows(MoodEntry, user, MoodEntry.day)
    ]
