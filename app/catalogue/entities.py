"""What the catalogue entities (categories, habits, tasks, goals) do alike, driven by what each
one declares: its model, the domain a write announces, its refusal keys and its field table.

Habits and tasks are also routine items: listed with a search, a category filter and a sort,
held by routines (which refuses their deletion), and deleted with their day history. Each
entity's own module holds its declaration and whatever rule is its alone.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import selectinload

from app.catalogue.fields import apply, category_filter, cleaned, declared
from app.categories.models import Category
from app.events import announce
from app.extensions import db
from app.routines import services as routines
from app.shared.errors import Conflict
from app.shared.fields import refuse_if, resolve_named, search_filter, sorted_by


@dataclass(frozen=True)
class Entity:
    model: type
    domain: str  # what every write announces
    fields: dict[str, Callable]  # field -> cleaner (app.shared.fields)
    not_found: str
    ambiguous: str
    defaults: dict[str, Any] = field(default_factory=dict)  # a field's value when a create leaves it out
    substring: bool = False  # a piece of a name only one row has also finds it
    prefer: Callable | None = None  # breaks a tie between rows of the same name

    def resolve(self, user, ref):
        """The user's row by id or exact name (any letter case); an unknown id and another
        user's id are the same `not_found`; a name several rows share is refused with
        `ambiguous`, listing the candidates."""
        return resolve_named(
            self.model,
            user,
            ref,
            not_found=self.not_found,
            ambiguous=self.ambiguous,
            substring=self.substring,
            prefer=self.prefer,
        )

    def clean_all(self, user, values, problems):
        """Every declared field cleaned, a field left out taking its default (or None)."""
        declared(self.fields, values)
        every = {name: values.get(name, self.defaults.get(name)) for name in self.fields}
        return cleaned(user, self.fields, every, problems)

    def create(self, user, values, problems=None, **settled):
        """A new row from `values` (field -> what was sent) and `settled` (values already
        checked, e.g. the starting XP); every bad field is reported in one refusal."""
        problems = {} if problems is None else problems
        row = self.model(user_id=user.id, **self.clean_all(user, values, problems), **settled)
        refuse_if(problems)
        db.session.add(row)
        db.session.commit()
        announce(user, self.domain)
        return row

    def edit(self, user, ref, changes, follows=None):
        """A partial edit: only the fields given change. `follows(row, clean changes)` returns
        what else changes with them (already clean)."""
        row = self.resolve(user, ref)
        problems = {}
        clean = cleaned(user, self.fields, changes, problems)
        refuse_if(problems)
        apply(row, {**clean, **(follows(row, clean) if follows else {})})
        db.session.commit()
        announce(user, self.domain)
        return row


@dataclass(frozen=True)
class RoutineItem(Entity):
    """A habit or a task: something a routine holds and a day checks."""

    sorts: dict = field(default_factory=dict)  # sort name -> order clauses
    category_link: Any = None  # the table tagging it with categories
    category_column: str = ""  # that table's column naming the item
    entry_column: Any = None  # RoutineEntry's column naming the item
    in_routine: str = ""  # the refusal key while a routine holds it
    history: tuple = ()  # history models (owner_type, owner_id) deleted with it
    owner_type: Any = None

    def listing(self, user, *, search=None, sort="default", category=None, window=None):
        """The user's items: `search` in name or description, `category` a category id, `sort` a
        name from `sorts` (unknown: the default). `window` (offset, limit) reads one page."""
        statement = self._filtered(user, search, category).options(selectinload(self.model.categories))
        statement = sorted_by(self.model, sort, self.sorts, statement)
        if window is not None:
            offset, limit = window
            statement = statement.offset(offset).limit(limit)
        return db.session.scalars(statement).all()

    def count(self, user, *, search=None, category=None):
        """How many items `listing` would find with these filters."""
        found = self._filtered(user, search, category).with_only_columns(db.func.count(self.model.id))
        return db.session.scalar(found)

    def _filtered(self, user, search, category):
        statement = db.select(self.model).where(self.model.user_id == user.id)
        statement = search_filter(self.model, search, statement)
        return category_filter(self.model, self.category_link, self.category_column, category, user, statement)

    def categories_in_use(self, user):
        """The user's categories, by name, that tag at least one of the user's items: what the
        list's category filter offers (without loading what each category tags)."""
        link = self.category_link
        tagging = (
            db.select(link.c.category_id)
            .join(self.model, self.model.id == link.c[self.category_column])
            .where(self.model.user_id == user.id)
        )
        return db.session.scalars(
            db.select(Category)
            .where(Category.user_id == user.id, Category.id.in_(tagging))
            .order_by(db.func.lower(Category.name), Category.id)
        ).all()

    def routines_using(self, user):
        """item id -> the routines (names, once each) that hold it."""
        return routines.names_by_item(user, self.entry_column)

    def deletion_refusal(self, user, ref):
        """Why the item cannot be deleted now (`in_routine`, naming the routines that hold it), or
        None: the delete dialog says so before offering to delete."""
        item = self.resolve(user, ref)
        holding = routines.names_by_item(user, self.entry_column).get(item.id)
        return Conflict(self.in_routine, routines=", ".join(holding)) if holding else None

    def delete(self, user, ref):
        """Delete the item with its history; refused while a routine holds it."""
        item = self.resolve(user, ref)
        refusal = self.deletion_refusal(user, item.id)
        if refusal is not None:
            raise refusal
        for history in self.history:
            db.session.execute(
                db.delete(history).where(history.owner_type == self.owner_type, history.owner_id == item.id)
            )
        db.session.delete(item)
        db.session.commit()
        announce(user, self.domain)


def category_refs(row):
    """The categories a row is tagged with, as the data every representation shows."""
    return [{"id": str(category.id), "name": category.name} for category in row.categories]


def iso(value):
    return value.isoformat() if value is not None else None


def progress_data(row):
    """XP and level of a row that earns XP (categories, habits)."""
    return {"xp": row.xp or 0.0, "level": row.level, "level_xp": row.level_xp, "next_level_xp": row.next_level_xp}


def streak_data(row):
    """The streak figures of a row that is checked (habits, tasks)."""
    return {
        "current_streak": row.current_streak or 0,
        "best_streak": row.best_streak or 0,
        "total_check_ins": row.total_check_ins or 0,
        "first_check_in": iso(row.first_check_in),
        "last_check_in": iso(row.last_check_in),
    }
