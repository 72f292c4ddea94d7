"""The Ideas board's two tools: stick a note on the board, read the board. Moving, recolouring,
archiving, deleting and turning a note into a task happen on the board itself (/ideas)."""

from flask_babel import lazy_gettext as _l
from pydantic import BaseModel, Field

from app.agent.registry import tool
from app.agent.views import capped
from app.ideas import services as ideas
from app.ideas.models import CELLS, COLUMNS, PALETTE, ROWS, TEXT_MAX


class QuickNoteNew(BaseModel):
    text: str = Field(description=f"The person's own words, as they said them (1–{TEXT_MAX} characters).")
    colour: str | None = Field(
        None, description=f"Optional, one of: {', '.join(PALETTE)} (any letter case). Left out: {PALETTE[0]}."
    )
    row: int | None = Field(
        None, ge=1, le=ROWS, description=f"Optional, with column: the place the person named (1–{ROWS}, top first)."
    )
    column: int | None = Field(
        None, ge=1, le=COLUMNS, description=f"Optional, with row: the place's column (1–{COLUMNS}, left first)."
    )

    def cell(self):
        """The board's cell for the row and column named; None (the first free place) without both."""
        if self.row is None or self.column is None:
            return None
        return (self.row - 1) * COLUMNS + self.column - 1


def _seen(note):
    return {"id": str(note.id), "text": note.text, "colour": note.colour}


@tool(domain="ideas", kind="write", label=_l("Added a note to your Ideas board"), page="/ideas", args=QuickNoteNew,
      description=f"Stick a note on the person's Ideas board, in their own words, for a raw thought they want to keep "
      f"(something they intend to do is a task instead: createUserTask). It takes the first free place of the "
      f"{CELLS}-place board ({ROWS} rows of {COLUMNS}), or the row and column the person named; a place that "
      "holds a note is refused: ask for another. A full board is refused: suggest archiving some notes on the "
      "board (/ideas). Returns the new note's id.")  # fmt: skip
def createQuickNote(ctx, args):
    return _seen(ideas.create(ctx.user, args.text, args.colour, args.cell()))


@tool(domain="ideas", kind="read", label=_l("Read your Ideas board"))
def getQuickNotes(ctx, args):
    """The notes on the person's Ideas board (id, text, colour), newest first; archived notes are
    left out."""
    return capped(ideas.newest_first(ctx.user), _seen)
