"""Several clients adding notes at once on PostgreSQL: every note lands, each in a cell of its
own, filling the board from the first cell with no hole — and none gets a 500.

Each create reads the free cells and inserts; two that read the same free cell collide on the
unique (owner, cell) pair, and the loser retries the next free one (app.ideas.services._placed).
SQLite lets one writer in at a time, so the race needs BEYOU_TEST_DATABASE_URL.
"""

from concurrent.futures import ThreadPoolExecutor

import pytest

from app.extensions import db
from app.ideas.models import QuickNote
from tests.conftest import TEST_DATABASE_URL, csrf_token_from, sign_in

CLIENTS = 4
NOTES_EACH = 6

pytestmark = pytest.mark.skipif(
    not (TEST_DATABASE_URL or "").startswith("postgresql"), reason="a real race needs PostgreSQL"
)


def _adds(app, client_number):
    client = app.test_client()
    sign_in(client)
    token = csrf_token_from(client.get("/ideas"))
    headers = {"HX-Request": "true", "X-CSRFToken": token}
    return [
        client.post("/ideas", headers=headers, data={"text": f"Client {client_number}, note {number}"}).status_code
        for number in range(NOTES_EACH)
    ]


def test_concurrent_notes_each_get_a_cell_of_their_own(app, user_id):
    with ThreadPoolExecutor(CLIENTS) as pool:
        statuses = [status for batch in pool.map(lambda n: _adds(app, n), range(CLIENTS)) for status in batch]

    assert statuses == [200] * CLIENTS * NOTES_EACH
    with app.app_context():
        cells = db.session.scalars(db.select(QuickNote.cell).order_by(QuickNote.cell)).all()
    assert cells == list(range(CLIENTS * NOTES_EACH))
