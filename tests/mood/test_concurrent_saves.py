"""Several saves of the same day at once, on PostgreSQL: every request answers 200 and the day
has one entry (the upsert meets the unique day, never a duplicate-key error)."""

from concurrent.futures import ThreadPoolExecutor

import pytest

from app.extensions import db
from app.mood.models import MoodEntry
from tests.conftest import TEST_DATABASE_URL, csrf_token_from, sign_in

CLIENTS = 4
SAVES_EACH = 3

pytestmark = pytest.mark.skipif(
    not (TEST_DATABASE_URL or "").startswith("postgresql"), reason="concurrent writers need PostgreSQL"
)


def _saves(app, level):
    client = app.test_client()
    sign_in(client)
    token = csrf_token_from(client.get("/mood"))
    headers = {"HX-Request": "true", "X-CSRFToken": token}
    return [
        client.post("/mood", data={"level": str(level), "journal": f"Take {take}"}, headers=headers).status_code
        for take in range(SAVES_EACH)
    ]


def test_concurrent_saves_of_one_day_all_answer_and_leave_one_entry(app, user_id):
    with ThreadPoolExecutor(CLIENTS) as pool:
        statuses = [status for batch in pool.map(lambda level: _saves(app, level), range(1, CLIENTS + 1))
                    for status in batch]  # fmt: skip
    assert statuses == [200] * CLIENTS * SAVES_EACH
    with app.app_context():
        (entry,) = db.session.scalars(db.select(MoodEntry)).all()
        assert entry.level in range(1, CLIENTS + 1) and entry.journal.startswith("Take ")
