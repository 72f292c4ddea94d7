"""The habits in the data export.

One function per section the domain's declaration names, `export_<section>(user)`, read by the
export on the configuration page (app/profile/configuration.py)."""

from app.habits import services as habits
from app.habits.models import Habit
from app.shared.export import owned_rows


def export_habits(user):
    return [habits.as_data(habit) for habit in owned_rows(Habit, user, Habit.created_at)]
