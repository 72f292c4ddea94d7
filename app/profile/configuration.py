"""Configuration: the profile and settings, the data export, and deleting the account.

Deleting an account asks for the password and a typed word: "DELETE" for an English account,
"EXCLUIR" for a Portuguese one (the word in the account's language, exactly, spaces around it
ignored). The session proves who is at the keyboard; the password proves it is the owner; the
word proves they mean it. No emailed code: the app can run without mail configured.
"""

import zoneinfo
from datetime import UTC, datetime
from functools import cache
from importlib import import_module

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from app import domains
from app.events import announce, signed_out
from app.extensions import db
from app.focus import services as focus
from app.profile import widgets
from app.profile.models import ConstanceMode, User, XpDecay
from app.shared.errors import Invalid
from app.shared.fields import clean_name, clean_note, refuse_if

LANGUAGES = ("en", "pt")
THEMES = ("light", "dark", "system")
CONFIRMATION_WORDS = {"en": "DELETE", "pt": "EXCLUIR"}
SETTINGS = (
    "name",
    "phrase",
    "phrase_author",
    "theme",
    "language",
    "timezone",
    "constance_mode",
    "xp_decay",
    "widgets",
    "tutorial_done",
    "focus_work_minutes",
    "focus_break_minutes",
)


@cache
def _timezones():
    return frozenset(zoneinfo.available_timezones())


def timezones():
    """Every IANA zone the app accepts, sorted, for pickers."""
    return sorted(_timezones())


def settings(user):
    """What the configuration page and the assistant read: the profile and every setting."""
    return {
        "name": user.name,
        "email": user.email,
        "phrase": user.phrase,
        "phrase_author": user.phrase_author,
        "theme": user.theme,
        "language": user.language,
        "timezone": user.timezone,
        "constance_mode": str(user.constance_mode),
        "xp_decay": str(user.xp_decay),
        "widgets": list(user.widgets or []),
        "tutorial_done": bool(user.tutorial_done),
        "focus_work_minutes": user.focus_work_minutes,
        "focus_break_minutes": user.focus_break_minutes,
        "xp": user.xp or 0.0,
        "level": user.level,
        "next_level_xp": user.next_level_xp,
    }


def update(user, **changes):
    """Change only the settings given (see SETTINGS); the rest keep their values.

    Refuses the whole change, with one key per bad field, when any value is invalid: a name of
    2–256 characters, phrase and author ≤ 256, theme light|dark|system, language en|pt, an IANA
    time zone, constance mode ANY|COMPLETE, XP decay GRADUAL|FLAT|TIME_WINDOW, widgets as an
    ordered list of known ids without repeats, Focus mode's work 1–120 and break 1–60 minutes.
    """
    problems, values = {}, {}
    for name, value in changes.items():
        if name not in SETTINGS:
            problems[name] = "SETTING_UNKNOWN"
            continue
        values[name] = _CHECKS[name](value, problems, name)
    refuse_if(problems)
    for name, value in values.items():
        setattr(user, name, value)
    db.session.commit()
    announce(user, "profile")
    return settings(user)


def _choice(options, key):
    def check(value, problems, field):
        text = str(value or "").strip()
        match = next((option for option in options if option.lower() == text.lower()), None)
        if match is None:
            problems[field] = key
        return match

    return check


def _timezone(value, problems, field):
    zone = str(value or "").strip()
    if zone not in _timezones():
        problems[field] = "TIMEZONE_INVALID"
    return zone


def _widgets(value, problems, field):
    ids = [value] if isinstance(value, str) else list(value or [])
    if any(widget not in widgets.CATALOGUE for widget in ids):
        problems[field] = "WIDGET_UNKNOWN"
    elif len(set(ids)) != len(ids):
        problems[field] = "WIDGET_DUPLICATE"
    return ids


def _flag(value, _problems, _field):
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(value)


def _minutes(bounds, key):
    def check(value, problems, field):
        number = focus.minutes_from(value)
        if number is None or not bounds[0] <= number <= bounds[1]:
            problems[field] = key
        return number

    return check


_CHECKS = {
    "name": lambda value, problems, field: clean_name(value, problems, field),
    "phrase": clean_note,
    "phrase_author": clean_note,
    "theme": _choice(THEMES, "THEME_INVALID"),
    "language": _choice(LANGUAGES, "LANGUAGE_INVALID"),
    "timezone": _timezone,
    "constance_mode": _choice(tuple(ConstanceMode), "CONSTANCE_MODE_INVALID"),
    "xp_decay": _choice(tuple(XpDecay), "XP_DECAY_INVALID"),
    "widgets": _widgets,
    "tutorial_done": _flag,
    "focus_work_minutes": _minutes(focus.WORK_MINUTES, "FOCUS_WORK_MINUTES_INVALID"),
    "focus_break_minutes": _minutes(focus.BREAK_MINUTES, "FOCUS_BREAK_MINUTES_INVALID"),
}


# Export ----------------------------------------------------------------------------------------
# Each domain's package holds its part, one `export_<section>(user)` per section it declares, in its
# `export` module: a domain's export changes inside its own folder.


@cache
def export_sections():
    """Each domain's export sections, as its declaration names them, in the order of the domains."""
    found = {}
    for domain in domains.DOMAINS:
        if domain.export:
            module = import_module(f"{domain.package}.export")
            found.update({section: getattr(module, f"export_{section}") for section in domain.export})
    return found


def export(user, now=None):
    """Everything the user owns as one JSON-ready dict, one key per export section."""
    data = {"exported_at": (now or datetime.now(UTC)).isoformat()}
    for name, section in export_sections().items():
        data[name] = section(user)
    data["not_included"] = "Your password (stored only as a one-way hash) and your sign-in sessions."
    return data


# Account deletion ----------------------------------------------------------------------

_hasher = PasswordHasher()


def confirmation_word(user):
    """The word the user types to confirm deleting their account, in their language."""
    return CONFIRMATION_WORDS.get(user.language, CONFIRMATION_WORDS["en"])


def delete_account(user, password, confirmation):
    """Remove the account and every row it owns. Refused with PASSWORD_INCORRECT for a wrong
    password, or CONFIRMATION_MISMATCH unless `confirmation` is exactly `confirmation_word`."""
    problems = {}
    try:
        _hasher.verify(user.password_hash, password or "")
    except (VerificationError, InvalidHashError):
        problems["password"] = "PASSWORD_INCORRECT"
    if str(confirmation or "").strip() != confirmation_word(user):
        problems["confirmation"] = "CONFIRMATION_MISMATCH"
    if problems:
        raise Invalid("INVALID_INPUT", details=problems)
    user_id = user.id
    _remove_rows_of(user_id)
    db.session.execute(db.delete(User).where(User.id == user_id))
    db.session.commit()
    signed_out(user_id)


def _remove_rows_of(user_id):
    """Delete, children first, every row of every table that belongs to the user: tables with a
    `user_id`, and tables hanging off them (category links, routine sections and entries).

    Walking the metadata means a table added later is covered without touching this code, and
    the children-first order never trips a RESTRICT foreign key (a category still linked, a
    habit still in a routine).
    """
    owned = {table.name for table in db.metadata.tables.values() if "user_id" in table.c}
    for table in reversed(db.metadata.sorted_tables):
        if table.name in owned:
            db.session.execute(table.delete().where(table.c.user_id == user_id))
            continue
        for key in table.foreign_keys:
            parent = key.column.table
            if parent.name in owned:
                ids = db.select(parent.c.id).where(parent.c.user_id == user_id)
                db.session.execute(table.delete().where(key.parent.in_(ids)))
