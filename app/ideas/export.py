"""The Ideas board in the data export.

One function per section the domain's declaration names, `export_<section>(user)`, read by the
export on the configuration page (app/profile/configuration.py)."""

from app.ideas import services as ideas


def export_ideas(user):
    """Every note of the Ideas board, archived ones included."""
    return [ideas.as_data(note) for note in ideas.every_note(user)]
