"""Feedback: users tell us about a bug, an idea, or anything else; admins triage it."""

from flask_babel import lazy_gettext as _l

from app.domains import Area, Domain

DOMAIN = Domain(
    "feedback",
    Area(_l("Feedback"), "message-circle", "feedback.index", in_bottom_bar=False),
    export={"feedback": ("feedback",)},
    ids={"feedback_id": "feedback"},
    errors={
        "FEEDBACK_KIND_INVALID": _l("Choose bug, suggestion or other."),
        "FEEDBACK_TEXT_INVALID": _l("Write between 5 and 4000 characters."),
        "FEEDBACK_STATUS_INVALID": _l("Choose new, triaged, done or won't do."),
        "FEEDBACK_NOT_FOUND": _l("We couldn't find that feedback."),
    },
    catalogue=("Feedback",),
    toolset="send feedback to the Beyou team",
)
