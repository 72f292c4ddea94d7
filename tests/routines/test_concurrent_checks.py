"""Several clients toggling one entry at once on PostgreSQL: every request answers, and the XP,
the day's outcomes and the streak figures agree with how many toggles went through.

Each check holds its account's row lock (app.routines.today._lock_account), so the toggles run
one after the other: none sees a stale state and pays or takes back XP twice, and none collides
on the day's unique check row. SQLite lets one writer in at a time anyway, so the test needs
BEYOU_TEST_DATABASE_URL.
"""

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import pytest

from app.extensions import db
from app.habits.models import Habit
from app.profile.models import User
from app.routines.models.checks import EntryCheck
from app.routines.models.history import DayOutcome, OwnerType, XpDay
from app.routines.models.routines import Routine
from app.shared.days import today_for
from tests.conftest import TEST_DATABASE_URL, csrf_token_from, sign_in
from tests.routines.conftest import entry_of, make_category, make_habit, morning

CLIENTS = 4
TOGGLES_EACH = 5  # and one more for the first client: 21 toggles in all, so the entry ends checked

pytestmark = pytest.mark.skipif(
    not (TEST_DATABASE_URL or "").startswith("postgresql"), reason="row locks need PostgreSQL"
)


@pytest.fixture
def entry_id(app, user_id):
    """An entry of a routine that runs every day, for a habit in one category."""
    with app.app_context():
        user = db.session.get(User, user_id)
        user.timezone, user.created_at = "UTC", datetime(2026, 1, 1, tzinfo=UTC)
        db.session.commit()
        habit = make_habit(user, difficulty=3, importance=4, categories=[make_category(user)])
        return str(entry_of(morning(user, habit)).id)


def _toggles(app, entry_id, times):
    """One client signed in on its own, toggling the entry `times` times; its statuses."""
    client = app.test_client()
    sign_in(client)
    token = csrf_token_from(client.get("/routines"))
    headers = {"HX-Request": "true", "X-CSRFToken": token}
    return [
        client.post(f"/routines/entries/{entry_id}/check", headers=headers, data={"csrf_token": token}).status_code
        for _ in range(times)
    ]


def test_concurrent_toggles_of_one_entry_all_answer_and_leave_xp_and_outcomes_consistent(app, user_id, entry_id):
    times = [TOGGLES_EACH + 1] + [TOGGLES_EACH] * (CLIENTS - 1)
    with ThreadPoolExecutor(CLIENTS) as pool:
        statuses = [status for batch in pool.map(lambda n: _toggles(app, entry_id, n), times) for status in batch]

    assert statuses == [200] * sum(times)
    with app.app_context():
        user = db.session.get(User, user_id)
        today = today_for(user)
        rows = db.session.scalars(db.select(EntryCheck).where(EntryCheck.day == today)).all()
        checked = sum(times) % 2 == 1  # every answered toggle flipped the entry once
        assert [row.checked for row in rows] == ([True] if checked else [])
        paid = rows[0].xp if checked else 0.0
        habit = db.session.scalars(db.select(Habit)).one()
        routine = db.session.scalars(db.select(Routine)).one()
        for owner in (user, habit, routine, *habit.categories):
            assert owner.xp == paid
            assert db.session.scalar(db.select(db.func.sum(XpDay.xp)).where(XpDay.owner_id == owner.id)) == paid
        outcomes = db.session.scalars(db.select(DayOutcome).where(DayOutcome.day == today)).all()
        assert sorted(o.owner_type for o in outcomes) == ([OwnerType.HABIT, OwnerType.USER] if checked else [])
        assert (habit.total_check_ins, habit.current_streak, user.current_streak) == (
            (1, 1, 1) if checked else (0, 0, 0)
        )
