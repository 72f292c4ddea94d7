"""The Ideas board: sticky notes on a fixed grid, each in one cell, in the person's own words."""

from datetime import datetime

from sqlalchemy import DateTime, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.shared.models import Owned

COLUMNS, ROWS = 6, 8
CELLS = COLUMNS * ROWS
TEXT_MAX = 500
PALETTE = ("yellow", "pink", "green", "blue", "purple", "orange")  # stored in lower case


def place_of(cell):
    """A cell's (row, column), 1-based in reading order, as a person and a screen reader say it."""
    return cell // COLUMNS + 1, cell % COLUMNS + 1


class QuickNote(Owned, db.Model):
    """A note on the board. A live note holds a cell (0 … CELLS-1 in reading order); an archived
    note holds none, so the unique (owner, cell) pair is exactly "two live notes never share a
    cell" on every database (NULLs never collide)."""

    __tablename__ = "quick_notes"
    __table_args__ = (UniqueConstraint("user_id", "cell", name="one_live_note_per_cell"),)
    owner_indexed = False  # one_live_note_per_cell starts with the owner

    text: Mapped[str] = mapped_column(String(TEXT_MAX))
    colour: Mapped[str] = mapped_column(String(16))
    cell: Mapped[int | None] = mapped_column(Integer)
    archived_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    @property
    def archived(self):
        return self.archived_at is not None

    @property
    def row(self):
        """1-based, as a screen reader says it."""
        return place_of(self.cell)[0] if self.cell is not None else None

    @property
    def column(self):
        return place_of(self.cell)[1] if self.cell is not None else None
