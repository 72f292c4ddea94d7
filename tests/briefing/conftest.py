"""The assistant's wire fake and its app (a database background threads can share, emptied after
its briefings are written), and the rows a briefing reads."""

from datetime import timedelta

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


def the_user(app):
    return db.session.scalar(db.select(User))
