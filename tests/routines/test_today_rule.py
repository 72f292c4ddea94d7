"""Today follows the rule every past day follows: only the entries of the routine scheduled that
day can be checked or skipped — from the service, the page and the assistant's tool alike."""

from datetime import timedelta

import pytest

from app.agent import registry
from app.assistant import tool_calls
from app.extensions import db
from app.profile.models import User
from app.routines import services as routines
from app.routines import today
from app.routines.models.checks import EntryCheck
from app.shared.errors import Invalid
from tests.conftest import csrf_token_from, sign_in
from tests.routines.conftest import NOW, TODAY, entry_of, make_habit, morning


def an_unscheduled_routine(user):
    """ "Morning" runs every day but today; its one entry is a habit."""
    others = [day for day in range(7) if day != TODAY.weekday()]
    return morning(user, make_habit(user), weekdays=others)


def test_an_entry_of_a_routine_not_scheduled_today_cannot_be_checked(user):
    routine = an_unscheduled_routine(user)
    with pytest.raises(Invalid) as refusal:
        today.check(user, entry_of(routine).id, now=NOW)
    assert refusal.value.key == "ENTRY_NOT_ON_DAY"
    assert user.xp == 0
    assert db.session.scalar(db.select(db.func.count()).select_from(EntryCheck)) == 0


def test_an_entry_of_a_routine_not_scheduled_today_cannot_be_skipped(user):
    routine = an_unscheduled_routine(user)
    with pytest.raises(Invalid) as refusal:
        today.skip(user, entry_of(routine).id, now=NOW)
    assert refusal.value.key == "ENTRY_NOT_ON_DAY"


def test_an_unscheduled_routine_is_refused_today_as_on_a_past_day(user):
    entry_id = entry_of(an_unscheduled_routine(user)).id
    keys = []
    for day in (TODAY, TODAY - timedelta(days=7)):  # the same weekday, a week earlier
        with pytest.raises(Invalid) as refusal:
            today.check(user, entry_id, day=day, now=NOW)
        keys.append(refusal.value.key)
    assert keys == ["ENTRY_NOT_ON_DAY", "ENTRY_NOT_ON_DAY"]


def test_the_routine_scheduled_today_is_still_checked_and_unchecked(user):
    routine = morning(user, make_habit(user))
    entry_id = entry_of(routine).id
    assert today.check(user, entry_id, now=NOW).entry.checked
    assert not today.check(user, entry_id, now=NOW).entry.checked


def test_the_tool_refuses_an_entry_not_scheduled_today(user):
    local_today = today.local_today(user)[1]  # the tool acts now
    routine = morning(user, make_habit(user), weekdays=[day for day in range(7) if day != local_today.weekday()])
    context = registry.ToolContext(user=user, chat=None)
    outcome = tool_calls.run(context, "checkRoutineItem", {"entry_id": str(entry_of(routine).id)})
    assert outcome.error_key == "ENTRY_NOT_ON_DAY"
    assert user.xp == 0


def test_the_page_refuses_an_entry_not_scheduled_today(app, client, user_id):
    with app.app_context():
        ana = db.session.get(User, user_id)
        local_today = today.local_today(ana)[1]
        habit = make_habit(ana)
        others = [day for day in range(7) if day != local_today.weekday()]
        entry_id = entry_of(morning(ana, habit, weekdays=others)).id
    sign_in(client)
    token = csrf_token_from(client.get("/dashboard"))
    response = client.post(f"/routines/entries/{entry_id}/check", headers={"X-CSRFToken": token, "HX-Request": "true"})
    assert "not part of that day" in response.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(db.select(db.func.count()).select_from(EntryCheck)) == 0
        assert db.session.get(User, user_id).xp == 0


def test_a_time_with_trailing_text_is_refused(user):
    with pytest.raises(Invalid) as refusal:
        routines.create_timed(user, "Morning", "sun", [{"name": "Wake up", "starts_at": "07:00junk"}])
    assert refusal.value.details == {"sections[0].starts_at": "TIME_INVALID"}
