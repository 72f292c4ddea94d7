"""Configuration: the profile and settings, the data export, and deleting the account.

Deleting an account asks for the password and a typed word: "DELETE" for an English account,
"EXCLUIR" for a Portuguese one (the word in the account's language, exactly, spaces around it
ignored). The session proves who is at the keyboard; the password proves it is the owner; the
word proves they mean it. No emailed code: the app can run without mail configured.
"""

import zoneinfo
from datetime import UTC, datetime
from functools import cache

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from app import domains
from app.events import announce, signed_out
from app.extensions import db
from app.models import (
    Category,
    Chat,
    ConstanceMode,
    DayOutcome,
    EntryCheck,
    Feedback,
    Goal,
    Habit,
    MicroTask,
    PinnedStep,
    Routine,
    ScheduleDay,
    Task,
    TimerCycle,
    User,
    XpDay,
    XpDecay,
)
from app.models.mood import MoodEntry
from app.models.study_sources import StudySource
from app.models.study_tutor import StudyTutorExchange
from app.services import (
    categories,
    focus,
    goals,
    habits,
    ideas,
    notebook,
    routines,
    study_board,
    study_cycles,
    study_sources,
    study_tutor,
    tasks,
    widgets,
)
from app.services.catalogue import progress_data, streak_data
from app.services.entity_fields import clean_name, clean_note, refuse_if
from app.services.errors import Invalid

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


# Export --------------------------------------------------------------------------------
# One small function per section, `export_<section>`; a domain names its sections in app/domains.py.


def _iso(value):
    return value.isoformat() if value is not None else None


def _owned(model, user, *order):
    return db.session.scalars(db.select(model).where(model.user_id == user.id).order_by(*order, model.id)).all()


def export_profile(user):
    """The account as `settings` reads it, with what only the export carries (never the password
    hash or session data)."""
    return {
        "id": str(user.id),
        **settings(user),
        "created_at": _iso(user.created_at),
        "max_constance": user.max_constance or 0,
        # What the assistant has noted about the person: an inference about someone is their data.
        "assistant_note": user.assistant_note,
        "progress": progress_data(user),
        "streak": streak_data(user),
    }


def export_categories(user):
    return [categories.as_data(category) for category in _owned(Category, user, Category.created_at)]


def export_habits(user):
    return [habits.as_data(habit) for habit in _owned(Habit, user, Habit.created_at)]


def export_tasks(user):
    return [tasks.as_data(task) for task in _owned(Task, user, Task.created_at)]


def export_goals(user):
    return [goals.as_data(goal) for goal in _owned(Goal, user, Goal.created_at)]


def export_routines(user):
    """Routines as `routines.describe` reads them: sections, entries and weekdays."""
    return [routines.describe(routine) for routine in _owned(Routine, user, Routine.created_at)]


def export_schedule(user):
    """weekday (0 = Monday) -> routine id."""
    return {str(day.weekday): str(day.routine_id) for day in _owned(ScheduleDay, user, ScheduleDay.weekday)}


def export_day_outcomes(user):
    return [
        {
            "owner_type": str(row.owner_type),
            "owner_id": str(row.owner_id),
            "day": _iso(row.day),
            "outcome": str(row.outcome),
        }
        for row in _owned(DayOutcome, user, DayOutcome.day)
    ]


def export_xp_days(user):
    return [
        {"owner_type": str(row.owner_type), "owner_id": str(row.owner_id), "day": _iso(row.day), "xp": row.xp}
        for row in _owned(XpDay, user, XpDay.day)
    ]


def export_feedback(user):
    """What the user sent (the triage state is internal and left out)."""
    return [
        {
            "id": str(row.id),
            "kind": str(row.kind),
            "text": row.text,
            "page": row.page,
            "created_at": _iso(row.created_at),
        }
        for row in _owned(Feedback, user, Feedback.created_at)
    ]


def export_entry_checks(user):
    """Each routine entry's day: checked or skipped, the XP it paid, and the facts frozen for it."""
    return [
        {
            "day": _iso(row.day),
            "entry_id": str(row.entry_id),
            "routine_id": str(row.routine_id),
            "routine_name": row.routine_name,
            "section_name": row.section_name,
            "item_type": str(row.item_type),
            "item_id": str(row.item_id),
            "item_name": row.item_name,
            "difficulty": row.difficulty,
            "importance": row.importance,
            "starts_at": _iso(row.starts_at),
            "ends_at": _iso(row.ends_at),
            "checked": row.checked,
            "skipped": row.skipped,
            "checked_at": _iso(row.checked_at),
            "xp": row.xp,
        }
        for row in _owned(EntryCheck, user, EntryCheck.day, EntryCheck.section_position, EntryCheck.position)
    ]


def export_focus(user):
    """Focus mode: each day's steps of each routine entry, the names pinned to entries, and the
    timer cycles completed (a cycle whose entry was deleted keeps its day, kind and minutes)."""
    return {
        "micro_tasks": [
            {
                "id": str(row.id),
                "entry_id": str(row.entry_id),
                "day": _iso(row.day),
                "text": row.text,
                "done": row.done,
                "position": row.position,
            }
            for row in _owned(MicroTask, user, MicroTask.day, MicroTask.entry_id, MicroTask.position)
        ],
        "pinned_steps": [
            {"entry_id": str(row.entry_id), "name": row.name, "pinned_at": _iso(row.created_at)}
            for row in _owned(PinnedStep, user, PinnedStep.entry_id, PinnedStep.created_at)
        ],
        "timer_cycles": [
            {
                "cycle_id": str(row.cycle_id),
                "entry_id": str(row.entry_id) if row.entry_id else None,
                "day": _iso(row.day),
                "kind": str(row.kind),
                "minutes": row.minutes,
                "completed_at": _iso(row.completed_at),
            }
            for row in _owned(TimerCycle, user, TimerCycle.completed_at)
        ],
    }


def export_assistant(user):
    """What the assistant remembers: its note about the person and every conversation."""
    chats = db.session.scalars(db.select(Chat).where(Chat.user_id == user.id).order_by(Chat.created_at)).all()
    return {
        "notes_about_you": user.assistant_note,
        "chats": [
            {
                "id": str(chat.id),
                "title": chat.title,
                "created_at": _iso(chat.created_at),
                "last_activity_at": _iso(chat.last_activity_at),
                "notes_about_this_chat": chat.note,
                "messages": [
                    {
                        "role": str(message.role),
                        "segments": message.segments,
                        "ending": _enum(message.ending),
                        "answered_by": message.link,
                        "created_at": _iso(message.created_at),
                    }
                    for message in chat.messages
                ],
            }
            for chat in chats
        ],
    }


def export_mood(user):
    """Each logged day with its journal: the export is the owner's own download, going to them and
    not to a model, so it carries the words the assistant and every prompt never see."""
    return [
        {"date": _iso(row.day), "level": row.level, "journal": row.journal, "updated_at": _iso(row.updated_at)}
        for row in _owned(MoodEntry, user, MoodEntry.day)
    ]


def export_ideas(user):
    """Every note of the Ideas board, archived ones included."""
    return [ideas.as_data(note) for note in ideas.every_note(user)]


def export_notebook(user):
    """The notebook's topics, each with its pages."""
    return [
        {"id": str(topic.id), "name": topic.name, "pages": [notebook.page_data(page) for page in topic.pages]}
        for topic in notebook.topics(user)
    ]


def export_notebook_blocks(user):
    """Every page's blocks in page order: notes, diagrams, and cards with their review schedule."""
    return [
        notebook.block_data(block) for topic in notebook.topics(user) for page in topic.pages for block in page.blocks
    ]


def export_study_board(user):
    """Each page's board that holds a concept: the concepts in order, each with what it leads to."""
    return [board.as_data() for board in study_board.every_board(user)]


def export_notebook_sources(user):
    """Every page's sources with their whole text (the passages are cut from it)."""
    rows = db.session.scalars(
        db.select(StudySource)
        .where(StudySource.user_id == user.id)
        .order_by(StudySource.page_id, StudySource.created_at, StudySource.id)
    ).all()
    return [study_sources.source_data(source) for source in rows]


def export_study_tutor(user):
    """Every question asked of the tutor on a notebook page, with its answer and what it cited."""
    return [
        study_tutor.exchange_data(exchange)
        for exchange in db.session.scalars(
            db.select(StudyTutorExchange)
            .where(StudyTutorExchange.user_id == user.id)
            .order_by(StudyTutorExchange.page_id, StudyTutorExchange.created_at, StudyTutorExchange.id)
        )
    ]


def export_study_cycles(user):
    """Every study cycle (archived too): its configuration, its blocks and each lap with its credits."""
    return [
        {
            **study_cycles.cycle_data(cycle),
            "laps": [
                {
                    "number": lap.number,
                    "startedAt": _iso(lap.started_at),
                    "finishedAt": _iso(lap.finished_at),
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


def _enum(value):
    return str(value) if value is not None else None


EXPORT_SECTIONS = {section: globals()[f"export_{section}"] for domain in domains.DOMAINS for section in domain.export}
"""Each domain's export sections, as its declaration names them (app/domains.py), in that order."""


def export(user, now=None):
    """Everything the user owns as one JSON-ready dict, one key per EXPORT_SECTIONS entry."""
    data = {"exported_at": (now or datetime.now(UTC)).isoformat()}
    for name, section in EXPORT_SECTIONS.items():
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
