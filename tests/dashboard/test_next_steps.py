"""The dashboard's next steps: read from the account's data, each with its action, each gone once
done (wherever it was done), the card gone with the last one, and refreshed live."""

import re

from app.dashboard import next_steps
from app.extensions import db
from app.routines import schedules, today
from app.routines import services as routines
from tests.builders import a_goal, a_habit, an_everyday_routine, as_user


def _done_with_the_tutorial(app, user_id):
    with as_user(app, user_id) as ana:
        ana.tutorial_done = True
        db.session.commit()


def _left(app, user_id):
    with app.test_request_context(), as_user(app, user_id) as ana:
        return [step.key for step in next_steps.left(next_steps.footing(ana))]


def test_a_new_account_has_every_step_left_in_order(app, user_id):
    assert _left(app, user_id) == ["habit", "routine", "check", "goal"]


def test_a_habit_and_a_goal_made_anywhere_end_their_steps(app, user_id):
    with as_user(app, user_id) as ana:
        a_habit(ana, "Drink water")
        a_goal(ana)
    assert _left(app, user_id) == ["routine", "check"]


def test_a_routine_not_on_today_asks_for_its_days_with_its_schedule_dialog(app, user_id):
    with as_user(app, user_id) as ana:
        routine = routines.create_timed(ana, "Mornings", "sun", [{"name": "Wake up", "starts_at": "07:00"}])
        weekday = today.local_today(ana)[1].weekday()
        schedules.set_days(ana, routine.id, [(weekday + 1) % 7])
        routine_id = routine.id
    with app.test_request_context(), as_user(app, user_id) as ana:
        steps = {step.key: step for step in next_steps.left(next_steps.footing(ana))}
    assert "routine" not in steps
    assert steps["schedule"].url == f"/routines/{routine_id}/schedule" and steps["schedule"].dialog


def test_an_empty_routine_on_today_asks_to_fill_it(app, user_id):
    with as_user(app, user_id) as ana:
        routine = routines.create_timed(ana, "Mornings", "sun", [{"name": "Wake up", "starts_at": "07:00"}])
        schedules.set_days(ana, routine.id, list(range(7)))
    assert _left(app, user_id) == ["habit", "fill", "check", "goal"]


def test_the_first_check_ends_the_check_step_and_a_skip_does_not(app, user_id):
    with as_user(app, user_id) as ana:
        first, second = an_everyday_routine(ana, a_habit(ana, "Read"), a_habit(ana, "Stretch"))
        first_id, second_id = first.id, second.id
        a_goal(ana)
    with as_user(app, user_id) as ana:
        today.skip(ana, second_id)
    assert _left(app, user_id) == ["check"]
    with as_user(app, user_id) as ana:
        today.check(ana, first_id)
    assert _left(app, user_id) == []


def test_a_new_account_stands_nowhere_with_routines(app, user_id):
    with as_user(app, user_id) as ana:
        found = today.footing(ana)
    assert found == today.Footing(None, None, False, False)


# On the dashboard -----------------------------------------------------------------------------


def test_the_dashboard_shows_the_steps_once_the_setup_is_over(app, user_id, signed_in):
    assert b'data-testid="next-steps"' not in signed_in.get("/dashboard").data  # the welcome card leads
    _done_with_the_tutorial(app, user_id)
    page = signed_in.get("/dashboard").data.decode()
    assert 'data-testid="next-step-habit"' in page and 'hx-get="/habits/new"' in page
    assert 'data-testid="next-step-check"' in page and 'href="#today-card"' in page
    assert "0 of 4 done" in page


def test_the_steps_refresh_on_routines_habits_and_goals(app, user_id, signed_in):
    _done_with_the_tutorial(app, user_id)
    page = signed_in.get("/dashboard").data.decode()
    refreshers = re.findall(r'hx-get="(/dashboard/regions\?ids=[^"]*)" hx-trigger="([^"]*)"', page)
    triggers = [trigger for url, trigger in refreshers if "next-steps" in url]
    assert len(triggers) == 1
    for domain in next_steps.DOMAINS:
        assert f"domain:{domain} from:body" in triggers[0]


def test_the_card_leaves_with_the_last_step(app, user_id, signed_in):
    _done_with_the_tutorial(app, user_id)
    with as_user(app, user_id) as ana:
        (entry,) = an_everyday_routine(ana, a_habit(ana, "Read"))
        entry_id = entry.id
        a_goal(ana)
    region = signed_in.get("/dashboard/regions?ids=next-steps").data.decode()
    assert 'id="next-steps"' in region and 'data-testid="next-step-check"' in region
    with as_user(app, user_id) as ana:
        today.check(ana, entry_id)
    region = signed_in.get("/dashboard/regions?ids=next-steps").data.decode()
    assert 'id="next-steps"' in region and 'data-testid="next-steps"' not in region
    page = signed_in.get("/dashboard").data.decode()
    assert 'id="next-steps"' not in page and "next-steps" not in page  # nor its refresher


def test_the_steps_speak_portuguese(app, user_id, signed_in):
    with as_user(app, user_id) as ana:
        ana.language = "pt"
        ana.tutorial_done = True
        db.session.commit()
    page = signed_in.get("/dashboard").data.decode()
    assert "Próximos passos" in page and "Crie seu primeiro hábito" in page and "Next steps" not in page
