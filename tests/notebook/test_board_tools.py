"""The board tools: each calls the board's service as the turn's user, announces `notebook` when
it writes, and hands every refusal back to the model as a message it can act on."""

import pytest

from app.agent import registry
from app.assistant import tool_calls
from app.extensions import db
from app.notebook import boards
from app.notebook.models.board import BoardConnection, BoardNode
from app.study_cycles import services as study_cycles
from tests.builders import a_chat, a_study_cycle, confirmed
from tests.notebook.test_board_service import a_page, titles

BOARD_TOOLS = ("getStudyBoard", "addStudyNode", "editStudyNode", "setStudyNodeStatus", "connectStudyNodes",
               "disconnectStudyNodes", "removeStudyNode", "reorderStudyBoard", "getStudyPlanForToday")  # fmt: skip


def run(user, name, **arguments):
    return tool_calls.run(registry.ToolContext(user=user, chat=a_chat(user), page="/notebook"), name, arguments)


def ok(outcome):
    assert outcome.error_key is None, outcome.result
    return outcome.result


@pytest.fixture
def board(ana):
    """Ana's page "Cells" with Cell → Tissue, and Organ not connected yet."""
    page = a_page(ana)
    nodes = {title: boards.add_node(ana, page.id, title) for title in ("Cell", "Tissue", "Organ")}
    boards.connect(ana, page.id, nodes["Cell"].id, nodes["Tissue"].id)
    return page, nodes


def test_every_board_tool_belongs_to_the_notebook_and_each_write_links_to_it():
    for name in BOARD_TOOLS:
        tool = registry.REGISTRY[name]
        assert tool.domain == "notebook" and tool.description, name
        assert (tool.kind == "read") == name.startswith("get"), name
        assert tool.page == (None if tool.kind == "read" else "/notebook"), name


def test_get_study_board_reads_the_nodes_in_order_with_what_each_leads_to(ana, board):
    page, nodes = board
    result = ok(run(ana, "getStudyBoard", page="Cells"))
    assert result["page"]["title"] == "Cells" and result["page"]["topic"] == "Biology"
    assert [(node["title"], node["status"], node["leadsTo"]) for node in result["nodes"]] == [
        ("Cell", "TODO", [str(nodes["Tissue"].id)]), ("Tissue", "TODO", []), ("Organ", "TODO", []),
    ]  # fmt: skip
    assert run(ana, "getStudyBoard", page=str(page.id)).result == result


def test_add_study_node_returns_the_new_id_and_announces_the_notebook(ana, board):
    outcome = run(ana, "addStudyNode", page="Cells", title="Organ system", description="Organs working together",
                  status="learning")  # fmt: skip
    result = ok(outcome)
    assert outcome.domains == ("notebook",)
    node = boards.get_node(ana, result["id"])
    assert (node.title, node.description, node.status.value, node.position) == (
        "Organ system", "Organs working together", "LEARNING", 3,
    )  # fmt: skip


def test_edit_and_status_change_only_what_is_sent(ana, board):
    _page, nodes = board
    ok(run(ana, "editStudyNode", page="Cells", node="Organ", description="Tissues working together"))
    result = ok(run(ana, "setStudyNodeStatus", page="Cells", node=str(nodes["Organ"].id), status="DONE"))
    assert result == {"id": str(nodes["Organ"].id), "title": "Organ", "description": "Tissues working together",
                      "status": "DONE"}  # fmt: skip


def test_connect_disconnect_remove_and_reorder_write_the_board(ana, board):
    page, nodes = board
    connected = run(ana, "connectStudyNodes", page="Cells", from_node="Tissue", to_node="Organ")
    assert ok(connected) == {"from": str(nodes["Tissue"].id), "to": str(nodes["Organ"].id)}
    assert connected.domains == ("notebook",)
    ok(run(ana, "disconnectStudyNodes", page="Cells", from_node="Cell", to_node="Tissue"))
    ok(run(ana, "reorderStudyBoard", page="Cells", nodes=["Organ", "Tissue", str(nodes["Cell"].id)]))
    assert titles(ana, page) == ["Organ", "Tissue", "Cell"]
    proposed = run(ana, "removeStudyNode", page="Cells", node="Tissue")
    assert ok(proposed)["awaiting_confirmation"]["summary"].startswith("Remove the concept “Tissue”")
    assert titles(ana, page) == ["Organ", "Tissue", "Cell"], "the call alone removes nothing"
    removed = confirmed(ana, proposed)
    assert removed["removed"]["title"] == "Tissue"
    assert titles(ana, page) == ["Organ", "Cell"]
    assert db.session.scalar(db.select(db.func.count()).select_from(BoardConnection)) == 0


@pytest.mark.parametrize(
    ("name", "arguments", "key", "message"),
    [
        ("connectStudyNodes", {"from_node": "Cell", "to_node": "Tissue"}, "STUDY_CONNECTION_EXISTS",
         "“Cell” already leads to “Tissue”."),
        ("connectStudyNodes", {"from_node": "Organ", "to_node": "Organ"}, "STUDY_CONNECTION_SELF",
         "“Organ” can't lead to itself. Choose two different concepts."),
        ("connectStudyNodes", {"from_node": "Cell", "to_node": "Heart"}, "STUDY_NODE_OTHER_PAGE",
         "“Heart” is on the board of another page (“Organs”), not of “Cells”. A board only joins its own concepts."),
        ("disconnectStudyNodes", {"from_node": "Tissue", "to_node": "Cell"}, "STUDY_CONNECTION_NOT_FOUND",
         "“Tissue” doesn't lead to “Cell”: there is no such connection."),
        ("editStudyNode", {"node": "Heart", "title": "Liver"}, "STUDY_NODE_OTHER_PAGE", None),
        ("setStudyNodeStatus", {"node": "Heart", "status": "DONE"}, "STUDY_NODE_OTHER_PAGE", None),
        ("removeStudyNode", {"node": "Heart"}, "STUDY_NODE_OTHER_PAGE", None),
        ("removeStudyNode", {"node": "Nucleus"}, "STUDY_NODE_NOT_FOUND_BY_TITLE",
         "No concept on the board of “Cells” is called “Nucleus”. Its concepts: “Cell”, “Tissue”, “Organ”."),
        ("setStudyNodeStatus", {"node": "Cell", "status": "halfway"}, "INVALID_INPUT", None),
        ("addStudyNode", {"title": " "}, "INVALID_INPUT", None),
        ("reorderStudyBoard", {"nodes": ["Cell", "Tissue"]}, "STUDY_BOARD_ORDER_INVALID",
         "Send every concept of this board exactly once (it has 3) in the new order."),
    ],
)  # fmt: skip
def test_every_refusal_reaches_the_model_and_changes_nothing(ana, board, name, arguments, key, message):
    organs = a_page(ana, "Organs")
    heart = boards.add_node(ana, organs.id, "Heart")
    arguments = {key_: str(heart.id) if value == "Heart" else value for key_, value in arguments.items()}
    before = (titles(ana, board[0]), db.session.scalar(db.select(db.func.count()).select_from(BoardConnection)))
    outcome = run(ana, name, page="Cells", **arguments)
    assert outcome.error_key == key and outcome.domains == ()
    if message:
        assert outcome.result["message"] == message
    assert outcome.result["message"]
    assert (titles(ana, board[0]), db.session.scalar(db.select(db.func.count()).select_from(BoardConnection))) == before
    db.session.refresh(heart)
    assert heart.title == "Heart" and heart.status.value == "TODO"


def test_invalid_fields_are_named_for_the_model(ana, board):
    outcome = run(ana, "setStudyNodeStatus", page="Cells", node="Cell", status="halfway")
    assert outcome.result["details"] == {"status": "Choose To do, Learning or Done."}
    outcome = run(ana, "addStudyNode", page="Cells", title="x" * 201)
    assert outcome.result["details"] == {"title": "Use at most 200 characters for a concept's title."}


def test_a_page_is_named_by_id_or_exact_title_never_guessed(ana, board):
    a_page(ana, "Cells", topic="Chemistry")
    shared = run(ana, "addStudyNode", page="Cells", title="Nucleus")
    assert shared.error_key == "NOTEBOOK_PAGE_AMBIGUOUS"
    assert "(Biology, id" in shared.result["message"] and "(Chemistry, id" in shared.result["message"]
    missing = run(ana, "getStudyBoard", page="cells")
    assert missing.error_key == "NOTEBOOK_PAGE_NOT_FOUND_BY_TITLE"
    assert "Your topics: Biology, Chemistry." in missing.result["message"]
    assert db.session.scalar(db.select(db.func.count()).select_from(BoardNode)) == 3


def test_another_users_page_and_node_are_answered_like_unknown_ones(ana, bruno, board):
    theirs = a_page(bruno, "Bruno's page")
    their_node = boards.add_node(bruno, theirs.id, "Secret")
    unknown = "5b0f4c50-0000-4000-8000-000000000000"
    assert run(ana, "getStudyBoard", page=str(theirs.id)).result == run(ana, "getStudyBoard", page=unknown).result
    foreign = run(ana, "removeStudyNode", page="Cells", node=str(their_node.id))
    assert foreign.result == run(ana, "removeStudyNode", page="Cells", node=unknown).result
    assert foreign.error_key == "STUDY_NODE_NOT_FOUND" and "Secret" not in foreign.as_model_content


def test_the_study_plan_for_today_says_there_is_none_without_an_active_cycle(ana):
    outcome = run(ana, "getStudyPlanForToday")
    assert outcome.error_key is None and outcome.domains == ()
    assert outcome.result == {
        "plan": [],
        "message": "No active study cycle: nothing is planned. Cycles are made at /notebook/cycles.",
    }


def test_the_study_plan_for_today_is_each_active_cycles_slice_of_today(ana):
    a_study_cycle(ana)
    plan = run(ana, "getStudyPlanForToday").result["plan"]
    assert plan == study_cycles.plan_for_today(ana)
    assert [cycle["name"] for cycle in plan] == ["Exams"]
