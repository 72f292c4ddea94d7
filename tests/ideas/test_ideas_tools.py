"""The Ideas board's tools: createQuickNote places a note like the page does and refuses like it;
getQuickNotes reads the live notes, newest first."""

from datetime import timedelta

from app.agent import registry
from app.assistant import tool_calls
from app.extensions import db
from app.ideas import services as ideas
from app.ideas.models import QuickNote
from tests.builders import a_full_board, a_note


def run(user, name, **arguments):
    return tool_calls.run(registry.ToolContext(user=user, chat=None, page="/ideas"), name, arguments)


def test_create_quick_note_takes_the_first_free_cell_and_returns_the_new_id(ana):
    a_note(ana, "Already here")
    outcome = run(ana, "createQuickNote", text="Ask Rui about the bike trip", colour="ORANGE")
    assert outcome.error_key is None and outcome.domains == ("ideas",)
    note = db.session.get(QuickNote, ideas.get(ana, outcome.result["id"]).id)
    assert (note.text, note.colour, note.cell) == ("Ask Rui about the bike trip", "orange", 1)
    assert outcome.result == {"id": str(note.id), "text": "Ask Rui about the bike trip", "colour": "orange"}


def test_create_quick_note_takes_the_row_and_column_the_person_named_and_refuses_a_taken_one(ana):
    outcome = run(ana, "createQuickNote", text="Call the plumber", row=2, column=3)
    assert outcome.error_key is None
    assert db.session.get(QuickNote, ideas.get(ana, outcome.result["id"]).id).cell == 8  # row 2, column 3
    taken = run(ana, "createQuickNote", text="Buy stamps", row=2, column=3)
    assert taken.error_key and "Buy stamps" not in [note.text for note in ideas.newest_first(ana)]
    off_the_board = run(ana, "createQuickNote", text="Buy stamps", row=9, column=1)
    assert off_the_board.error_key == "INVALID_ARGUMENTS" and "row" in str(off_the_board.result)


def test_create_quick_note_is_a_write_whose_card_links_to_the_board():
    tool = registry.REGISTRY["createQuickNote"]
    assert (tool.kind, tool.domain, tool.page) == ("write", "ideas", "/ideas")
    assert "createUserTask" in tool.description and "archiv" in tool.description
    assert registry.REGISTRY["getQuickNotes"].kind == "read"


def test_a_full_board_refuses_the_tool_with_the_archive_suggestion(ana):
    a_full_board(ana)
    outcome = run(ana, "createQuickNote", text="One too many")
    assert outcome.error_key == "IDEA_BOARD_FULL"
    assert "Archive a few notes" in outcome.result["message"]
    assert db.session.scalar(db.select(db.func.count()).select_from(QuickNote)) == 48


def test_a_colour_outside_the_palette_is_refused_as_a_message_the_model_can_act_on(ana):
    outcome = run(ana, "createQuickNote", text="Paint the door", colour="gold")
    assert outcome.error_key == "INVALID_INPUT"
    assert outcome.result["details"] == {"colour": "Choose one of the board's colours."}
    colour = registry.REGISTRY["createQuickNote"].args_model.model_json_schema()["properties"]["colour"]
    assert "yellow, pink, green, blue, purple, orange (any letter case)" in colour["description"]


def test_an_oversize_note_is_refused_by_the_tool(ana):
    outcome = run(ana, "createQuickNote", text="x" * 501)
    assert outcome.error_key == "INVALID_INPUT"
    assert outcome.result["details"] == {"text": "A note holds at most 500 characters. Shorten it and save again."}


def test_get_quick_notes_reads_the_live_notes_newest_first_without_the_archived(ana):
    oldest, middle, newest = (
        a_note(ana, text, colour) for text, colour in (("Old", "blue"), ("Mid", "pink"), ("New", None))
    )
    for age, note in enumerate((newest, middle, oldest)):
        note.created_at = note.created_at - timedelta(minutes=age)
    db.session.commit()
    ideas.archive(ana, middle.id)
    outcome = run(ana, "getQuickNotes")
    assert outcome.error_key is None and outcome.domains == ()
    assert outcome.result == {
        "items": [
            {"id": str(newest.id), "text": "New", "colour": "yellow"},
            {"id": str(oldest.id), "text": "Old", "colour": "blue"},
        ],
        "total": 2,
        "truncated": False,
    }


def test_get_quick_notes_never_shows_another_users_notes(ana, bruno):
    a_note(bruno, "Bruno's secret")
    assert run(ana, "getQuickNotes").result["items"] == []
