"""Factories every domain's tests share: a category, a habit, a task, a goal, a routine holding one, a note."""

from contextlib import contextmanager
from datetime import date, time, timedelta

from app.assistant import confirmations
from app.assistant import services as assistant
from app.assistant.models.pending_actions import ActionState
from app.categories import services as categories
from app.extensions import db
from app.goals import services as goals
from app.habits import services as habits
from app.ideas import services as ideas
from app.ideas.models import CELLS
from app.profile.models import User
from app.routines.models.routines import Routine, RoutineEntry, RoutineKind, RoutineSection
from app.tasks import services as tasks

TODAY = date(2026, 3, 11)  # a Wednesday


@contextmanager
def as_user(app, user_id):
    """A short app context holding the user: arrange or inspect rows around a request."""
    with app.app_context():
        yield db.session.get(User, user_id)
        db.session.remove()


def a_category(user, name="Health", **fields):
    return categories.create(user, name=name, icon=fields.pop("icon", "heart"), **fields)


def a_habit(user, name="Run", category=None, **fields):
    category = category or a_category(user, name=f"{name} area")
    values = {"importance": 3, "difficulty": 2, "icon": "activity", **fields}
    return habits.create(user, name=name, categories=[category.id], **values)


def a_task(user, name="Call mom", **fields):
    return tasks.create(
        user, name=name, importance=fields.pop("importance", 2), difficulty=fields.pop("difficulty", 1), **fields
    )


def a_goal(user, name="Read 12 books", **fields):
    values = {
        "target_value": 12,
        "unit": "books",
        "start_date": date(2026, 1, 1),
        "end_date": date(2026, 12, 31),
        **fields,
    }
    return goals.create(user, name=name, **values)


def put_in_routine(user, item, routine_name="Morning routine"):
    """Place a habit or task in a (new) timed routine, the way the routines area stores it."""
    routine = Routine(user_id=user.id, kind=RoutineKind.TIMED, name=routine_name, icon="sunrise")
    section = RoutineSection(routine=routine, position=0, name="Wake up", icon="sun", starts_at=time(7, 0))
    entry = RoutineEntry(routine=routine, section=section, position=0)
    if isinstance(item, habits.Habit):
        entry.habit_id = item.id
    else:
        entry.task_id = item.id
    db.session.add_all([routine, section, entry])
    db.session.commit()
    return routine


def a_note(user, text="Call the plumber", colour=None):
    """A note on the Ideas board, in the first free cell."""
    return ideas.create(user, text, colour)


def a_full_board(user):
    """An Ideas board with a note in every cell."""
    return [ideas.create(user, f"Thought {cell + 1}") for cell in range(CELLS)]


def an_everyday_routine(user, *items, name="Every day", since_yesterday=False):
    """A timed routine holding the habits and tasks `items` (one entry each), scheduled on every
    weekday, so each entry is one of today's; returns its entries in order. `since_yesterday`: it
    was made a day ago, so a moment minutes back (a focus started before the test) is in it too,
    even when the test runs just after midnight."""
    from app.routines import schedules
    from app.routines import services as routines
    from app.shared.models import utcnow

    entries = [{"habit_id": item.id} if isinstance(item, habits.Habit) else {"task_id": item.id} for item in items]
    routine = routines.create_timed(
        user, name, "sun", [{"name": "All day", "starts_at": "00:00", "ends_at": "23:59", "entries": entries}]
    )
    schedules.set_days(user, routine.id, list(range(7)))
    if since_yesterday:
        routine.created_at = utcnow() - timedelta(days=1)
        db.session.commit()
    return list(routine.sections[0].entries)


def a_study_cycle(user, title="Cells", page=None):
    """A notebook page (`page`, or a new one of a new topic) studied in a cycle (an hour on
    Mondays), with one session logged by hand: {"study_page", "study_cycle", "study_session"}."""
    from app.notebook import services as notebook
    from app.study_cycles import services as study_cycles

    page = page or notebook.create_page(user, notebook.create_topic(user, "Biology").id, title)
    week = {"name": "Exams", "days": {0: {"minutes": 60}}, "subjects": [{"page": str(page.id)}]}
    cycle = study_cycles.create_cycle(user, week)
    return {"study_page": page, "study_cycle": cycle, "study_session": study_cycles.log_session(user, page.id, 10)}


def a_chat(user):
    """The user's chat the tools of a test run in (the first one, made when there is none): a
    change that waits for the person's click belongs to a chat."""
    return assistant.list_chats(user)[0] if assistant.list_chats(user) else assistant.create_chat(user, "Tests")


def confirmed(user, outcome):
    """Click Confirm on the card a tool call proposed; what the tool answered then. The call
    alone must have proposed it and changed nothing."""
    assert outcome.pending_action_id is not None and outcome.domains == (), outcome.result
    decision = confirmations.confirm(user, outcome.pending_action_id)
    assert decision.decided and decision.action.state == ActionState.CONFIRMED, decision.action.outcome
    return decision.action.outcome
