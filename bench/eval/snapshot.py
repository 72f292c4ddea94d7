"""Every row a user owns, read from the tables themselves, and what changed between two reads.

Ownership comes from the schema, not from a list: a row is the user's when its table has a
`user_id` naming them (or it is their `users` row), or when a foreign key of it points at a row
of theirs (a routine's sections and entries, a habit's category links, a cycle's blocks…),
followed in the metadata's dependency order. A table a new domain adds is covered the day it
exists. Values are read as JSON-like data (ids and dates as text, enums as their values), so a
snapshot can be compared, printed and written to the results file.
"""

from __future__ import annotations

import datetime as dt
import decimal
import enum
import uuid
from dataclasses import dataclass, field

from app.extensions import db

# Written on every write, by the ORM: a change there alone is no change.
CLOCK_COLUMNS = {"updated_at"}


def plain(value):
    """A column value as JSON-like data."""
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, bytes | memoryview):
        return bytes(value).hex()
    return value


Snapshot = dict  # table name -> {row key -> {column -> value}}


def owned_rows(user_id) -> Snapshot:
    """Every row of every table that belongs to the user, by table and primary key."""
    user_id = uuid.UUID(str(user_id))
    snapshot: Snapshot = {}
    owned_keys: dict[str, set] = {}  # table -> the owned rows' single-column primary keys
    for table in db.metadata.sorted_tables:
        if table.name == "users":
            condition = table.c.id == user_id
        elif "user_id" in table.c:
            condition = table.c.user_id == user_id
        else:
            links = [
                column.in_(owned_keys[key.column.table.name])
                for column in table.c
                for key in column.foreign_keys
                if owned_keys.get(key.column.table.name)
            ]
            if not links:
                continue
            condition = db.or_(*links)
        rows = db.session.execute(db.select(table).where(condition)).mappings().all()
        key_columns = [column.name for column in table.primary_key.columns]
        found = {}
        for row in rows:
            found["/".join(str(plain(row[name])) for name in key_columns)] = {
                name: plain(value) for name, value in row.items()
            }
        if found:
            snapshot[table.name] = found
        if len(key_columns) == 1:
            owned_keys[table.name] = {row[key_columns[0]] for row in rows}
    db.session.rollback()  # a read only: no transaction left open over the turn
    return snapshot


@dataclass
class Change:
    """One row that is new, gone, or changed (its columns before and after)."""

    table: str
    key: str
    kind: str  # "created" | "deleted" | "changed"
    before: dict | None
    after: dict | None
    columns: tuple[str, ...] = ()  # the changed columns, for "changed"

    def describe(self, limit=4):
        row = self.after or self.before or {}
        label = next((str(row[name]) for name in NAME_COLUMNS if row.get(name)), self.key[:8])
        if self.kind != "changed":
            return f"{self.kind} {self.table} “{label}”"
        shown = ", ".join(f"{c}: {self.before[c]!r} → {self.after[c]!r}" for c in self.columns[:limit])
        more = f" (+{len(self.columns) - limit} more)" if len(self.columns) > limit else ""
        return f"changed {self.table} “{label}”: {shown}{more}"

    def as_data(self):
        return {"table": self.table, "kind": self.kind, "columns": list(self.columns), "row": self.describe()}


NAME_COLUMNS = ("name", "title", "text", "item_name", "tool", "summary", "weekday", "day")


@dataclass
class Diff:
    changes: list[Change] = field(default_factory=list)

    def of(self, table, kind=None):
        return [c for c in self.changes if c.table == table and (kind is None or c.kind == kind)]

    def __bool__(self):
        return bool(self.changes)


def diff(before: Snapshot, after: Snapshot) -> Diff:
    found = Diff()
    for table in sorted(set(before) | set(after)):
        old, new = before.get(table, {}), after.get(table, {})
        for key in old.keys() - new.keys():
            found.changes.append(Change(table, key, "deleted", old[key], None))
        for key in new.keys() - old.keys():
            found.changes.append(Change(table, key, "created", None, new[key]))
        for key in old.keys() & new.keys():
            columns = tuple(sorted(c for c in new[key] if c not in CLOCK_COLUMNS and old[key].get(c) != new[key][c]))
            if columns:
                found.changes.append(Change(table, key, "changed", old[key], new[key], columns))
    return found
