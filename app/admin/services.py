"""The admin area's reads about accounts, and the audit log of what admins view and do.

Every function refuses a non-admin with FORBIDDEN, as the feedback inbox does. The users
overview shows accounts, never their content: dates, the admin flag and counts. The audit log
is written for each admin page and action (app/admin/routes.py records them) and read by admins.
"""

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from app.admin.models import AdminAuditEntry
from app.assistant.models.chats import Chat
from app.extensions import db
from app.profile.models import User
from app.shared.errors import Forbidden
from app.shared.models import utcnow

PAGE_SIZE = 50
# A page that refreshes itself (the AI chain every 15 s, the inbox's counts) is one entry per
# stretch of viewing rather than one row per refresh.
REPEAT_WINDOW = timedelta(minutes=5)
ACTIVE_DAYS = 30


def _require_admin(user):
    if not getattr(user, "is_admin", False):
        raise Forbidden("FORBIDDEN")


def record(admin, endpoint, path, *, change=False, detail=None, now=None):
    """Write one admin view or action to the audit log. A view identical to this admin's latest
    entry, within REPEAT_WINDOW of it, counts as a repeat of that entry."""
    _require_admin(admin)
    now = now or utcnow()
    action = "change" if change else "view"
    latest = db.session.scalar(
        db.select(AdminAuditEntry)
        .where(AdminAuditEntry.user_id == admin.id)
        .order_by(AdminAuditEntry.last_at.desc(), AdminAuditEntry.id)
        .limit(1)
    )
    if (
        latest is not None
        and not change
        and (latest.action, latest.endpoint, latest.path) == (action, endpoint, path)
        and now - _aware(latest.last_at) <= REPEAT_WINDOW
    ):
        latest.times += 1
        latest.last_at = now
    else:
        db.session.add(
            AdminAuditEntry(
                user_id=admin.id,
                action=action,
                endpoint=endpoint,
                path=path[:512],
                detail=(detail or None) and detail[:256],
                created_at=now,
                last_at=now,
            )
        )
    db.session.commit()


@dataclass(frozen=True)
class AuditLine:
    entry: AdminAuditEntry
    admin_email: str


def audit_log(admin, page=1):
    """Every admin's entries, the latest first, PAGE_SIZE a page; and whether a next page exists."""
    _require_admin(admin)
    rows = db.session.execute(
        db.select(AdminAuditEntry, User.email)
        .join(User, User.id == AdminAuditEntry.user_id)
        .order_by(AdminAuditEntry.last_at.desc(), AdminAuditEntry.id)
        .offset((page - 1) * PAGE_SIZE)
        .limit(PAGE_SIZE + 1)
    ).all()
    return [AuditLine(entry, email) for entry, email in rows[:PAGE_SIZE]], len(rows) > PAGE_SIZE


@dataclass(frozen=True)
class AccountLine:
    """One account as the admin sees it: who, since when, last seen, admin or not. No content."""

    id: str
    email: str
    signed_up: datetime
    last_activity: datetime | None
    is_admin: bool


def users_overview(admin, page=1, now=None):
    """The counts, and one page of accounts (the newest sign-ups first)."""
    _require_admin(admin)
    now = now or utcnow()
    last_chat = (
        db.select(Chat.user_id, db.func.max(Chat.last_activity_at).label("at")).group_by(Chat.user_id).subquery()
    )
    rows = db.session.execute(
        db.select(User.id, User.email, User.created_at, User.last_login_at, User.is_admin, last_chat.c.at)
        .outerjoin(last_chat, last_chat.c.user_id == User.id)
        .order_by(User.created_at.desc(), User.id)
        .offset((page - 1) * PAGE_SIZE)
        .limit(PAGE_SIZE + 1)
    ).all()
    accounts = [
        AccountLine(str(user_id), email, _aware(created), _latest(login, chat), bool(is_admin))
        for user_id, email, created, login, is_admin, chat in rows[:PAGE_SIZE]
    ]
    return {"counts": _counts(now), "accounts": accounts, "more": len(rows) > PAGE_SIZE}


def _counts(now):
    since = now - timedelta(days=ACTIVE_DAYS)
    count = db.select(db.func.count()).select_from(User)
    active_in_chat = db.select(Chat.user_id).where(Chat.last_activity_at >= since)
    return {
        "accounts": db.session.scalar(count),
        "admins": db.session.scalar(count.where(User.is_admin.is_(True))),
        "signed_up_recently": db.session.scalar(count.where(User.created_at >= since)),
        "active_recently": db.session.scalar(
            count.where(db.or_(User.last_login_at >= since, User.id.in_(active_in_chat)))
        ),
    }


def _aware(moment):
    """SQLite hands datetimes back without their zone; every stored moment is UTC."""
    if moment is not None and moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment


def _latest(*moments):
    known = [_aware(moment) for moment in moments if moment is not None]
    return max(known) if known else None
