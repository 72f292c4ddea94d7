"""Mood: one entry per local day (a second log updates it), never a future day, a level from 1 to
5, and a journal that the assistant's writer only ever adds to."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from flask_babel import force_locale

from app.extensions import db
from app.mood import services as mood
from app.mood.models import MoodEntry
from app.profile import configuration
from app.shared.days import today_for
from app.shared.errors import Invalid


def rows(user):
    return db.session.scalars(db.select(MoodEntry).where(MoodEntry.user_id == user.id).order_by(MoodEntry.day)).all()


def test_a_second_log_for_the_same_day_updates_it(ana):
    mood.log(ana, 2)
    logged = mood.log(ana, "5")
    assert logged == mood.MoodDay(today_for(ana), 5, False)
    assert [(row.day, row.level) for row in rows(ana)] == [(today_for(ana), 5)]


def test_the_page_save_updates_the_day_and_replaces_or_clears_its_journal(ana):
    yesterday = today_for(ana) - timedelta(days=1)
    mood.save(ana, yesterday.isoformat(), 3, "A long walk.")
    saved = mood.save(ana, yesterday, 4, "A long walk, then soup.")
    assert saved == mood.MoodDay(yesterday, 4, True)
    assert mood.read_journal(ana, yesterday) == "A long walk, then soup."
    assert mood.save(ana, yesterday, 4, "  \n ").has_text is False
    assert mood.read_journal(ana, yesterday) is None
    assert len(rows(ana)) == 1


def test_a_past_day_is_allowed_and_a_future_one_refused(ana):
    current = today_for(ana)
    assert mood.log(ana, 3, day=current - timedelta(days=40)).day == current - timedelta(days=40)
    with pytest.raises(Invalid) as refused:
        mood.log(ana, 3, day=current + timedelta(days=1))
    assert refused.value.key == "MOOD_IN_FUTURE" and refused.value.details == {"day": "MOOD_IN_FUTURE"}
    with pytest.raises(Invalid) as refused:
        mood.save(ana, "2026-02-30", 3, "")
    assert refused.value.details == {"day": "DATE_INVALID"}
    assert len(rows(ana)) == 1


@pytest.mark.parametrize("level", [0, 6, -1, "6", "three", "", None, True, 2.5])
def test_a_level_outside_1_to_5_is_refused_with_a_translated_message(ana, level):
    with pytest.raises(Invalid) as refused:
        mood.log(ana, level)
    assert refused.value.key == "MOOD_LEVEL_INVALID"
    assert "1 (awful) to 5 (great)" in refused.value.message
    with force_locale("pt"):
        assert "1 (péssimo) a 5 (ótimo)" in refused.value.message
    assert rows(ana) == []


def test_today_is_the_user_s_local_day(ana, bruno):
    ana.timezone, bruno.timezone = "Pacific/Kiritimati", "Pacific/Pago_Pago"  # UTC+14 and UTC-11
    db.session.commit()
    early, late = mood.log(ana, 4), mood.log(bruno, 2)
    assert early.day == datetime.now(ZoneInfo("Pacific/Kiritimati")).date()
    assert late.day == datetime.now(ZoneInfo("Pacific/Pago_Pago")).date()
    assert early.day > late.day  # 25 hours apart: one or two calendar days
    with pytest.raises(Invalid):  # Kiritimati's today is still the future in Pago Pago
        mood.log(bruno, 2, day=early.day)


def test_the_assistant_s_note_is_appended_and_never_replaces_the_journal(ana):
    mood.save(ana, None, 2, "Rough meeting. I wrote this myself.")
    mood.log(ana, 3, note="Felt better after the run")
    mood.log(ana, 4)
    assert mood.read_journal(ana, today_for(ana)) == "Rough meeting. I wrote this myself.\n\nFelt better after the run"
    assert mood.day_of(ana, today_for(ana)) == mood.MoodDay(today_for(ana), 4, True)


def test_a_note_on_a_day_without_journal_starts_it(ana):
    mood.log(ana, 4, note="Great day")
    assert mood.read_journal(ana, today_for(ana)) == "Great day"


def test_the_journal_limit_counts_the_note_and_a_refusal_changes_nothing(ana):
    mood.save(ana, None, 2, "x" * 9_990)
    with pytest.raises(Invalid) as refused:
        mood.log(ana, 5, note="a note of twenty characters")
    assert refused.value.details == {"note": "MOOD_JOURNAL_TOO_LONG"}
    assert mood.day_of(ana, today_for(ana)).level == 2
    with pytest.raises(Invalid) as refused:
        mood.save(ana, None, 3, "y" * 10_001)
    assert refused.value.details == {"journal": "MOOD_JOURNAL_TOO_LONG"}
    assert len(mood.read_journal(ana, today_for(ana))) == 9_990


def test_history_and_week_give_date_level_and_whether_text_exists(ana):
    current = today_for(ana)
    mood.save(ana, current - timedelta(days=2), 2, "private words")
    mood.log(ana, 4, day=current)
    mood.log(ana, 1, day=current - timedelta(days=20))
    assert mood.history(ana, 7) == [mood.MoodDay(current, 4, False), mood.MoodDay(current - timedelta(days=2), 2, True)]
    assert len(mood.history(ana, 21)) == 3
    assert mood.history(ana, 7)[1].as_data() == {"date": (current - timedelta(days=2)).isoformat(), "level": 2,
                                                 "has_text": True}  # fmt: skip
    week = mood.week(ana)
    assert [day for day, _ in week] == [current - timedelta(days=offset) for offset in range(6, -1, -1)]
    assert [found.level if found else None for _, found in week] == [None, None, None, None, 2, None, 4]
    for days in (0, 367, "7", True):
        with pytest.raises(Invalid) as refused:
            mood.history(ana, days)
        assert refused.value.key == "MOOD_DAYS_INVALID"


def test_a_user_reads_only_their_own_moods(ana, bruno):
    mood.save(bruno, None, 1, "Bruno's words")
    assert mood.history(ana, 30) == [] and mood.read_journal(ana, today_for(ana)) is None
    assert mood.week(ana)[-1][1] is None


def test_the_export_carries_the_journal_to_its_owner(ana):
    mood.save(ana, None, 4, "My own words")
    (day,) = configuration.export(ana, now=datetime(2026, 1, 1, tzinfo=UTC))["mood"]
    assert day["date"] == today_for(ana).isoformat() and day["level"] == 4 and day["journal"] == "My own words"
