"""Rules for what people type that every domain shares: names and short notes, the "not given"
of a partial edit, ids as UUIDs, finding a row by id or by the name a person (or the model) uses,
and a search and a sort over a listing.

Checks collect into a `problems` dict (field -> key) so one refusal reports every bad field.
"""

import uuid

from app.extensions import db
from app.shared.errors import Invalid, NotFound

NAME_MIN, NAME_MAX = 2, 256


NOTE_MAX = 256


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


def sorted_by(model, sort, orders, statement):
    """Apply the named sort from `orders` (name -> list of order clauses); unknown names: default."""
    return statement.order_by(*orders.get(sort or "default", orders["default"]), model.id)
