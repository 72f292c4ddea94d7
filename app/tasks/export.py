"""The tasks in the data export.

One function per section the domain's declaration names, `export_<section>(user)`, read by the
export on the configuration page (app/profile/configuration.py)."""

from app.shared.export import owned_rows
from app.tasks import services as tasks
from app.tasks.models import Task


def export_tasks(user):
    return [tasks.as_data(task) for task in owned_rows(Task, user, Task.created_at)]
