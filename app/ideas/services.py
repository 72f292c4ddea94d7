"""The Ideas board: sticky notes in the person's own words, each in one cell of a fixed grid.

A new or restored note takes the first free cell in reading order, whoever adds it (the page or
the assistant). Two live notes never share a cell: the database's unique (owner, cell) pair
guarantees it, and a placement that loses a race to another request retries the next free cell.
"""

from sqlalchemy.exc import IntegrityError

from app.catalogue.entities import iso
from app.events import announce
from app.extensions import db
from app.ideas.models import CELLS, COLUMNS, PALETTE, TEXT_MAX, QuickNote
from app.shared.errors import Conflict, Invalid
from app.shared.fields import NAME_MAX, UNSET, given, refuse_if
from app.shared.models import utcnow
from app.shared.ownership import owned
from app.shared.values import whole_number_from
from app.tasks import services as tasks

DEFAULT_COLOUR = PALETTE[0]
# Arrow keys and the Move buttons: a step along the board, in cells of reading order.
STEPS = {"left": -1, "right": 1, "up": -COLUMNS, "down": COLUMNS}
# What a task made from a note starts as: a one-off, of medium importance and normal difficulty.
TASK_DEFAULTS = {"importance": 2, "difficulty": 2, "one_time": True, "icon": "check-square"}


def board(user):
    """The live notes, by cell (reading order)."""
    return _notes(user, QuickNote.cell.is_not(None), order=(QuickNote.cell,))


def newest_first(user):
    """The live notes, the newest first: what the assistant reads."""
    return _notes(user, QuickNote.cell.is_not(None), order=(QuickNote.created_at.desc(), QuickNote.id))


def archived(user):
    """The archived notes, the most recently archived first."""
    return _notes(user, QuickNote.cell.is_(None), order=(QuickNote.archived_at.desc(), QuickNote.id))


def every_note(user):
    """Every note, live and archived, oldest first: what the export writes."""
    return _notes(user, order=(QuickNote.created_at, QuickNote.id))


def _notes(user, *where, order):
    return db.session.scalars(db.select(QuickNote).where(QuickNote.user_id == user.id, *where).order_by(*order)).all()


def get(user, note_id):
    return owned(QuickNote, note_id, user, key="IDEA_NOT_FOUND")


def create(user, text, colour=None, cell=None):
    """Stick a note on the first free cell, or on `cell` when the person chose a place. `colour`
    is a palette name in any letter case (yellow when left out); a full board is refused with the
    suggestion to archive, a chosen place that holds a note with the suggestion to choose again."""
    problems = {}
    clean_text = _text(text, problems)
    clean_colour = _colour(colour, problems)
    chosen = _chosen_cell(cell, problems)
    refuse_if(problems)
    note = QuickNote(user_id=user.id, text=clean_text, colour=clean_colour)
    if chosen is None:
        return _placed(user, note, lambda: db.session.add(note))
    return _placed_at(user, note, chosen)


def edit(user, note_id, text=UNSET, colour=UNSET):
    """Change a live note's text, its colour, or both; what is not given stays."""
    note = _live(user, note_id)
    problems = {}
    changes = {}
    if given(text):
        changes["text"] = _text(text, problems)
    if given(colour):
        changes["colour"] = _colour(colour, problems)
    refuse_if(problems)
    for name, value in changes.items():
        setattr(note, name, value)
    db.session.commit()
    announce(user, "ideas")
    return note


def recolour(user, note_id, colour):
    return edit(user, note_id, colour=colour)


def move(user, note_id, cell):
    """Put a live note in `cell` (0 … CELLS-1); a note already there swaps places with it."""
    note = _live(user, note_id)
    target = _cell(cell)
    if target == note.cell:
        return note
    occupant = db.session.scalar(db.select(QuickNote).where(QuickNote.user_id == user.id, QuickNote.cell == target))
    origin = note.cell
    try:
        # One cell at a time, so no moment of the swap has two notes in a cell.
        note.cell = None
        db.session.flush()
        if occupant is not None:
            occupant.cell = origin
            db.session.flush()
        note.cell = target
        db.session.commit()
    except IntegrityError:
        db.session.rollback()
        raise Conflict("IDEA_BOARD_CHANGED") from None
    announce(user, "ideas")
    return note


def step(user, note_id, direction):
    """Move a live note one cell left, right, up or down (swapping with the note there); at the
    board's edge it stays where it is."""
    note = _live(user, note_id)
    if direction not in STEPS:
        raise Invalid("INVALID_INPUT", details={"direction": "IDEA_CELL_INVALID"})
    target = note.cell + STEPS[direction]
    crosses_row = direction in ("left", "right") and target // COLUMNS != note.cell // COLUMNS
    if not 0 <= target < CELLS or crosses_row:
        return note
    return move(user, note.id, target)


def archive(user, note_id):
    """Take a note off the board, freeing its cell; it waits in the archive."""
    note = get(user, note_id)
    if note.archived:
        return note
    note.cell = None
    note.archived_at = utcnow()
    db.session.commit()
    announce(user, "ideas")
    return note


def restore(user, note_id):
    """Put an archived note back on the first free cell; a full board is refused."""
    note = get(user, note_id)
    if not note.archived:
        return note

    def unarchive():
        note.archived_at = None

    return _placed(user, note, unarchive)


def delete(user, note_id):
    note = get(user, note_id)
    db.session.delete(note)
    db.session.commit()
    announce(user, "ideas")


def turn_into_task(user, note_id):
    """Make a task of a live note's text (through the task service) and archive the note, in one
    transaction: the archive is written first without committing, and the task service's commit
    writes both; if the task is refused or the commit fails, neither happens.

    A note longer than a task's name is cut to fit; the archived note keeps the whole text."""
    note = _live(user, note_id)
    name = _task_name(note.text)
    note.cell = None
    note.archived_at = utcnow()
    try:
        task = tasks.create(user, name=name, **TASK_DEFAULTS)
    except Exception:
        db.session.rollback()
        raise
    announce(user, "ideas")
    return task


def as_data(note):
    """A note as data, as the export writes it: its place, and whether and when it was archived."""
    return {
        "id": str(note.id),
        "text": note.text,
        "colour": note.colour,
        "row": note.row,
        "column": note.column,
        "archived": note.archived,
        "created_at": iso(note.created_at),
        "archived_at": iso(note.archived_at),
    }


def cells(user):
    """The whole grid in reading order: each cell's live note, or None where it is free."""
    by_cell = {note.cell: note for note in board(user)}
    return [by_cell.get(cell) for cell in range(CELLS)]


# Rules ---------------------------------------------------------------------------------------


def _live(user, note_id):
    note = get(user, note_id)
    if note.archived:
        raise Conflict("IDEA_ARCHIVED")
    return note


def _placed(user, note, prepare):
    """Give `note` the first free cell and commit; `prepare()` makes the rest of its change (adds
    it, or takes it out of the archive) once the free cells are read. A cell taken meanwhile by
    another request (the unique pair refuses it) means a rollback and the next free cell."""
    while True:
        cell = _first_free_cell(user)
        if cell is None:
            db.session.rollback()
            raise Conflict("IDEA_BOARD_FULL", cells=CELLS)
        prepare()
        note.cell = cell
        try:
            db.session.commit()
        except IntegrityError:
            db.session.rollback()
            continue
        announce(user, "ideas")
        return note


def _placed_at(user, note, cell):
    """Give `note` the chosen `cell`; a note there already (or one put there meanwhile by another
    request: the unique pair refuses it) is a refusal, never a silent move to another place."""
    note.cell = cell
    db.session.add(note)
    try:
        db.session.commit()
    except IntegrityError:
        db.session.rollback()
        raise Conflict("IDEA_CELL_TAKEN", details={"cell": "IDEA_CELL_TAKEN"}) from None
    announce(user, "ideas")
    return note


def free_cells(user):
    """The cells without a live note, in reading order: the places a new note can be put."""
    return [cell for cell, note in enumerate(cells(user)) if note is None]


def _first_free_cell(user):
    taken = set(
        db.session.scalars(db.select(QuickNote.cell).where(QuickNote.user_id == user.id, QuickNote.cell.is_not(None)))
    )
    return next((cell for cell in range(CELLS) if cell not in taken), None)


def _text(value, problems):
    text = str(value or "").strip()
    if not text:
        problems["text"] = "IDEA_TEXT_REQUIRED"
    elif len(text) > TEXT_MAX:
        problems["text"] = "IDEA_TOO_LONG"
    return text


def _colour(value, problems):
    if value is None or not str(value).strip():
        return DEFAULT_COLOUR
    colour = str(value).strip().casefold()
    if colour not in PALETTE:
        problems["colour"] = "IDEA_COLOUR_INVALID"
    return colour


def _chosen_cell(value, problems):
    """A place chosen for a new note; None (the first free place) when none was chosen."""
    if value is None or not str(value).strip():
        return None
    cell = whole_number_from(value, CELLS - 1)
    if cell is None:
        problems["cell"] = "IDEA_CELL_INVALID"
    return cell


def _cell(value):
    cell = whole_number_from(value, CELLS - 1)
    if cell is None:
        raise Invalid("INVALID_INPUT", details={"cell": "IDEA_CELL_INVALID"})
    return cell


def _task_name(text):
    name = " ".join(text.split())
    if len(name) < 2:
        raise Invalid("IDEA_TOO_SHORT_FOR_TASK")
    if len(name) > NAME_MAX:
        name = name[: NAME_MAX - 1].rsplit(" ", 1)[0] + "…"
    return name
