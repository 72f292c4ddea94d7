"""Column helpers shared by the domain models."""

import uuid
from datetime import UTC, datetime

from sqlalchemy import DateTime, ForeignKey, Uuid
from sqlalchemy.orm import Mapped, declared_attr, mapped_column


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
