"""Several requests completing one goal at once on PostgreSQL pay its XP once.

`goals.complete` holds the account's row (app.routines.xp.lock_account) before it reads
the goal, so the second request sees the goal already completed and changes nothing. SQLite
lets one writer in at a time anyway, so the test needs BEYOU_TEST_DATABASE_URL.
"""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from app.extensions import db
from app.goals import services as goals
from app.goals.models import Goal
from app.profile.models import User
from app.routines.models.history import XpDay
from tests.builders import a_category, a_goal, as_user
from tests.conftest import TEST_DATABASE_URL

REQUESTS = 4

pytestmark = pytest.mark.skipif(
    not (TEST_DATABASE_URL or "").startswith("postgresql"), reason="row locks need PostgreSQL"
)


def test_concurrent_completions_of_one_goal_pay_its_xp_once(app, user_id):
    with as_user(app, user_id) as user:
        goal_id = a_goal(user, categories=[a_category(user).id]).id
    together = threading.Barrier(REQUESTS)

    def complete():
        with as_user(app, user_id) as user:
            together.wait()
            return goals.complete(user, str(goal_id), done=True).xp_reward

    with ThreadPoolExecutor(REQUESTS) as pool:
        rewards = list(pool.map(lambda _: complete(), range(REQUESTS)))

    with as_user(app, user_id) as user:
        goal = db.session.get(Goal, goal_id)
        assert rewards == [goal.xp_reward] * REQUESTS and goal.xp_reward > 0
        for owner in (user, *goal.categories):
            assert owner.xp == goal.xp_reward
        paid = db.session.scalar(db.select(db.func.sum(XpDay.xp)).where(XpDay.owner_id == user.id))
        assert paid == goal.xp_reward
        assert db.session.get(User, user_id).xp == goal.xp_reward
