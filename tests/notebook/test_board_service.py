"""The board of a study page (app/notebook/boards.py): nodes in order, directed connections
and their rules — no duplicate, no self-loop, never across pages — with nothing half-saved."""

import pytest

from app.extensions import db
from app.notebook import boards
from app.notebook import services as notebook
from app.notebook.models.board import NODES_PER_BOARD, BoardConnection, BoardNode, NodeStatus
from app.profile import configuration
from app.shared.errors import DomainError


def a_page(user, title="Cells", topic="Biology"):
    """A page in the topic of that name (made when the user has none of that name yet)."""
    found = next((each for each in notebook.topics(user) if each.name == topic), None)
    return notebook.create_page(user, (found or notebook.create_topic(user, topic)).id, title)


def titles(user, page):
    return [node.title for node in boards.board_of_page(user, page.id).nodes]


def refusal(action):
    with pytest.raises(DomainError) as refused:
        action()
    return refused.value


def count(model):
    return db.session.scalar(db.select(db.func.count()).select_from(model))


def test_nodes_are_added_at_the_end_as_todo_with_their_text_tidied(ana):
    page = a_page(ana)
    first = boards.add_node(ana, page.id, "  The   cell membrane ", "  What goes in and out.  ")
    second = boards.add_node(ana, "Cells", "Mitochondria", status="learning")
    assert (first.title, first.description, first.status, first.position) == (
        "The cell membrane", "What goes in and out.", NodeStatus.TODO, 0,
    )  # fmt: skip
    assert (second.status, second.position, second.description) == (NodeStatus.LEARNING, 1, None)
    assert titles(ana, page) == ["The cell membrane", "Mitochondria"]


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"title": "   "}, "title", "Give the concept a title."),
        ({"title": "x" * 201}, "title", "Use at most 200 characters for a concept's title."),
        ({"title": "Ok", "description": "y" * 2001}, "description",
         "Use at most 2,000 characters for a concept's description."),
        ({"title": "Ok", "status": "FINISHED"}, "status", "Choose To do, Learning or Done."),
    ],
)  # fmt: skip
def test_a_bad_node_is_refused_per_field_and_nothing_is_written(ana, fields, field, message):
    page = a_page(ana)
    refused = refusal(lambda: boards.add_node(ana, page.id, **fields))
    assert refused.key == "INVALID_INPUT" and refused.field_messages == {field: message}
    assert count(BoardNode) == 0


def test_a_full_board_refuses_one_more(ana):
    page = a_page(ana)
    db.session.add_all(
        BoardNode(user_id=ana.id, page_id=page.id, title=f"Concept {n}", position=n) for n in range(NODES_PER_BOARD)
    )
    db.session.commit()
    refused = refusal(lambda: boards.add_node(ana, page.id, "One too many"))
    assert refused.key == "STUDY_BOARD_FULL" and "already holds 200 concepts" in refused.message


def test_editing_changes_only_what_is_given(ana):
    page = a_page(ana)
    node = boards.add_node(ana, page.id, "Osmosis", "Water moves")
    boards.edit_node(ana, node.id, status="done")
    boards.edit_node(ana, node.id, title="Osmosis and diffusion")
    assert (node.title, node.description, node.status) == ("Osmosis and diffusion", "Water moves", NodeStatus.DONE)
    boards.edit_node(ana, node.id, description="")
    assert node.description is None
    refused = refusal(lambda: boards.set_status(ana, node.id, "maybe"))
    assert refused.field_messages == {"status": "Choose To do, Learning or Done."}
    assert node.status is NodeStatus.DONE


def test_statuses_come_in_any_letter_case_and_to_do_with_a_space(ana):
    node = boards.add_node(ana, a_page(ana).id, "Ribosomes", status="Done")
    assert boards.set_status(ana, node.id, "to do").status is NodeStatus.TODO
    assert boards.set_status(ana, node.id, "LEARNING").status is NodeStatus.LEARNING


def test_a_connection_is_directed_and_the_reverse_is_a_different_one(ana):
    page = a_page(ana)
    cell, tissue = (boards.add_node(ana, page.id, title) for title in ("Cell", "Tissue"))
    boards.connect(ana, page.id, cell.id, tissue.id)
    boards.connect(ana, "Cells", "Tissue", "Cell")
    board = boards.board_of_page(ana, page.id)
    assert [node.title for node in board.leads_to(cell)] == ["Tissue"]
    assert [node.title for node in board.leads_to(tissue)] == ["Cell"]


def test_a_duplicate_connection_is_refused_naming_both_concepts(ana):
    page = a_page(ana)
    cell, tissue = (boards.add_node(ana, page.id, title) for title in ("Cell", "Tissue"))
    boards.connect(ana, page.id, cell.id, tissue.id)
    refused = refusal(lambda: boards.connect(ana, page.id, cell.id, tissue.id))
    assert (refused.key, refused.status) == ("STUDY_CONNECTION_EXISTS", 409)
    assert refused.message == "“Cell” already leads to “Tissue”."
    assert count(BoardConnection) == 1


def test_a_concept_leading_to_itself_is_refused(ana):
    page = a_page(ana)
    cell = boards.add_node(ana, page.id, "Cell")
    refused = refusal(lambda: boards.connect(ana, page.id, cell.id, "Cell"))
    assert refused.key == "STUDY_CONNECTION_SELF"
    assert refused.message == "“Cell” can't lead to itself. Choose two different concepts."
    assert count(BoardConnection) == 0


def test_a_connection_never_joins_the_boards_of_two_pages(ana):
    cells, organs = a_page(ana, "Cells"), a_page(ana, "Organs")
    cell = boards.add_node(ana, cells.id, "Cell")
    heart = boards.add_node(ana, organs.id, "Heart")
    refused = refusal(lambda: boards.connect(ana, cells.id, cell.id, heart.id))
    assert refused.key == "STUDY_NODE_OTHER_PAGE"
    assert refused.message == (
        "“Heart” is on the board of another page (“Organs”), not of “Cells”. A board only joins its own concepts."
    )
    # Named from the other page's side, the first node is the stranger.
    assert (
        "“Cell” is on the board of another page (“Cells”)"
        in refusal(lambda: boards.connect(ana, organs.id, cell.id, heart.id)).message
    )
    assert count(BoardConnection) == 0


def test_a_node_id_of_another_page_is_refused_by_every_write_naming_the_page(ana):
    cells, organs = a_page(ana, "Cells"), a_page(ana, "Organs")
    heart = boards.add_node(ana, organs.id, "Heart")
    for write in (
        lambda: boards.edit_node(ana, heart.id, title="Liver", page=cells),
        lambda: boards.set_status(ana, heart.id, "DONE", page=cells),
        lambda: boards.remove_node(ana, heart.id, page=cells),
        lambda: boards.reorder(ana, cells.id, [heart.id]),
        lambda: boards.disconnect(ana, cells.id, heart.id, heart.id),
    ):
        assert refusal(write).key == "STUDY_NODE_OTHER_PAGE"
    db.session.refresh(heart)
    assert (heart.title, heart.status, heart.page_id) == ("Heart", NodeStatus.TODO, organs.id)


def test_another_users_node_is_exactly_an_unknown_one(ana, bruno):
    theirs = boards.add_node(bruno, a_page(bruno).id, "Bruno's concept")
    page = a_page(ana)
    mine = boards.add_node(ana, page.id, "Mine")
    for node_id in (theirs.id, "5b0f4c50-0000-4000-8000-000000000000"):
        refused = refusal(lambda node_id=node_id: boards.connect(ana, page.id, mine.id, node_id))
        assert (refused.key, refused.message) == (
            "STUDY_NODE_NOT_FOUND", "We couldn't find that concept. It may have been removed from the board.",
        )  # fmt: skip
        assert refusal(lambda node_id=node_id: boards.remove_node(ana, node_id)).key == "STUDY_NODE_NOT_FOUND"
    assert refusal(lambda: boards.board_of_page(ana, theirs.page_id)).key == "NOTEBOOK_PAGE_NOT_FOUND"


def test_a_node_title_that_matches_nothing_lists_the_board_and_a_shared_one_lists_the_candidates(ana):
    page = a_page(ana)
    first = boards.add_node(ana, page.id, "Cell")
    boards.add_node(ana, page.id, "Cell")
    missing = refusal(lambda: boards.connect(ana, page.id, "Nucleus", "Cell"))
    assert missing.message == "No concept on the board of “Cells” is called “Nucleus”. Its concepts: “Cell”, “Cell”."
    shared = refusal(lambda: boards.set_status(ana, "Cell", "DONE", page=page))
    assert shared.key == "STUDY_NODE_AMBIGUOUS" and f"Cell (TODO, id {first.id})" in shared.message


def test_disconnecting_removes_only_that_connection_and_a_missing_one_is_refused(ana):
    page = a_page(ana)
    cell, tissue, organ = (boards.add_node(ana, page.id, title) for title in ("Cell", "Tissue", "Organ"))
    boards.connect(ana, page.id, cell.id, tissue.id)
    boards.connect(ana, page.id, tissue.id, organ.id)
    boards.disconnect(ana, page.id, cell.id, tissue.id)
    refused = refusal(lambda: boards.disconnect(ana, page.id, cell.id, tissue.id))
    assert refused.message == "“Cell” doesn't lead to “Tissue”: there is no such connection."
    board = boards.board_of_page(ana, page.id)
    assert [(c.from_node_id, c.to_node_id) for c in board.connections] == [(tissue.id, organ.id)]


def test_removing_a_node_removes_its_connections_and_closes_up_the_order(ana):
    page = a_page(ana)
    cell, tissue, organ = (boards.add_node(ana, page.id, title) for title in ("Cell", "Tissue", "Organ"))
    boards.connect(ana, page.id, cell.id, tissue.id)
    boards.connect(ana, page.id, tissue.id, organ.id)
    boards.connect(ana, page.id, cell.id, organ.id)
    boards.remove_node(ana, tissue.id)
    board = boards.board_of_page(ana, page.id)
    assert [(node.title, node.position) for node in board.nodes] == [("Cell", 0), ("Organ", 1)]
    assert [(c.from_node_id, c.to_node_id) for c in board.connections] == [(cell.id, organ.id)]


def test_deleting_the_page_takes_its_board_along(ana):
    page = a_page(ana)
    cell, tissue = (boards.add_node(ana, page.id, title) for title in ("Cell", "Tissue"))
    boards.connect(ana, page.id, cell.id, tissue.id)
    db.session.delete(page)
    db.session.commit()
    assert count(BoardNode) == count(BoardConnection) == 0


def test_reordering_takes_every_node_once_and_moving_stops_at_the_ends(ana):
    page = a_page(ana)
    cell, tissue, organ = (boards.add_node(ana, page.id, title) for title in ("Cell", "Tissue", "Organ"))
    boards.reorder(ana, page.id, [organ.id, "Cell", tissue.id])
    assert titles(ana, page) == ["Organ", "Cell", "Tissue"]
    for partial in ([organ.id, cell.id], [organ.id, cell.id, tissue.id, cell.id], [organ.id, organ.id, cell.id]):
        refused = refusal(lambda partial=partial: boards.reorder(ana, page.id, partial))
        assert refused.message == "Send every concept of this board exactly once (it has 3) in the new order."
    assert titles(ana, page) == ["Organ", "Cell", "Tissue"]
    boards.move_node(ana, tissue.id, 1)
    boards.move_node(ana, organ.id, -1)
    assert titles(ana, page) == ["Organ", "Cell", "Tissue"]
    boards.move_node(ana, tissue.id, -1)
    assert titles(ana, page) == ["Organ", "Tissue", "Cell"]


def test_the_export_writes_each_board_with_what_each_concept_leads_to(ana):
    page = a_page(ana)
    a_page(ana, "Empty page")
    cell, tissue = (boards.add_node(ana, page.id, title) for title in ("Cell", "Tissue"))
    boards.connect(ana, page.id, cell.id, tissue.id)
    (exported,) = configuration.export(ana)["study_board"]
    assert exported["page"]["title"] == "Cells"
    assert exported["nodes"] == [
        {"id": str(cell.id), "title": "Cell", "description": None, "status": "TODO", "leadsTo": [str(tissue.id)]},
        {"id": str(tissue.id), "title": "Tissue", "description": None, "status": "TODO", "leadsTo": []},
    ]


def test_the_demo_account_has_a_board_in_progress(demo_account):
    (board,) = boards.every_board(demo_account)
    assert (board.page.title, board.page.topic.name) == ("Cells", "Biology")
    statuses = [node.status.value for node in board.nodes]
    assert {"TODO", "LEARNING", "DONE"} <= set(statuses) and len(board.connections) >= 3
