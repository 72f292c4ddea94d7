"""Feedback: users tell us about a bug, an idea, or anything else; admins triage it.

The triage status is for admins only: a user never sees it, and nobody is notified when it
changes. Every admin function refuses a non-admin with FORBIDDEN.
"""

from app.events import announce
from app.extensions import db
from app.feedback.models import Feedback, FeedbackKind, FeedbackStatus
from app.profile.models import User
from app.shared.errors import Forbidden, NotFound
from app.shared.fields import as_uuid, refuse_if

TEXT_MIN, TEXT_MAX = 5, 4000
PAGE_MAX = 200


def _enum_or_none(enum, value):
    try:
        return enum(str(value or "").strip().upper())
    except ValueError:
        return None


def submit(user, kind, text, page=None):
    """Record feedback: `kind` BUG|FEATURE_REQUEST|OTHER, `text` 5–4000 characters, `page` the
    path it was sent from (cut to 200 characters rather than refused: context must never make
    a report fail)."""
    problems = {}
    chosen = _enum_or_none(FeedbackKind, kind)
    if chosen is None:
        problems["kind"] = "FEEDBACK_KIND_INVALID"
    body = str(text or "").strip()
    if not TEXT_MIN <= len(body) <= TEXT_MAX:
        problems["text"] = "FEEDBACK_TEXT_INVALID"
    refuse_if(problems)
    feedback = Feedback(user_id=user.id, kind=chosen, text=body, page=(str(page or "").strip()[:PAGE_MAX] or None))
    db.session.add(feedback)
    db.session.commit()
    announce(user, "feedback")
    return feedback


def _require_admin(user):
    if not getattr(user, "is_admin", False):
        raise Forbidden("FORBIDDEN")


def inbox(admin, status=None, kind=None):
    """Every user's feedback, newest first, optionally narrowed by status and kind."""
    _require_admin(admin)
    statement = db.select(Feedback).join(User, User.id == Feedback.user_id)
    if status:
        statement = statement.where(Feedback.status == _enum_or_none(FeedbackStatus, status))
    if kind:
        statement = statement.where(Feedback.kind == _enum_or_none(FeedbackKind, kind))
    return db.session.scalars(statement.order_by(Feedback.created_at.desc(), Feedback.id)).all()


def counts(admin):
    """status name -> how many, over the whole inbox, plus "total"."""
    _require_admin(admin)
    rows = dict(db.session.execute(db.select(Feedback.status, db.func.count()).group_by(Feedback.status)).all())
    found = {str(status): rows.get(status, 0) for status in FeedbackStatus}
    found["total"] = sum(rows.values())
    return found


def set_status(admin, feedback_id, status):
    """Move one submission to NEW|TRIAGED|DONE|WONT_DO; nobody is notified."""
    _require_admin(admin)
    chosen = _enum_or_none(FeedbackStatus, status)
    if chosen is None:
        refuse_if({"status": "FEEDBACK_STATUS_INVALID"})
    feedback = _find(feedback_id)
    feedback.status = chosen
    db.session.commit()
    return feedback


def _find(feedback_id):
    feedback = db.session.get(Feedback, as_uuid(feedback_id)) if as_uuid(feedback_id) else None
    if feedback is None:
        raise NotFound("FEEDBACK_NOT_FOUND")
    return feedback
