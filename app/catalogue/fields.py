"""The rules categories, habits, tasks and goals share: 1–5 scales, starting experience,
category links, and the field tables each entity declares.

An entity's field table maps each field to one of the cleaners below, all called the same way:
`cleaner(user, value, problems, field)` -> the clean value. The rules every domain shares (names,
notes, partial edits, finding a row by name) are app/shared/fields.py.
"""

import uuid

from app.categories.models import Category
from app.extensions import db
from app.shared import icons
from app.shared.errors import NotFound
from app.shared.fields import as_uuid, clean_name, clean_note, given, resolve_named
from app.shared.progress import level_threshold

# The level a new category or habit starts at, by how experienced the person already is.
EXPERIENCE_LEVELS = {"BEGINNER": 0, "INTERMEDIATE": 5, "ADVANCED": 8}


def clean_scale(value, problems, field):
    """Importance or difficulty: a whole number from 1 to 5."""
    text = str(value).strip()
    number = int(text) if text in ("1", "2", "3", "4", "5") else None
    if number is None or isinstance(value, bool):
        problems[field] = "SCALE_INVALID"
        return None
    return number


def starting_xp(experience, problems, field="experience"):
    """The XP at the threshold of the starting level (BEGINNER 0, INTERMEDIATE 5, ADVANCED 8).

    It is a baseline, not a gain: it is written as the total and not recorded as a day's XP, so
    "best area this week" is not won by whoever called themselves advanced.
    """
    key = str(experience or "BEGINNER").strip().upper()
    if key == "INTERMEDIARY":  # the original clients' spelling
        key = "INTERMEDIATE"
    if key not in EXPERIENCE_LEVELS:
        problems[field] = "EXPERIENCE_INVALID"
        return 0.0
    return float(level_threshold(EXPERIENCE_LEVELS[key]))


def owned_categories(user, refs, problems, field="categories"):
    """The user's categories named by `refs` (ids or exact names), duplicates dropped; none is fine.

    A ref that is unknown, malformed or another user's is recorded as CATEGORY_NOT_FOUND; a name
    two categories share raises CATEGORY_AMBIGUOUS at once, its message listing the candidates.
    """
    if isinstance(refs, str | uuid.UUID):
        refs = [refs]
    found = {}
    for ref in refs or ():
        if ref in (None, ""):
            continue
        try:
            category = resolve_named(
                Category, user, ref, not_found="CATEGORY_NOT_FOUND", ambiguous="CATEGORY_AMBIGUOUS"
            )
        except NotFound as refusal:
            problems[field] = refusal.key
            return []
        found[category.id] = category
    return list(found.values())


def name(user, value, problems, field):
    return clean_name(value, problems, field)


def note(user, value, problems, field):
    return clean_note(value, problems, field)


def icon(user, value, problems, field):
    """Any text: an icon the catalogue does not know falls back to its default."""
    return icons.resolve(value)


def scale(user, value, problems, field):
    return clean_scale(value, problems, field)


def flag(user, value, problems, field):
    return bool(value)


def any_categories(user, value, problems, field):
    """None or more of the user's categories."""
    return owned_categories(user, value, problems, field=field)


def declared(fields, values):
    """A field the table does not declare is the caller's mistake, not the user's."""
    unknown = values.keys() - fields.keys()
    if unknown:
        raise TypeError(f"no such field: {', '.join(sorted(unknown))}")


def cleaned(user, fields, values, problems):
    """`values` (field -> what was sent) through the cleaners of the field table `fields`;
    fields left UNSET are left out."""
    declared(fields, values)
    return {field: fields[field](user, value, problems, field) for field, value in values.items() if given(value)}


def apply(row, changes):
    """Write validated `changes` (field -> value) onto `row`."""
    for name, value in changes.items():
        setattr(row, name, value)


def category_filter(model, link_table, owner_column, category_ref, user, statement):
    """Narrow `statement` to rows tagged with the category `category_ref` (an id); unknown: none."""
    if not category_ref:
        return statement
    category_id = as_uuid(category_ref)
    owned = db.select(Category.id).where(Category.id == category_id, Category.user_id == user.id)
    linked = db.select(link_table.c[owner_column]).where(link_table.c.category_id.in_(owned))
    return statement.where(model.id.in_(linked))


def item_sorts(model):
    """The sorts every list of habits or tasks offers (name, importance, difficulty, age)."""
    return {
        "default": [model.created_at],
        "name": [db.func.lower(model.name)],
        "name_desc": [db.func.lower(model.name).desc()],
        "importance": [model.importance],
        "importance_desc": [model.importance.desc()],
        "difficulty": [model.difficulty],
        "difficulty_desc": [model.difficulty.desc()],
        "newest": [model.created_at.desc()],
        "oldest": [model.created_at],
    }
