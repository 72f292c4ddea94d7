"""The mood tools: logDailyMood sets a level and only ever adds to the journal; getUserMoodHistory
reads date, level and whether text exists."""

from datetime import timedelta

from flask_babel import force_locale

from app.agent import registry
from app.assistant import tool_calls
from app.mood import services as mood
from app.shared.days import today_for


def run(user, name, **arguments):
    return tool_calls.run(registry.ToolContext(user=user, chat=None, page="/mood"), name, arguments)


def test_logging_a_mood_answers_the_day_and_announces_mood(ana):
    outcome = run(ana, "logDailyMood", level=4)
    assert outcome.error_key is None and outcome.domains == ("mood",)
    assert outcome.result == {"logged": {"date": today_for(ana).isoformat(), "level": 4, "has_text": False}}
    assert run(ana, "logDailyMood", level=2).result["logged"]["level"] == 2
    assert len(mood.history(ana, 1)) == 1


def test_a_level_out_of_range_or_a_future_day_is_refused_with_a_message_the_model_can_act_on(ana):
    outcome = run(ana, "logDailyMood", level=7)
    assert outcome.error_key == "MOOD_LEVEL_INVALID"
    assert outcome.result["message"] == "Choose how you felt, from 1 (awful) to 5 (great)."
    with force_locale("pt"):  # a turn runs in its user's language
        assert run(ana, "logDailyMood", level=0).result["message"].startswith("Escolha como você se sentiu")
    tomorrow = (today_for(ana) + timedelta(days=1)).isoformat()
    assert run(ana, "logDailyMood", level=3, day=tomorrow).error_key == "MOOD_IN_FUTURE"
    assert mood.history(ana, 30) == []


def test_a_note_is_added_after_the_journal_and_its_words_never_come_back(ana):
    mood.save(ana, None, 2, "What I wrote alone")
    outcome = run(ana, "logDailyMood", level=3, note="Called my sister")
    assert "What I wrote alone" not in outcome.as_model_content and "Called my sister" not in outcome.as_model_content
    assert outcome.result["logged"]["has_text"] is True
    assert mood.read_journal(ana, today_for(ana)) == "What I wrote alone\n\nCalled my sister"


def test_the_history_gives_date_level_and_whether_text_exists(ana):
    current = today_for(ana)
    mood.save(ana, current - timedelta(days=1), 1, "Hard day, my words")
    mood.log(ana, 4)
    outcome = run(ana, "getUserMoodHistory", days=7)
    assert outcome.result == {
        "days": [
            {"date": current.isoformat(), "level": 4, "has_text": False},
            {"date": (current - timedelta(days=1)).isoformat(), "level": 1, "has_text": True},
        ],
        "logged": 2,
        "of_days": 7,
    }
    assert run(ana, "getUserMoodHistory").result["of_days"] == 14
    assert run(ana, "getUserMoodHistory", days=0).error_key == "INVALID_ARGUMENTS"
