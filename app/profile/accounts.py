"""Accounts: registration, sign-in (its waits: sign_in_throttle), password reset, admin grants."""

import hashlib
import secrets
import uuid
import zoneinfo
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from email_validator import EmailNotValidError, validate_email
from flask import current_app
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer
from limits import parse as parse_limit
from limits.strategies import MovingWindowRateLimiter
from sqlalchemy import bindparam
from sqlalchemy.exc import IntegrityError
from zxcvbn.frequency_lists import FREQUENCY_LISTS

from app import events
from app.extensions import db, limiter
from app.profile import sign_in_throttle, widgets
from app.profile.models import User, UserSession
from app.shared.errors import Invalid, NotFound

LANGUAGES = ("en", "pt")
PASSWORD_MIN, PASSWORD_MAX = 8, 256
COMMON_PASSWORD_COUNT = 10_000


@cache
def _hasher_with(parameters):
    return PasswordHasher(**dict(parameters))


def _hasher():
    """Argon2id with the library's current recommended parameters, unless the profile sets its own
    (PASSWORD_HASHING: the test profile's are the cheapest, as every test signs someone in)."""
    return _hasher_with(tuple(sorted(current_app.config["PASSWORD_HASHING"].items())))


@cache
def _dummy_hash(hasher):
    """Compared against when the email is unknown, so a miss costs the same time as a hit."""
    return hasher.hash("not-a-real-password")


@cache
def _common_passwords():
    return frozenset(FREQUENCY_LISTS["passwords"][:COMMON_PASSWORD_COUNT])


@cache
def _timezones():
    return frozenset(zoneinfo.available_timezones())


def normalise_email(email):
    return (email or "").strip().lower()


def language_from(value, fallback="en"):
    """A supported language for a browser or form value ("pt-BR" reads as "pt")."""
    value = (value or "").strip().lower()[:2]
    return value if value in LANGUAGES else fallback


def _check_name(name, problems):
    name = (name or "").strip()
    if not 2 <= len(name) <= 256:
        problems["name"] = "NAME_INVALID"
    return name


def _check_email(email, problems):
    email = normalise_email(email)
    try:
        validate_email(email, check_deliverability=False)
    except EmailNotValidError:
        problems["email"] = "EMAIL_INVALID"
    if len(email) > 256:
        problems["email"] = "EMAIL_INVALID"
    return email


def _check_password(password, problems, field="password"):
    password = password or ""
    if len(password) < PASSWORD_MIN:
        problems[field] = "PASSWORD_TOO_SHORT"
    elif len(password) > PASSWORD_MAX:
        problems[field] = "PASSWORD_TOO_LONG"
    elif password.lower() in _common_passwords():
        problems[field] = "PASSWORD_TOO_COMMON"
    return password


def register(*, name, email, password, language="en", timezone_name=None):
    """Create an account. Refuses with per-field keys; a bad time zone falls back to UTC.

    The sign-up pages reach it through a mailed link (`finish_sign_up`); the demo, the CLI and
    tests call it directly."""
    problems = {}
    name = _check_name(name, problems)
    email = _check_email(email, problems)
    password = _check_password(password, problems)
    if language not in LANGUAGES:
        problems["language"] = "LANGUAGE_INVALID"
    if "email" not in problems and db.session.scalar(db.select(User.id).where(User.email == email)):
        problems["email"] = "EMAIL_TAKEN"
    if problems:
        raise Invalid("INVALID_INPUT", details=problems)
    user = User(
        name=name,
        email=email,
        password_hash=_hasher().hash(password),
        language=language,
        timezone=timezone_name if timezone_name in _timezones() else "UTC",
        widgets=list(widgets.DEFAULT),  # a first dashboard that already shows progress
    )
    db.session.add(user)
    try:
        db.session.commit()
    except IntegrityError:  # the same address registered at the same moment (a link used twice at once)
        db.session.rollback()
        raise Invalid("INVALID_INPUT", details={"email": "EMAIL_TAKEN"}) from None
    return user


# Sign-up by a mailed link ----------------------------------------------------------------


@dataclass(frozen=True)
class SignUpAsked:
    """What asking to sign up with an address leads to. Whatever it is, the requester sees the
    same page: only the address's mailbox learns whether it has an account."""

    email: str
    language: str
    owner: User | None  # the account the address has already: its owner is told
    token: str | None  # else the link's token, to choose a name and a password
    mail_due: bool  # False while the address had its sign-up mail within the hour


@dataclass(frozen=True)
class SignUp:
    """What a sign-up link carries: the address it was mailed to, and the language asked for."""

    email: str
    language: str


def ask_to_sign_up(*, email, language="en"):
    """Check the sign-up form and say which mail the address gets.

    A taken address is not refused (docs/production.md, on account enumeration): both ways cost the same
    (one account lookup, no password hashed until the link is used) and read the same. An
    address gets one sign-up mail an hour, of either kind, so the form cannot flood an inbox.
    """
    problems = {}
    email = _check_email(email, problems)
    if language not in LANGUAGES:
        problems["language"] = "LANGUAGE_INVALID"
    if problems:
        raise Invalid("INVALID_INPUT", details=problems)
    mail_due = MovingWindowRateLimiter(limiter.storage).hit(parse_limit("1 per hour"), "sign-up-mail", _digest(email))
    owner = find_by_email(email)
    token = None if owner else _sign_up_serializer().dumps({"email": email, "language": language})
    return SignUpAsked(email, language, owner, token, mail_due)


def _sign_up_serializer():
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt="sign-up")


def sign_up_for(token):
    """The sign-up a link carries. Refused when forged, older than SIGN_UP_LINK_MAX_AGE, or
    once its address has an account (the link was used)."""
    try:
        data = _sign_up_serializer().loads(token, max_age=current_app.config["SIGN_UP_LINK_MAX_AGE"])
    except SignatureExpired:
        raise Invalid("SIGN_UP_LINK_EXPIRED") from None
    except BadSignature:
        raise Invalid("SIGN_UP_LINK_INVALID") from None
    if find_by_email(data["email"]) is not None:
        raise Invalid("SIGN_UP_LINK_USED")
    return SignUp(data["email"], data["language"])


def finish_sign_up(token, *, name, password, timezone_name=None):
    """The account a sign-up link asked for, with the name and password chosen on its page."""
    sign_up = sign_up_for(token)
    return register(
        name=name, email=sign_up.email, password=password, language=sign_up.language, timezone_name=timezone_name
    )


# Sign-in -------------------------------------------------------------------------------


def authenticate(email, password, address=None):
    """The user with these credentials, signing in from `address` (the client's IP).

    Failures make further attempts wait a while, never lock (app/profile/sign_in_throttle.py):
    a wait is the same for a known and an unknown email, and once it is over a right password
    gets in.
    """
    email = normalise_email(email)
    attempt = sign_in_throttle.Attempt(email, str(address or "")).begin()
    user = db.session.scalar(db.select(User).where(User.email == email))
    if not _password_matches(user.password_hash if user else _dummy_hash(_hasher()), password or ""):
        attempt.failed()
        raise Invalid("INVALID_CREDENTIALS")
    if user is None:  # the dummy hash matched: impossible in practice, refused all the same
        raise Invalid("INVALID_CREDENTIALS")
    attempt.succeeded()
    if _hasher().check_needs_rehash(user.password_hash):
        user.password_hash = _hasher().hash(password)
    user.last_login_at = datetime.now(UTC)
    db.session.commit()
    return user


def _password_matches(password_hash, password):
    try:
        return _hasher().verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


# Sign-ins ------------------------------------------------------------------------------


def _digest(key):
    return hashlib.sha256(key.encode()).hexdigest()


def start_session(user, now=None):
    """Record a new sign-in for `user` and make it theirs for this request (`user.session_key`).

    It lasts REMEMBER_COOKIE_DURATION at most, remembered or not, and expired sign-ins of the
    user are swept on the way.
    """
    now = now or datetime.now(UTC)
    db.session.execute(db.delete(UserSession).where(UserSession.user_id == user.id, UserSession.expires_at <= now))
    key = secrets.token_urlsafe(32)
    lifetime = current_app.config["REMEMBER_COOKIE_DURATION"]
    db.session.add(UserSession(id=_digest(key), user_id=user.id, created_at=now, expires_at=now + lifetime))
    db.session.commit()
    user.session_key = key
    return user


# Built once: every request runs it, and building the statement and its cache key anew cost
# more than running it (~6 % of a worker's CPU while assistant turns start).
_LIVE_SIGN_IN = (
    db.select(User)
    .join(UserSession, UserSession.user_id == User.id)
    .where(
        User.id == bindparam("user_id"),
        UserSession.id == bindparam("key_digest"),
        UserSession.expires_at > bindparam("now"),
    )
)


def user_for_session(session_id, now=None):
    """The user of a live sign-in, from what Flask-Login stored ("<user id>:<key>"); None when
    that sign-in ended, expired or never was (one query: it runs on every request)."""
    user_id, _, key = str(session_id or "").partition(":")
    user_uuid = _uuid_or_none(user_id)
    if user_uuid is None or not key:
        return None
    user = db.session.scalar(
        _LIVE_SIGN_IN, {"user_id": user_uuid, "key_digest": _digest(key), "now": now or datetime.now(UTC)}
    )
    if user is not None:
        user.session_key = key
    return user


def end_session(user):
    """Sign out this sign-in: its session cookie and remember-me cookie stop working everywhere."""
    if user.session_key:
        db.session.execute(db.delete(UserSession).where(UserSession.id == _digest(user.session_key)))
        db.session.commit()
        events.signed_out(user.id, _digest(user.session_key))


def end_all_sessions(user):
    """Sign out every browser and remember-me cookie of the user, this one included."""
    _end_sessions(user)
    db.session.commit()
    events.signed_out(user.id)


def _end_sessions(user):
    db.session.execute(db.delete(UserSession).where(UserSession.user_id == user.id))


# Password reset ------------------------------------------------------------------------


def _reset_serializer():
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt="password-reset")


def reset_token_for(user):
    """A signed token that expires after PASSWORD_RESET_MAX_AGE and dies once used.

    It carries the user's session version, which a reset bumps: so a token works once, and
    every session signed in with the old password ends with it.
    """
    return _reset_serializer().dumps({"user": str(user.id), "version": user.session_version})


def user_for_reset_token(token):
    try:
        data = _reset_serializer().loads(token, max_age=current_app.config["PASSWORD_RESET_MAX_AGE"])
    except SignatureExpired:
        raise Invalid("RESET_LINK_EXPIRED") from None
    except BadSignature:
        raise Invalid("RESET_LINK_INVALID") from None
    user_id = _uuid_or_none(data.get("user"))
    user = db.session.get(User, user_id) if user_id else None
    if user is None or user.session_version != data.get("version"):
        raise Invalid("RESET_LINK_INVALID")
    return user


def reset_password(token, new_password):
    user = user_for_reset_token(token)
    problems = {}
    _check_password(new_password, problems)
    if problems:
        raise Invalid("INVALID_INPUT", details=problems)
    user.password_hash = _hasher().hash(new_password)
    user.session_version += 1
    _end_sessions(user)  # whoever knew the old password is signed out everywhere
    db.session.commit()
    events.signed_out(user.id)
    return user


def find_by_email(email):
    return db.session.scalar(db.select(User).where(User.email == normalise_email(email)))


def _uuid_or_none(value):
    try:
        return uuid.UUID(str(value))
    except (TypeError, ValueError):
        return None


# Administration ------------------------------------------------------------------------


def make_admin(email):
    user = find_by_email(email)
    if user is None:
        raise NotFound()
    user.is_admin = True
    db.session.commit()
    return user


def ensure_demo_account(email, password, name="Demo"):
    """The demo account, created once; running it again changes nothing. Returns (user, created)."""
    user = find_by_email(email)
    if user is not None:
        return user, False
    return register(name=name, email=email, password=password, language="en", timezone_name="UTC"), True
