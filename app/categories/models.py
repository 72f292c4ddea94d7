"""Categories: the areas of life habits, tasks and goals are tagged with."""

from sqlalchemy import Column, ForeignKey, String, Table, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.shared.models import Owned
from app.shared.progress import HasXp


class Category(Owned, HasXp, db.Model):
    __tablename__ = "categories"

    name: Mapped[str] = mapped_column(String(256))
    description: Mapped[str | None] = mapped_column(String(256))
    icon: Mapped[str] = mapped_column(String(64))


def category_link_table(name, owner_column, owner_table):
    """The many-to-many table between `owner_table` and categories.

    A category in use cannot be deleted (the service refuses with CATEGORY_IN_USE first; the
    foreign key is the last line of defence).
    """
    return Table(
        name,
        db.metadata,
        Column(owner_column, Uuid, ForeignKey(f"{owner_table}.id", ondelete="CASCADE"), primary_key=True),
        Column("category_id", Uuid, ForeignKey("categories.id", ondelete="RESTRICT"), primary_key=True, index=True),
    )
