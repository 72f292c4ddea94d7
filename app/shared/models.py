"""What every domain's models build on: the owned row, the clock its columns read, an upsert, and
Alembic's filter for the DDL a model makes by hand."""

import uuid
from datetime import UTC, datetime

from sqlalchemy import DateTime, ForeignKey, Uuid
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Mapped, declared_attr, mapped_column

from app.extensions import db


def utcnow():
    return datetime.now(UTC)


class Owned:
    """A row that belongs to one user: a UUID id, the owner, and when it was made and changed."""

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    # False where the table's unique key starts with the owner: that key's index answers every
    # lookup by owner, and an index on the owner alone would only cost each write.
    owner_indexed = True

    @declared_attr
    def user_id(cls) -> Mapped[uuid.UUID]:
        return mapped_column(Uuid, ForeignKey("users.id", ondelete="CASCADE"), index=cls.owner_indexed)

    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)


def upsert(table, rows, key, changes):
    """Insert `rows` into `table`, or where a row with the same `key` columns exists, apply
    `changes(excluded)` to it: one statement, and no lost update when two requests race."""
    dialect = db.session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = insert(table)
    statement = statement.on_conflict_do_update(index_elements=list(key), set_=changes(statement.excluded))
    db.session.execute(statement, rows)


def include_object(_object, name, kind, _reflected, _compare_to):
    """Alembic's filter: leave out the objects a model declares as hand-made DDL (full-text
    indexes the ORM cannot describe, app/notebook/models/sources.py), which its migration makes."""
    return (kind, name) not in db.metadata.info.get("hand_made", ())
