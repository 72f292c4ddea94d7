"""The assistant's wire fake and its app (a database background threads can share), and the
rows a briefing reads."""

import time
from datetime import timedelta

import pytest

from app.dashboard.models import BriefingStatus, DailyBriefing
from app.extensions import db
from app.profile.models import User
from app.routines.models.history import DayOutcome, Outcome, OwnerType
from app.shared.days import today_for
from tests.assistant.conftest import agent_app, agent_db_url, fake, fake_providers, make_agent_app

__all__ = ["agent_app", "agent_db_url", "fake", "fake_providers", "make_agent_app"]


def outcomes(user, item, *days):
    """Day-close rows for `item`: (days before today, outcome) pairs."""
    current = today_for(user)
    owner = OwnerType.HABIT if type(item).__name__ == "Habit" else OwnerType.TASK
    for back, outcome in days:
        db.session.add(
            DayOutcome(
                user_id=user.id,
                owner_type=owner,
                owner_id=item.id,
                day=current - timedelta(days=back),
                outcome=Outcome(outcome),
            )
        )
    db.session.commit()


def settle(app, seconds=30):
    """Wait until no briefing is being generated (background threads end before rows are wiped)."""
    deadline = time.monotonic() + seconds
    with app.app_context():
        while time.monotonic() < deadline:
            busy = db.session.scalar(
                db.select(db.func.count())
                .select_from(DailyBriefing)
                .where(DailyBriefing.status.in_([BriefingStatus.PENDING, BriefingStatus.GENERATING]))
            )
            db.session.remove()
            if not busy:
                return
            time.sleep(0.05)


def the_user(app):
    return db.session.scalar(db.select(User))


@pytest.fixture
def briefing_app(make_agent_app):
    """The app, with the fake answering, and every generation settled before the rows go."""
    apps = []

    def make(**config):
        app = make_agent_app(**config)
        apps.append(app)
        return app

    yield make
    for app in apps:
        settle(app)
