"""The feedback in the data export.

One function per section the domain's declaration names, `export_<section>(user)`, read by the
export on the configuration page (app/profile/configuration.py)."""

from app.feedback.models import Feedback
from app.shared.export import iso, owned_rows


def export_feedback(user):
    """What the user sent (the triage state is internal and left out)."""
    return [
        {
            "id": str(row.id),
            "kind": str(row.kind),
            "text": row.text,
            "page": row.page,
            "created_at": iso(row.created_at),
        }
        for row in owned_rows(Feedback, user, Feedback.created_at)
    ]
