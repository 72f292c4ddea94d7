"""The board on a study page: concepts typed in place (a refusal keeps the text), status, order,
connections and removal — with htmx and without JavaScript — and refusals said as toasts."""

import json

from app.notebook import boards
from app.notebook.models.board import NodeStatus
from tests.builders import as_user
from tests.conftest import hx
from tests.notebook.test_board_service import a_page


def plain(client):
    return {"X-CSRFToken": client.csrf}


def toast_of(response):
    trigger = response.headers.get("HX-Trigger", "")
    return json.loads(trigger)["toast"]["message"] if trigger.startswith("{") else None


def a_board(app, user_id, *titles, page_title="Cells"):
    """A page with these concepts, in order; returns (page id, {title: node id})."""
    with as_user(app, user_id) as user:
        page = a_page(user, page_title)
        nodes = {title: boards.add_node(user, page.id, title).id for title in titles}
        return page.id, nodes


def board_of(app, user_id, page_id):
    """[(title, status, [titles it leads to])] in board order."""
    with as_user(app, user_id) as user:
        found = boards.board_of_page(user, page_id)
        return [
            (node.title, node.status.value, [target.title for target in found.leads_to(node)]) for node in found.nodes
        ]


def test_the_study_page_shows_its_board_listening_for_the_notebook(app, signed_in, user_id):
    page_id, nodes = a_board(app, user_id, "Cell", "Tissue")
    with as_user(app, user_id) as user:
        boards.connect(user, page_id, nodes["Cell"], nodes["Tissue"])
        boards.set_status(user, nodes["Tissue"], "LEARNING")
    body = signed_in.get(f"/notebook/pages/{page_id}").get_data(as_text=True)
    assert 'id="board"' in body and 'hx-trigger="domain:notebook from:body"' in body
    assert f'hx-get="/notebook/pages/{page_id}/board"' in body
    assert body.count('data-testid="concept"') == 2 and "board-node board-node-learning" in body
    assert 'aria-label="Remove the connection from “Cell” to “Tissue”"' in body
    assert 'aria-label="Status of “Tissue”"' in body and 'aria-pressed="true">Learning</button>' in body
    assert 'aria-label="Move “Cell” up"' in body and 'data-testid="connect-concepts"' in body


def test_an_empty_board_invites_the_first_concept_and_offers_no_connection(app, signed_in, user_id):
    page_id, _nodes = a_board(app, user_id)
    body = signed_in.get(f"/notebook/pages/{page_id}").get_data(as_text=True)
    assert "No concepts yet. Add the first one below." in body and "connect-concepts" not in body


def test_the_board_fragment_answers_htmx_and_sends_a_plain_visit_to_the_page(app, signed_in, user_id):
    page_id, _nodes = a_board(app, user_id, "Cell")
    fragment = signed_in.get(f"/notebook/pages/{page_id}/board", headers=hx(signed_in))
    assert fragment.status_code == 200 and "<html" not in fragment.get_data(as_text=True)
    assert 'data-testid="concept"' in fragment.get_data(as_text=True)
    visit = signed_in.get(f"/notebook/pages/{page_id}/board")
    assert visit.status_code == 302 and visit.headers["Location"].endswith(f"/notebook/pages/{page_id}#board")


def test_a_concept_typed_in_place_lands_and_the_form_comes_back_empty(app, signed_in, user_id):
    page_id, _nodes = a_board(app, user_id, "Cell")
    typed = {"title": " Tissue ", "description": "Cells together"}
    response = signed_in.post(f"/notebook/pages/{page_id}/board/nodes", data=typed, headers=hx(signed_in))
    assert response.status_code == 200 and "domain:notebook" in response.headers["HX-Trigger"]
    assert toast_of(response) == "Concept added to the board."
    assert "Tissue" not in response.get_data(as_text=True)
    assert board_of(app, user_id, page_id) == [("Cell", "TODO", []), ("Tissue", "TODO", [])]


def test_a_refused_concept_keeps_what_was_typed_with_htmx_and_without(app, signed_in, user_id):
    page_id, _nodes = a_board(app, user_id)
    typed = "A very long concept " * 11
    for headers in (hx(signed_in), plain(signed_in)):
        response = signed_in.post(f"/notebook/pages/{page_id}/board/nodes",
                                  data={"title": typed, "description": "Kept too"}, headers=headers)  # fmt: skip
        body = response.get_data(as_text=True)
        assert response.status_code == 422
        assert "Use at most 200 characters for a concept&#39;s title." in body
        assert typed in body and "Kept too" in body and 'aria-invalid="true"' in body
    assert board_of(app, user_id, page_id) == []


def test_without_javascript_a_concept_is_added_and_the_page_comes_back(app, signed_in, user_id):
    page_id, _nodes = a_board(app, user_id)
    response = signed_in.post(
        f"/notebook/pages/{page_id}/board/nodes", data={"title": "Cell"}, headers=plain(signed_in)
    )
    assert response.status_code == 302 and response.headers["Location"].endswith("#board")
    assert board_of(app, user_id, page_id) == [("Cell", "TODO", [])]


def test_status_order_and_connections_change_through_their_buttons(app, signed_in, user_id):
    page_id, nodes = a_board(app, user_id, "Cell", "Tissue", "Organ")
    base = "/notebook/board/nodes"
    assert (
        signed_in.post(f"{base}/{nodes['Organ']}/status", data={"status": "DONE"}, headers=hx(signed_in)).status_code
        == 204
    )
    assert (
        signed_in.post(f"{base}/{nodes['Organ']}/move", data={"direction": "up"}, headers=hx(signed_in)).status_code
        == 204
    )
    pair = {"from_node": nodes["Cell"], "to_node": nodes["Tissue"]}
    connected = signed_in.post(f"/notebook/pages/{page_id}/board/connections", data=pair, headers=hx(signed_in))
    assert connected.status_code == 204 and toast_of(connected) == "Concepts connected."
    assert board_of(app, user_id, page_id) == [
        ("Cell", "TODO", ["Tissue"]),
        ("Organ", "DONE", []),
        ("Tissue", "TODO", []),
    ]
    signed_in.post(f"/notebook/pages/{page_id}/board/connections/delete",
                   data={"from_node": nodes["Cell"], "to_node": nodes["Tissue"]}, headers=plain(signed_in))  # fmt: skip
    assert board_of(app, user_id, page_id)[0] == ("Cell", "TODO", [])


def test_a_refused_connection_is_a_toast_and_nothing_is_saved(app, signed_in, user_id):
    page_id, nodes = a_board(app, user_id, "Cell", "Tissue")
    _other_page, other = a_board(app, user_id, "Heart", page_title="Organs")
    with as_user(app, user_id) as user:
        boards.connect(user, page_id, nodes["Cell"], nodes["Tissue"])
    url = f"/notebook/pages/{page_id}/board/connections"
    for pair, said, status in (
        ((nodes["Cell"], nodes["Tissue"]), "“Cell” already leads to “Tissue”.", 409),
        ((nodes["Cell"], nodes["Cell"]), "“Cell” can&#39;t lead to itself.", 422),
        ((nodes["Cell"], other["Heart"]), "“Heart” is on the board of another page (“Organs”)", 422),
    ):
        response = signed_in.post(url, data={"from_node": pair[0], "to_node": pair[1]}, headers=hx(signed_in))
        assert response.status_code == status and response.headers["HX-Reswap"] == "none"
        assert said in response.get_data(as_text=True) and 'role="alert"' in response.get_data(as_text=True)
    plain_refusal = signed_in.post(
        url, data={"from_node": nodes["Cell"], "to_node": nodes["Cell"]}, headers=plain(signed_in)
    )
    assert plain_refusal.status_code == 302
    assert "can&#39;t lead to itself" in signed_in.get(plain_refusal.headers["Location"]).get_data(as_text=True)
    assert board_of(app, user_id, page_id) == [("Cell", "TODO", ["Tissue"]), ("Tissue", "TODO", [])]


def test_a_concept_is_edited_in_a_dialog_and_a_refusal_keeps_the_text(app, signed_in, user_id):
    page_id, nodes = a_board(app, user_id, "Cell")
    url = f"/notebook/board/nodes/{nodes['Cell']}/edit"
    form = signed_in.get(url, headers=hx(signed_in)).get_data(as_text=True)
    assert 'value="Cell"' in form and '<option value="TODO" selected>' in form
    refused = signed_in.post(
        url, data={"title": "", "description": "Still here", "status": "DONE"}, headers=hx(signed_in)
    )
    assert refused.status_code == 422 and "Give the concept a title." in refused.get_data(as_text=True)
    assert "Still here" in refused.get_data(as_text=True)
    saved = signed_in.post(
        url, data={"title": "The cell", "description": "", "status": "LEARNING"}, headers=hx(signed_in)
    )
    assert saved.status_code == 204 and "dialog:close" in saved.headers["HX-Trigger"]
    assert board_of(app, user_id, page_id) == [("The cell", "LEARNING", [])]


def test_removing_asks_first_saying_how_many_connections_go_along(app, signed_in, user_id):
    page_id, nodes = a_board(app, user_id, "Cell", "Tissue", "Organ")
    with as_user(app, user_id) as user:
        boards.connect(user, page_id, nodes["Cell"], nodes["Tissue"])
        boards.connect(user, page_id, nodes["Tissue"], nodes["Organ"])
    url = f"/notebook/board/nodes/{nodes['Tissue']}/delete"
    asked = signed_in.get(url, headers=hx(signed_in)).get_data(as_text=True)
    assert "Remove this concept?" in asked and "“Tissue” and its 2 connections leave the board of “Cells”." in asked
    removed = signed_in.post(url, headers=plain(signed_in))
    assert removed.status_code == 302 and removed.headers["Location"].endswith(f"/notebook/pages/{page_id}#board")
    assert "“Organ” leaves the board of “Cells”." in signed_in.get(
        f"/notebook/board/nodes/{nodes['Organ']}/delete", headers=hx(signed_in)
    ).get_data(as_text=True)
    assert board_of(app, user_id, page_id) == [("Cell", "TODO", []), ("Organ", "TODO", [])]


def test_another_users_page_and_concepts_are_not_found(app, signed_in, user_id, other_user_id):
    theirs, nodes = a_board(app, other_user_id, "Secret")
    assert signed_in.get(f"/notebook/pages/{theirs}/board", headers=hx(signed_in)).status_code == 404
    assert signed_in.post(f"/notebook/board/nodes/{nodes['Secret']}/status", data={"status": "DONE"},
                          headers=hx(signed_in)).status_code == 404  # fmt: skip
    assert board_of(app, other_user_id, theirs) == [("Secret", NodeStatus.TODO.value, [])]
