"""The rules categories, habits, tasks and goals share: names and notes, 1–5 scales, starting
experience, category links, and finding a thing by id or by the name a person (or the model) uses.

Checks collect into a `problems` dict (field -> key) so one refusal reports every bad field.
An entity's field table maps each field to one of the cleaners below, all called the same way:
`cleaner(user, value, problems, field)` -> the clean value.
"""

import uuid

from app.extensions import db
from app.models import Category
from app.models.progress import level_threshold
from app.services import icons
from app.services.errors import Invalid, NotFound

NAME_MIN, NAME_MAX = 2, 256
NOTE_MAX = 256

# The level a new category or habit starts at, by how experienced the person already is.
EXPERIENCE_LEVELS = {"BEGINNER": 0, "INTERMEDIATE": 5, "ADVANCED": 8}


class Unset:
    """The default of a partial edit's arguments: "not given, keep what is there"."""

    def __repr__(self):
        return "UNSET"


UNSET = Unset()


def given(value):
    return value is not UNSET


def clean_name(value, problems, field="name"):
    name = " ".join(str(value or "").split())
    if not NAME_MIN <= len(name) <= NAME_MAX:
        problems[field] = "NAME_INVALID"
    return name


def clean_note(value, problems, field, limit=NOTE_MAX):
    """An optional short text: blank becomes None, over `limit` characters is refused."""
    text = str(value or "").strip()
    if len(text) > limit:
        problems[field] = "TEXT_TOO_LONG"
    return text or None


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


def owned_categories(user, refs, problems, *, required, field="categories"):
    """The user's categories named by `refs` (ids or exact names), duplicates dropped.

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
    if required and not found:
        problems[field] = "CATEGORIES_REQUIRED"
    return list(found.values())


# The cleaners a field table names ------------------------------------------------------------


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


def some_categories(user, value, problems, field):
    """At least one of the user's categories."""
    return owned_categories(user, value, problems, required=True, field=field)


def any_categories(user, value, problems, field):
    """None or more of the user's categories."""
    return owned_categories(user, value, problems, required=False, field=field)


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


def refuse_if(problems):
    if problems:
        raise Invalid("INVALID_INPUT", details=problems)


def as_uuid(ref):
    if isinstance(ref, uuid.UUID):
        return ref
    try:
        return uuid.UUID(str(ref).strip())
    except (TypeError, ValueError, AttributeError):
        return None


def describe_candidates(rows):
    return "; ".join(f"{row.name} (id {row.id})" for row in rows)


def resolve_named(model, user, ref, *, not_found, ambiguous, substring=False, prefer=None):
    """The user's `model` row named by `ref`: its id, its exact name (any letter case), or —
    with `substring` — the one row whose name contains `ref`.

    Several rows matching refuse with the `ambiguous` key, the candidates' names and ids in the
    message, so whoever asked can pick one. `prefer` (a row predicate) breaks a tie first — goals
    use it to prefer active goals over archived ones.
    """
    row_id = as_uuid(ref)
    if row_id is not None:
        row = db.session.scalar(db.select(model).where(model.id == row_id, model.user_id == user.id))
        if row is None:
            raise NotFound(not_found)
        return row
    text = " ".join(str(ref or "").split())
    if not text:
        raise NotFound(not_found)
    rows = db.session.scalars(db.select(model).where(model.user_id == user.id).order_by(model.name)).all()
    lowered = text.casefold()
    matches = [row for row in rows if row.name.casefold() == lowered]
    if not matches and substring:
        matches = [row for row in rows if lowered in row.name.casefold()]
    if len(matches) > 1 and prefer is not None:
        matches = [row for row in matches if prefer(row)] or matches
    if not matches:
        raise NotFound(not_found)
    if len(matches) > 1:
        raise Invalid(ambiguous, ref=text, candidates=describe_candidates(matches))
    return matches[0]


def search_filter(model, query, statement):
    """Narrow `statement` to rows whose name or description contains `query` (any case)."""
    text = (query or "").strip()
    if not text:
        return statement
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    pattern = f"%{escaped}%"
    return statement.where(
        db.or_(model.name.ilike(pattern, escape="\\"), model.description.ilike(pattern, escape="\\"))
    )


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


def sorted_by(model, sort, orders, statement):
    """Apply the named sort from `orders` (name -> list of order clauses); unknown names: default."""
    return statement.order_by(*orders.get(sort or "default", orders["default"]), model.id)
