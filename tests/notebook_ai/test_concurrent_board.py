"""A board added to by several requests at once: the same roadmap submitted from several tabs
puts each concept on the board once, with its connections once, and concepts added one by one at
once each get a place of their own, in a board that never passes its limit.

Each add holds the board (`study_board.held_nodes`: a write on the page's row) before it reads
it, so a second request waits, then sees what the first added. The app here is on a SQLite file
(each thread its own connection), or on PostgreSQL with BEYOU_TEST_DATABASE_URL.
"""

import threading
from concurrent.futures import ThreadPoolExecutor

from app.extensions import db
from app.notebook import boards
from app.notebook import services as notebook
from app.notebook.ai import reading_aid
from app.notebook.ai.reading_aid import Suggestion
from app.notebook.models.board import NODES_PER_BOARD, BoardConnection, BoardNode
from app.shared.errors import Conflict
from tests.builders import as_user
from tests.conftest import make_user

TABS = 4
DRAFT = [
    Suggestion("Organelles", "The cell's working parts.", ("Mitochondria",)),
    Suggestion("Mitochondria", "Where the cell makes ATP."),
    Suggestion("Protein synthesis", "From RNA to protein.", ("Organelles",)),
]


def a_page(app, user_id):
    with as_user(app, user_id) as user:
        return notebook.create_page(user, notebook.create_topic(user, "Biology").id, "Cells").id


def at_once(app, user_id, work, times=TABS):
    """`work(user)` from `times` threads released together; what each returned or raised."""
    together = threading.Barrier(times)

    def one(_):
        with as_user(app, user_id) as user:
            together.wait()
            try:
                return work(user)
            except Conflict as refused:
                return refused.key

    with ThreadPoolExecutor(times) as pool:
        return list(pool.map(one, range(times)))


def board_rows(app, page_id):
    with app.app_context():
        nodes = db.session.scalars(db.select(BoardNode).where(BoardNode.page_id == page_id)).all()
        titles = {node.id: node.title for node in nodes}
        links = [(titles[link.from_node_id], titles[link.to_node_id]) for link in db.session.scalars(
            db.select(BoardConnection).where(BoardConnection.page_id == page_id))]  # fmt: skip
        rows = sorted((node.position, node.title) for node in nodes), sorted(links)
        db.session.remove()
    return rows


def test_one_roadmap_submitted_from_several_tabs_at_once_adds_each_concept_once(agent_app):
    app, user_id = agent_app, make_user(agent_app)
    page_id = a_page(app, user_id)

    added = at_once(app, user_id, lambda user: len(reading_aid.add_suggestions(user, page_id, DRAFT).nodes))

    positions, links = board_rows(app, page_id)
    assert sorted(added) == [0] * (TABS - 1) + [3]  # one tab added them; the others found them there
    assert positions == [(0, "Organelles"), (1, "Mitochondria"), (2, "Protein synthesis")]
    assert links == [("Organelles", "Mitochondria"), ("Protein synthesis", "Organelles")]


def test_concepts_added_at_once_each_get_a_place_and_the_board_keeps_its_limit(agent_app):
    app, user_id = agent_app, make_user(agent_app)
    page_id = a_page(app, user_id)
    with as_user(app, user_id) as user:
        page = notebook.get_page(user, page_id)
        fillers = [boards.new_concept(f"Concept {number}") for number in range(NODES_PER_BOARD - 2)]
        boards.add_nodes(user, page, boards.held_nodes(user, page), fillers)

    outcomes = at_once(app, user_id, lambda user: boards.add_node(user, str(page_id), "One more").position)

    positions, _links = board_rows(app, page_id)
    assert sorted(outcome for outcome in outcomes if isinstance(outcome, int)) == [
        NODES_PER_BOARD - 2,
        NODES_PER_BOARD - 1,
    ]
    assert [outcome for outcome in outcomes if isinstance(outcome, str)] == ["STUDY_BOARD_FULL"] * (TABS - 2)
    assert [position for position, _title in positions] == list(range(NODES_PER_BOARD))
