"""The /ideas page and its archive: typing a note in place, refusals that keep the text, moves,
turning a note into a task, archive, restore and delete — with htmx and without JavaScript."""

import json

import pytest

from app.extensions import db
from app.ideas import services as ideas
from app.ideas.models import CELLS, QuickNote
from app.tasks.models import Task
from tests.builders import a_full_board, a_note, as_user
from tests.conftest import hx


def plain(client):
    return {"X-CSRFToken": client.csrf}


def notes_of(app, user_id):
    with as_user(app, user_id) as user:
        return {note.text: (note.cell, note.colour, note.archived) for note in ideas.every_note(user)}


def toast_of(response):
    trigger = response.headers.get("HX-Trigger", "")
    return json.loads(trigger)["toast"]["message"] if trigger.startswith("{") else None


def test_the_board_shows_each_note_labelled_with_its_place(app, signed_in, user_id):
    with as_user(app, user_id) as user:
        a_note(user, "First thought")
        a_note(user, "Second thought", "GREEN")
    page = signed_in.get("/ideas").get_data(as_text=True)
    assert 'aria-label="Note at row 1, column 2"' in page and "Second thought" in page
    assert "idea idea-green" in page
    assert 'hx-trigger="domain:ideas from:body"' in page
    assert page.count('class="idea-cell"') == CELLS


def test_a_note_typed_in_place_lands_and_the_form_comes_back_empty(app, signed_in, user_id):
    response = signed_in.post("/ideas", data={"text": "  Learn to juggle  ", "colour": "Blue"}, headers=hx(signed_in))
    assert response.status_code == 200
    assert "domain:ideas" in response.headers["HX-Trigger"]
    assert toast_of(response) == "Note added to the board."
    assert "Learn to juggle" not in response.get_data(as_text=True)
    assert notes_of(app, user_id) == {"Learn to juggle": (0, "blue", False)}


def test_an_oversize_note_is_refused_with_the_text_kept(app, signed_in, user_id):
    typed = "A long thought " * 40  # 600 characters
    response = signed_in.post("/ideas", data={"text": typed, "colour": "pink"}, headers=hx(signed_in))
    body = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "A note holds at most 500 characters" in body
    assert typed.strip() in body and 'value="pink" id="new-colour-pink"\n             checked' in body
    assert notes_of(app, user_id) == {}


def test_an_unknown_colour_is_refused_without_losing_the_text(app, signed_in, user_id):
    response = signed_in.post("/ideas", data={"text": "Paint the door", "colour": "gold"}, headers=hx(signed_in))
    body = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "Choose one of the board&#39;s colours." in body and "Paint the door" in body
    assert notes_of(app, user_id) == {}


def test_a_full_board_refuses_the_note_suggesting_to_archive_and_keeps_the_text(app, signed_in, user_id):
    with as_user(app, user_id) as user:
        a_full_board(user)
    response = signed_in.post("/ideas", data={"text": "One more idea"}, headers=hx(signed_in))
    body = response.get_data(as_text=True)
    assert response.status_code == 409
    assert f"all {CELLS} places hold a note. Archive a few notes" in body and "One more idea" in body
    assert "The board is full" in signed_in.get("/ideas").get_data(as_text=True)


def test_without_javascript_a_note_is_added_or_refused_on_the_full_page(app, signed_in, user_id):
    added = signed_in.post("/ideas", data={"text": "Plain form"}, headers=plain(signed_in))
    assert added.status_code == 302 and added.headers["Location"].endswith("/ideas")
    refused = signed_in.post("/ideas", data={"text": "x" * 501}, headers=plain(signed_in))
    body = refused.get_data(as_text=True)
    assert refused.status_code == 422 and "<h1>Ideas board</h1>" in body and "x" * 501 in body
    assert "Plain form" in body


def test_a_note_moves_by_direction_or_to_a_cell_and_says_where_it_landed(app, signed_in, user_id):
    with as_user(app, user_id) as user:
        note_id = a_note(user, "Mover").id
        a_note(user, "Neighbour")
    stepped = signed_in.post(f"/ideas/{note_id}/move", data={"direction": "right"}, headers=hx(signed_in))
    assert stepped.status_code == 204 and toast_of(stepped) == "“Mover” moved to row 1, column 2."
    assert notes_of(app, user_id) == {"Mover": (1, "yellow", False), "Neighbour": (0, "yellow", False)}
    dropped = signed_in.post(f"/ideas/{note_id}/move", data={"cell": "13"}, headers=hx(signed_in))
    assert dropped.status_code == 204 and toast_of(dropped) == "“Mover” moved to row 3, column 2."
    off_board = signed_in.post(f"/ideas/{note_id}/move", data={"cell": "99"}, headers=hx(signed_in))
    assert off_board.status_code == 422 and "toast-error" in off_board.get_data(as_text=True)
    assert off_board.headers["HX-Reswap"] == "none"


@pytest.mark.parametrize("cell", ["²", "١", "1" * 5000, "-1", "3.0", ""])
def test_a_cell_that_is_no_plain_number_is_refused_like_one_off_the_board(app, signed_in, user_id, cell):
    """ "²" is a digit to str.isdigit() but not to int(); "١" is one to both, and no page sends it."""
    with as_user(app, user_id) as user:
        note_id = a_note(user, "Stays put").id
    refused = signed_in.post(f"/ideas/{note_id}/move", data={"cell": cell}, headers=hx(signed_in))
    assert refused.status_code == 422 and "toast-error" in refused.get_data(as_text=True)
    refused = signed_in.post(f"/ideas/{note_id}/move", data={"cell": cell}, headers=plain(signed_in))
    assert refused.status_code == 302 and refused.headers["Location"].endswith("/ideas")
    assert notes_of(app, user_id) == {"Stays put": (0, "yellow", False)}


def test_the_menu_moves_a_note_without_javascript(app, signed_in, user_id):
    with as_user(app, user_id) as user:
        note_id = a_note(user, "Mover").id
    response = signed_in.post(f"/ideas/{note_id}/move", data={"direction": "down"}, headers=plain(signed_in))
    assert response.status_code == 302
    assert notes_of(app, user_id) == {"Mover": (6, "yellow", False)}


def test_recolouring_from_the_menu(app, signed_in, user_id):
    with as_user(app, user_id) as user:
        note_id = a_note(user, "Paint me").id
    response = signed_in.post(f"/ideas/{note_id}/colour", data={"colour": "PURPLE"}, headers=hx(signed_in))
    assert response.status_code == 204 and toast_of(response) == "Colour changed."
    assert notes_of(app, user_id) == {"Paint me": (0, "purple", False)}


def test_the_edit_dialog_saves_or_keeps_the_text_it_refused(app, signed_in, user_id):
    with as_user(app, user_id) as user:
        note_id = a_note(user, "Draft").id
    form = signed_in.get(f"/ideas/{note_id}/edit", headers=hx(signed_in)).get_data(as_text=True)
    assert "Draft</textarea>" in form
    too_long = {"text": "y" * 501, "colour": "blue"}
    refused = signed_in.post(f"/ideas/{note_id}/edit", data=too_long, headers=hx(signed_in))
    assert refused.status_code == 422 and "y" * 501 in refused.get_data(as_text=True)
    saved = signed_in.post(f"/ideas/{note_id}/edit", data={"text": "Final", "colour": "blue"}, headers=hx(signed_in))
    assert saved.status_code == 204 and "dialog:close" in saved.headers["HX-Trigger"]
    assert notes_of(app, user_id) == {"Final": (0, "blue", False)}


def test_turning_a_note_into_a_task_toasts_a_link_to_the_tasks(app, signed_in, user_id):
    with as_user(app, user_id) as user:
        note_id = a_note(user, "Book the dentist").id
    response = signed_in.post(f"/ideas/{note_id}/task", headers=hx(signed_in))
    assert response.status_code == 204
    events = json.loads(response.headers["HX-Trigger"])
    assert {"domain:ideas", "domain:tasks"} <= events.keys()
    assert events["toast"]["message"] == "Task created from your note; the note is archived."
    assert events["toast"]["link"] == {"href": "/tasks", "label": "Open your tasks"}
    assert notes_of(app, user_id) == {"Book the dentist": (None, "yellow", True)}
    assert "Book the dentist" in signed_in.get("/tasks").get_data(as_text=True)


def test_a_refused_conversion_is_a_toast_and_changes_nothing(app, signed_in, user_id):
    with as_user(app, user_id) as user:
        note_id = a_note(user, "x").id
    response = signed_in.post(f"/ideas/{note_id}/task", headers=hx(signed_in))
    assert response.status_code == 422 and "A task&#39;s name needs at least 2 characters" in response.get_data(
        as_text=True
    )
    with as_user(app, user_id):
        assert db.session.scalar(db.select(db.func.count()).select_from(Task)) == 0
    assert notes_of(app, user_id) == {"x": (0, "yellow", False)}


def test_archive_then_restore_from_the_archive_view(app, signed_in, user_id):
    with as_user(app, user_id) as user:
        note_id = a_note(user, "Someday").id
    archived = signed_in.post(f"/ideas/{note_id}/archive", headers=hx(signed_in))
    assert archived.status_code == 204 and toast_of(archived) == "Note archived."
    view = signed_in.get("/ideas/archive").get_data(as_text=True)
    assert "Someday" in view and "Restore" in view
    assert 'aria-label="Note at' not in signed_in.get("/ideas").get_data(as_text=True)
    restored = signed_in.post(f"/ideas/{note_id}/restore", headers=hx(signed_in))
    assert restored.status_code == 204 and toast_of(restored) == "Note back on the board."
    assert notes_of(app, user_id) == {"Someday": (0, "yellow", False)}


def test_restoring_onto_a_full_board_is_a_toast_suggesting_to_archive(app, signed_in, user_id):
    with as_user(app, user_id) as user:
        waiting = a_note(user, "Waiting")
        ideas.archive(user, waiting.id)
        a_full_board(user)
        note_id = waiting.id
    response = signed_in.post(f"/ideas/{note_id}/restore", headers=hx(signed_in))
    assert response.status_code == 409 and "Archive a few notes" in response.get_data(as_text=True)
    without_js = signed_in.post(f"/ideas/{note_id}/restore", headers=plain(signed_in), follow_redirects=True)
    assert "Archive a few notes" in without_js.get_data(as_text=True)


def test_delete_asks_first_then_deletes(app, signed_in, user_id):
    with as_user(app, user_id) as user:
        note_id = a_note(user, "Throw away").id
    confirm = signed_in.get(f"/ideas/{note_id}/delete", headers=hx(signed_in)).get_data(as_text=True)
    assert "Delete this note?" in confirm and "archive it" in confirm
    assert notes_of(app, user_id) == {"Throw away": (0, "yellow", False)}
    deleted = signed_in.post(f"/ideas/{note_id}/delete", headers=hx(signed_in))
    assert deleted.status_code == 204 and toast_of(deleted) == "Note deleted."
    assert notes_of(app, user_id) == {}


@pytest.mark.parametrize("path", ["/edit", "/delete"])
def test_another_users_note_is_not_found_on_the_page(app, signed_in, other_user_id, path):
    with as_user(app, other_user_id) as bruno:
        note_id = a_note(bruno, "Bruno's").id
    response = signed_in.get(f"/ideas/{note_id}{path}")
    assert response.status_code == 404 and "Bruno's" not in response.get_data(as_text=True)


def test_the_board_speaks_portuguese(app, signed_in, user_id):
    with as_user(app, user_id) as user:
        user.language = "pt"
        db.session.commit()
        a_note(user, "Ideia")
    page = signed_in.get("/ideas").get_data(as_text=True)
    assert "Quadro de ideias" in page and 'aria-label="Nota na linha 1, coluna 1"' in page
    refused = signed_in.post("/ideas", data={"text": "z" * 501}, headers=hx(signed_in)).get_data(as_text=True)
    assert "no máximo 500 caracteres" in refused


def test_the_demo_board_has_notes_in_several_colours_and_one_archived(demo_account):
    board, put_away = ideas.board(demo_account), ideas.archived(demo_account)
    assert len(board) >= 5 and len({note.colour for note in board}) >= 4 and len(put_away) == 1
    assert [note.cell for note in board] == list(range(len(board)))
    assert db.session.scalar(db.select(db.func.count()).select_from(QuickNote)) == len(board) + 1


def test_a_step_off_the_board_s_edge_says_the_note_stays_there(app, signed_in, user_id):
    with as_user(app, user_id) as user:
        note_id = a_note(user, "A long thought that goes on and on past forty characters").id
    stayed = signed_in.post(f"/ideas/{note_id}/move", data={"direction": "up"}, headers=hx(signed_in))
    trigger = json.loads(stayed.headers["HX-Trigger"])["toast"]
    assert trigger == {"message": "“A long thought that goes on and on past…” is already at the edge of the board.",
                       "kind": "info"}  # fmt: skip
    assert notes_of(app, user_id)["A long thought that goes on and on past forty characters"][0] == 0


def test_a_new_note_goes_to_the_place_chosen_for_it(app, signed_in, user_id):
    added = signed_in.post("/ideas", data={"text": "Over here", "cell": "9"}, headers=hx(signed_in))
    assert added.status_code == 200 and toast_of(added) == "Note added to the board."
    assert notes_of(app, user_id) == {"Over here": (9, "yellow", False)}
    form = added.get_data(as_text=True)
    assert '<option value="0">Row 1, column 1</option>' in form and '<option value="9">' not in form


def test_a_place_that_holds_a_note_is_refused_and_the_text_kept(app, signed_in, user_id):
    with as_user(app, user_id) as user:
        a_note(user, "Already here")
    refused = signed_in.post("/ideas", data={"text": "Wants row 1", "cell": "0"}, headers=hx(signed_in))
    body = refused.get_data(as_text=True)
    assert refused.status_code == 409 and "A note is already in that place." in body and "Wants row 1" in body
    assert notes_of(app, user_id) == {"Already here": (0, "yellow", False)}


@pytest.mark.parametrize("cell", ["48", "-1", "²", "row one"])
def test_a_chosen_place_off_the_board_is_refused_beside_the_place_field(app, signed_in, user_id, cell):
    refused = signed_in.post("/ideas", data={"text": "Nowhere", "cell": cell}, headers=hx(signed_in))
    body = refused.get_data(as_text=True)
    assert refused.status_code == 422 and 'id="cell-error"' in body and "Choose a place on the board." in body
    assert notes_of(app, user_id) == {}


def test_the_place_picker_offers_only_the_free_places(app, signed_in, user_id):
    with as_user(app, user_id) as user:
        a_note(user, "Taken")
    page = signed_in.get("/ideas").get_data(as_text=True)
    assert '<option value="">First free place</option>' in page
    assert '<option value="0">' not in page and '<option value="1">Row 1, column 2</option>' in page
    assert page.count("<option value=") == CELLS  # the first free place, and 47 free cells


def test_the_board_redrawn_brings_the_free_places_out_of_band(app, signed_in, user_id):
    with as_user(app, user_id) as user:
        a_note(user, "Taken")
    redrawn = signed_in.get("/ideas", headers=hx(signed_in)).get_data(as_text=True)
    assert 'data-testid="idea-board"' in redrawn and "<h1>" not in redrawn
    assert '<select id="new-note-place" name="cell" data-testid="new-note-place"  hx-swap-oob="true">' in redrawn
    assert '<option value="0">' not in redrawn and '<option value="1">Row 1, column 2</option>' in redrawn
    page = signed_in.get("/ideas").get_data(as_text=True)
    assert page.count('<select id="new-note-place"') == 1 and 'data-testid="new-note-place"  hx-swap-oob' not in page


def test_an_empty_board_says_where_the_first_note_goes(app, signed_in, user_id):
    assert "No notes yet. Your first note goes to row 1, column 1" in signed_in.get("/ideas").get_data(as_text=True)
    with as_user(app, user_id) as user:
        a_note(user, "Now there is one")
    assert "No notes yet" not in signed_in.get("/ideas").get_data(as_text=True)
