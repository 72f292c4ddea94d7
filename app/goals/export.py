"""The goals in the data export.

One function per section the domain's declaration names, `export_<section>(user)`, read by the
export on the configuration page (app/profile/configuration.py)."""

from app.goals import services as goals
from app.goals.models import Goal
from app.shared.export import owned_rows


def export_goals(user):
    return [goals.as_data(goal) for goal in owned_rows(Goal, user, Goal.created_at)]
