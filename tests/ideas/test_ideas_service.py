"""The Ideas board's rules: the first free cell, a full board, the palette, moves and swaps,
archive and restore, and turning a note into a task in one transaction."""

import pytest
from sqlalchemy.exc import IntegrityError

from app.extensions import db
from app.ideas import services as ideas
from app.ideas.models import CELLS, QuickNote
from app.profile import configuration
from app.shared.errors import Conflict, Invalid, NotFound
from app.tasks.models import Task
from tests.builders import a_full_board, a_note


def live_cells(user):
    return {note.text: note.cell for note in ideas.board(user)}


def test_notes_take_the_free_cells_in_reading_order(ana):
    first, second, third = (a_note(ana, text) for text in ("One", "Two", "Three"))
    assert (first.cell, second.cell, third.cell) == (0, 1, 2)
    assert (third.row, third.column) == (1, 3)


def test_a_hole_in_the_middle_is_filled_first(ana):
    notes = [a_note(ana, f"Note {number}") for number in range(9)]
    ideas.archive(ana, notes[4].id)
    assert a_note(ana, "Fills the hole").cell == 4
    assert a_note(ana, "After the last").cell == 9


def test_a_full_board_refuses_a_new_note_and_suggests_archiving(ana):
    a_full_board(ana)
    with pytest.raises(Conflict) as refused:
        a_note(ana, "One too many")
    assert refused.value.key == "IDEA_BOARD_FULL"
    assert "Archive" in refused.value.message and str(CELLS) in refused.value.message
    assert db.session.scalar(db.select(db.func.count()).select_from(QuickNote)) == CELLS


@pytest.mark.parametrize("given", ["PINK", "Pink", " pink ", "pInK"])
def test_a_palette_colour_is_accepted_in_any_letter_case_and_stored_once(ana, given):
    assert a_note(ana, colour=given).colour == "pink"


def test_a_note_without_a_colour_is_yellow(ana):
    assert a_note(ana).colour == "yellow"


@pytest.mark.parametrize(
    ("text", "colour", "problems"),
    [
        ("Fine", "magenta", {"colour": "IDEA_COLOUR_INVALID"}),
        ("   ", None, {"text": "IDEA_TEXT_REQUIRED"}),
        ("x" * 501, None, {"text": "IDEA_TOO_LONG"}),
        ("x" * 501, "teal", {"text": "IDEA_TOO_LONG", "colour": "IDEA_COLOUR_INVALID"}),
    ],
)
def test_bad_notes_are_refused_field_by_field_and_nothing_is_written(ana, text, colour, problems):
    with pytest.raises(Invalid) as refused:
        ideas.create(ana, text, colour)
    assert refused.value.details == problems
    assert db.session.scalar(db.select(db.func.count()).select_from(QuickNote)) == 0


def test_a_note_of_exactly_500_characters_is_kept(ana):
    assert len(a_note(ana, "x" * 500).text) == 500


def test_an_edit_changes_only_what_is_given(ana):
    note = a_note(ana, "Old words", "blue")
    ideas.edit(ana, note.id, text="New words")
    assert (note.text, note.colour) == ("New words", "blue")
    ideas.recolour(ana, note.id, "GREEN")
    assert (note.text, note.colour) == ("New words", "green")
    with pytest.raises(Invalid):
        ideas.recolour(ana, note.id, "gold")


def test_moving_to_a_free_cell_leaves_the_old_one_free(ana):
    note = a_note(ana, "Mover")
    ideas.move(ana, note.id, 47)
    assert live_cells(ana) == {"Mover": 47}
    assert a_note(ana, "Newcomer").cell == 0


def test_moving_onto_a_note_swaps_the_two(ana):
    first, second = a_note(ana, "First"), a_note(ana, "Second")
    ideas.move(ana, first.id, second.cell)
    assert live_cells(ana) == {"First": 1, "Second": 0}


@pytest.mark.parametrize("cell", ["48", "-1", "two", ""])
def test_a_cell_off_the_board_is_refused(ana, cell):
    note = a_note(ana)
    with pytest.raises(Invalid) as refused:
        ideas.move(ana, note.id, cell)
    assert refused.value.details == {"cell": "IDEA_CELL_INVALID"}
    assert note.cell == 0


def test_steps_move_along_the_grid_and_stop_at_its_edges(ana):
    first, second = a_note(ana, "First"), a_note(ana, "Second")
    ideas.step(ana, first.id, "right")  # swaps with Second
    assert live_cells(ana) == {"First": 1, "Second": 0}
    ideas.step(ana, first.id, "down")
    assert first.cell == 7
    ideas.step(ana, second.id, "left")  # the left edge of row 1
    ideas.step(ana, second.id, "up")  # the top edge
    assert second.cell == 0
    ideas.move(ana, second.id, 5)
    ideas.step(ana, second.id, "right")  # the right edge does not wrap to the next row
    assert second.cell == 5


def test_archiving_frees_the_cell_and_restoring_takes_the_first_free_one(ana):
    first, second = a_note(ana, "First"), a_note(ana, "Second")
    ideas.archive(ana, first.id)
    assert first.archived and first.cell is None
    assert [note.text for note in ideas.archived(ana)] == ["First"]
    ideas.move(ana, second.id, 10)
    ideas.restore(ana, first.id)
    assert live_cells(ana) == {"First": 0, "Second": 10}
    assert ideas.archived(ana) == []


def test_restoring_onto_a_full_board_is_refused(ana):
    note = a_note(ana, "Waiting")
    ideas.archive(ana, note.id)
    a_full_board(ana)
    with pytest.raises(Conflict) as refused:
        ideas.restore(ana, note.id)
    assert refused.value.key == "IDEA_BOARD_FULL"
    db.session.expire_all()
    assert note.archived and note.cell is None


def test_an_archived_note_is_not_moved_edited_or_turned_into_a_task(ana):
    note = a_note(ana)
    ideas.archive(ana, note.id)
    for action in (
        lambda: ideas.move(ana, note.id, 3),
        lambda: ideas.edit(ana, note.id, text="Changed"),
        lambda: ideas.turn_into_task(ana, note.id),
    ):
        with pytest.raises(Conflict) as refused:
            action()
        assert refused.value.key == "IDEA_ARCHIVED"


def test_deleting_removes_a_live_or_an_archived_note(ana):
    live, archived = a_note(ana, "Live"), a_note(ana, "Archived")
    ideas.archive(ana, archived.id)
    ideas.delete(ana, live.id)
    ideas.delete(ana, archived.id)
    assert db.session.scalar(db.select(db.func.count()).select_from(QuickNote)) == 0


def test_turning_a_note_into_a_task_makes_the_task_and_archives_the_note(ana):
    note = a_note(ana, "Renew the passport before June")
    task = ideas.turn_into_task(ana, note.id)
    assert task.name == "Renew the passport before June" and task.one_time
    db.session.expire_all()
    assert note.archived and note.cell is None


def test_a_long_note_becomes_a_task_named_by_its_beginning_and_stays_whole_in_the_archive(ana):
    text = " ".join(["word"] * 99)  # 494 characters
    note = a_note(ana, text)
    task = ideas.turn_into_task(ana, note.id)
    assert len(task.name) <= 256 and task.name.endswith("…") and text.startswith(task.name[:-1])
    assert ideas.archived(ana)[0].text == text


def test_a_note_too_short_for_a_task_name_is_refused_and_stays_on_the_board(ana):
    note = a_note(ana, "x")
    with pytest.raises(Invalid) as refused:
        ideas.turn_into_task(ana, note.id)
    assert refused.value.key == "IDEA_TOO_SHORT_FOR_TASK"
    db.session.expire_all()
    assert note.cell == 0 and db.session.scalar(db.select(db.func.count()).select_from(Task)) == 0


def test_when_the_task_is_refused_the_note_is_not_archived(ana, monkeypatch):
    """The second step (the task service) fails after the archive was written: neither happens."""
    note = a_note(ana, "Book the dentist")

    def refusing_task_service(user, **fields):
        raise Invalid("INVALID_INPUT", details={"name": "NAME_INVALID"})

    monkeypatch.setattr(ideas.tasks, "create", refusing_task_service)
    with pytest.raises(Invalid):
        ideas.turn_into_task(ana, note.id)
    db.session.expire_all()
    assert (note.archived, note.cell) == (False, 0)
    assert db.session.scalar(db.select(db.func.count()).select_from(Task)) == 0


def test_when_the_commit_fails_neither_the_task_nor_the_archive_is_kept(ana, monkeypatch):
    """The task is written, then the database refuses the commit: the archive goes with it."""
    note = a_note(ana, "Book the dentist")
    real_create = ideas.tasks.create

    def task_whose_commit_fails(user, **fields):
        original_commit = db.session.commit

        def failing_commit():
            db.session.flush()  # the task and the archived note reach the database …
            raise IntegrityError("COMMIT", {}, Exception("the database refused the commit"))  # … and go no further

        monkeypatch.setattr(db.session, "commit", failing_commit)
        try:
            return real_create(user, **fields)
        finally:
            monkeypatch.setattr(db.session, "commit", original_commit)

    monkeypatch.setattr(ideas.tasks, "create", task_whose_commit_fails)
    with pytest.raises(IntegrityError):
        ideas.turn_into_task(ana, note.id)
    db.session.expire_all()
    assert (note.archived, note.cell) == (False, 0)
    assert db.session.scalar(db.select(db.func.count()).select_from(Task)) == 0


def test_a_cell_taken_meanwhile_by_another_request_sends_the_note_to_the_next_free_one(ana, monkeypatch):
    """Two creates racing: the loser's insert hits the unique (owner, cell) pair and it retries."""
    a_note(ana, "Already there")
    real_first_free = ideas._first_free_cell
    raced = []

    def first_free_then_taken(user):
        cell = real_first_free(user)
        if not raced:  # another request fills this cell between our read and our write
            raced.append(cell)
            db.session.add(QuickNote(user_id=user.id, text="The other request's", colour="blue", cell=cell))
            db.session.commit()
        return cell

    monkeypatch.setattr(ideas, "_first_free_cell", first_free_then_taken)
    note = ideas.create(ana, "Mine")
    assert raced == [1] and note.cell == 2
    assert live_cells(ana) == {"Already there": 0, "The other request's": 1, "Mine": 2}


def test_two_live_notes_can_never_share_a_cell_in_the_database(ana):
    a_note(ana)
    db.session.add(QuickNote(user_id=ana.id, text="Intruder", colour="blue", cell=0))
    with pytest.raises(IntegrityError):
        db.session.commit()
    db.session.rollback()


def test_another_users_note_is_the_same_as_an_unknown_one(ana, bruno):
    theirs = a_note(bruno, "Bruno's secret")
    for action in (
        lambda note_id: ideas.get(ana, note_id),
        lambda note_id: ideas.edit(ana, note_id, text="Mine now"),
        lambda note_id: ideas.move(ana, note_id, 5),
        lambda note_id: ideas.archive(ana, note_id),
        lambda note_id: ideas.restore(ana, note_id),
        lambda note_id: ideas.delete(ana, note_id),
        lambda note_id: ideas.turn_into_task(ana, note_id),
    ):
        for note_id in (theirs.id, "00000000-0000-0000-0000-000000000000", "not-an-id"):
            with pytest.raises(NotFound) as refused:
                action(note_id)
            assert refused.value.key == "IDEA_NOT_FOUND"
    db.session.expire_all()
    assert (theirs.text, theirs.cell, theirs.archived) == ("Bruno's secret", 0, False)
    assert ideas.board(ana) == []


def test_the_export_carries_every_note_archived_ones_included(ana):
    a_note(ana, "Live one", "green")
    ideas.archive(ana, a_note(ana, "Put away").id)
    exported = configuration.export_sections()["ideas"](ana)
    assert [(note["text"], note["colour"], note["archived"], note["row"]) for note in exported] == [
        ("Live one", "green", False, 1),
        ("Put away", "yellow", True, None),
    ]


def test_a_move_onto_a_cell_filled_meanwhile_is_refused_and_changes_nothing(ana, monkeypatch):
    """The target looked free when the move read it; another request's note got there first."""
    mover, newcomer = a_note(ana, "Mover"), a_note(ana, "Newcomer")
    ideas.move(ana, newcomer.id, 5)
    real_scalar = db.session.scalar
    reads = []

    def occupant_unseen(statement, *params):
        reads.append(statement)
        return real_scalar(statement, *params) if len(reads) == 1 else None  # the note is found, the occupant not …

    monkeypatch.setattr(db.session, "scalar", occupant_unseen)
    with pytest.raises(Conflict) as refused:
        ideas.move(ana, mover.id, 5)
    monkeypatch.setattr(db.session, "scalar", real_scalar)
    assert refused.value.key == "IDEA_BOARD_CHANGED"
    db.session.expire_all()
    assert live_cells(ana) == {"Mover": 0, "Newcomer": 5}  # … and the database keeps them apart


def test_a_note_put_in_a_chosen_free_place_stays_there(ana):
    note = ideas.create(ana, "Here, please", cell=10)
    assert (note.row, note.column) == (2, 5)
    assert ideas.create(ana, "Anywhere").cell == 0  # the first free place is still the first


def test_a_chosen_place_that_holds_a_note_is_refused_not_moved(ana):
    ideas.create(ana, "First")
    with pytest.raises(Conflict) as refused:
        ideas.create(ana, "Second", cell="0")
    assert refused.value.key == "IDEA_CELL_TAKEN" and refused.value.details == {"cell": "IDEA_CELL_TAKEN"}
    assert [note.text for note in ideas.board(ana)] == ["First"]
