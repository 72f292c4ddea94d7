"""The Ideas board: sticky notes in the person's own words, each in one cell of a fixed grid."""

from flask_babel import lazy_gettext as _l

from app.domains import Area, Domain

DOMAIN = Domain(
    "ideas",
    Area(_l("Ideas"), "zap", "ideas.index", in_bottom_bar=False),
    export={"ideas": ("quick_notes",)},
    ids={"note_id": "quick_notes"},
    errors={
        "IDEA_NOT_FOUND": _l("We couldn't find that note. It may have been deleted."),
        "IDEA_TEXT_REQUIRED": _l("Write something on the note."),
        "IDEA_TOO_LONG": _l("A note holds at most 500 characters. Shorten it and save again."),
        "IDEA_COLOUR_INVALID": _l("Choose one of the board's colours."),
        "IDEA_BOARD_FULL": _l("The board is full: all %(cells)s places hold a note. Archive a few notes to make room."),
        "IDEA_CELL_INVALID": _l("Choose a place on the board."),
        "IDEA_CELL_TAKEN": _l("A note is already in that place. Choose another place, or the first free one."),
        "IDEA_ARCHIVED": _l("This note is archived. Restore it to the board first."),
        "IDEA_BOARD_CHANGED": _l("The board changed while you were moving this note. Try again."),
        "IDEA_TOO_SHORT_FOR_TASK": _l("A task's name needs at least 2 characters. Add a word to the note first."),
    },
    catalogue=("Ideas board",),
    toolset="sticky notes on the Ideas board: list, create",
)
