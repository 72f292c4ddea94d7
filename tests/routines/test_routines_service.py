"""Creating and editing routines: windows, overnight sections, ±5 minutes, merges that keep ids."""

from datetime import time

import pytest

from app.extensions import db
from app.routines import services as routines
from app.routines import today
from app.routines.models.checks import EntryCheck
from app.routines.models.history import OwnerType, XpDay
from app.routines.models.routines import Routine, RoutineEntry, RoutineKind
from app.shared.errors import Invalid, NotFound
from tests.routines.conftest import NOW, entry_of, make_habit, make_task, morning


def timed(user, *, starts="07:00", ends="09:00", entries=()):
    return routines.create_timed(
        user, "Morning", "sun", [{"name": "Wake up", "starts_at": starts, "ends_at": ends, "entries": list(entries)}]
    )


def refusal_of(call):
    with pytest.raises((Invalid, NotFound)) as refused:
        call()
    return refused.value


def test_a_timed_routine_keeps_its_sections_and_entries_in_order(user):
    read, tidy = make_habit(user, "Read"), make_task(user, "Tidy")
    routine = routines.create_timed(
        user,
        "Morning",
        "sun",
        [
            {
                "name": "Wake up",
                "starts_at": "07:00",
                "ends_at": "08:00",
                "entries": [{"habit_id": read.id, "starts_at": "07:10"}],
            },
            {"name": "Out", "starts_at": "08:00", "entries": [{"task_id": "Tidy"}]},
        ],
    )
    picture = routines.describe(routine)
    assert [s["name"] for s in picture["sections"]] == ["Wake up", "Out"]
    assert picture["sections"][0]["entries"][0] | {"id": None} == {
        "id": None, "type": "HABIT", "habit_id": str(read.id), "task_id": None, "name": "Read",
        "starts_at": "07:10", "ends_at": None,
    }  # fmt: skip
    assert picture["sections"][1]["entries"][0]["task_id"] == str(tidy.id)


def test_a_list_routine_has_items_and_no_times(user):
    read = make_habit(user, "Read")
    routine = routines.create_list(user, "Chores", entries=[{"habit_id": read.id}])
    assert routine.kind == RoutineKind.LIST and routine.sections == []
    assert [entry.habit_id for entry in routine.entries] == [read.id]


@pytest.mark.parametrize(
    ("name", "sections", "key"),
    [
        ("", [{"name": "A", "starts_at": "07:00"}], "ROUTINE_NAME_REQUIRED"),
        ("x" * 257, [{"name": "A", "starts_at": "07:00"}], "ROUTINE_NAME_TOO_LONG"),
        ("Day", [], "ROUTINE_SECTION_REQUIRED"),
        ("Day", [{"name": " ", "starts_at": "07:00"}], "ROUTINE_SECTION_NAME_REQUIRED"),
        ("Day", [{"name": "A"}], "ROUTINE_SECTION_START_REQUIRED"),
        ("Day", [{"name": "A", "starts_at": "7h"}], "TIME_INVALID"),
    ],
)
def test_a_routine_is_refused_with_the_reason(user, name, sections, key):
    refused = refusal_of(lambda: routines.create_timed(user, name, None, sections))
    assert refused.key == key
    assert db.session.scalar(db.select(db.func.count(Routine.id))) == 0


@pytest.mark.parametrize(
    ("starts", "ends", "entry", "key"),
    [
        ("07:00", "09:00", {"starts_at": "06:55"}, None),
        ("07:00", "09:00", {"starts_at": "06:54"}, "ITEM_START_OUT_OF_SECTION"),
        ("07:00", "09:00", {"starts_at": "08:00", "ends_at": "09:05"}, None),
        ("07:00", "09:00", {"starts_at": "08:00", "ends_at": "09:06"}, "ITEM_END_OUT_OF_SECTION"),
        ("07:00", "09:00", {"starts_at": "08:30", "ends_at": "08:00"}, "ITEM_END_BEFORE_START"),
        ("07:00", None, {"starts_at": "23:00"}, None),
        ("07:00", None, {"starts_at": "06:50"}, "ITEM_START_OUT_OF_SECTION"),
        ("22:00", "02:00", {"starts_at": "23:30", "ends_at": "00:30"}, None),
        ("22:00", "02:00", {"starts_at": "01:00"}, None),
        ("22:00", "02:00", {"starts_at": "12:00"}, "ITEM_START_OUT_OF_SECTION"),
        ("22:00", "02:00", {"starts_at": "01:00", "ends_at": "02:05"}, None),
        ("22:00", "02:00", {"starts_at": "01:00", "ends_at": "03:00"}, "ITEM_END_OUT_OF_SECTION"),
    ],
)
def test_entry_times_sit_inside_the_section_window_give_or_take_five_minutes(user, starts, ends, entry, key):
    habit = make_habit(user)
    create = lambda: timed(user, starts=starts, ends=ends, entries=[{"habit_id": habit.id, **entry}])  # noqa: E731
    if key is None:
        assert create().entries[0].starts_at is not None
    else:
        refused = refusal_of(create)
        assert refused.key == key and key in refused.details.values()


def test_another_users_habit_or_task_is_not_found(user, other):
    habit, task = make_habit(other), make_task(other)
    assert refusal_of(lambda: timed(user, entries=[{"habit_id": habit.id}])).key == "HABIT_NOT_FOUND"
    assert refusal_of(lambda: timed(user, entries=[{"task_id": task.id}])).key == "TASK_NOT_FOUND"
    routine = timed(user)
    section_id = routine.sections[0].id
    refused = refusal_of(lambda: routines.add_entry(user, routine.id, habit_id=habit.id, section_id=section_id))
    assert refused.key == "HABIT_NOT_FOUND"


def test_an_entry_needs_exactly_one_habit_or_task(user):
    habit, task = make_habit(user), make_task(user)
    refused = refusal_of(lambda: timed(user, entries=[{"habit_id": habit.id, "task_id": task.id}]))
    assert refused.key == "ENTRY_ITEM_REQUIRED"


def test_another_users_routine_is_not_found_everywhere(user, other):
    routine = morning(other, make_habit(other))
    section_id, entry_id = routine.sections[0].id, entry_of(routine).id
    calls = [
        lambda: routines.get(user, routine.id),
        lambda: routines.resolve(user, "Morning"),
        lambda: routines.rename(user, routine.id, "Mine"),
        lambda: routines.add_section(user, routine.id, "Noon", "12:00"),
        lambda: routines.edit_section(user, routine.id, section_id, name="Mine"),
        lambda: routines.remove_section(user, routine.id, section_id),
        lambda: routines.move_section(user, routine.id, section_id, 1),
        lambda: routines.add_entry(user, routine.id, habit_id=make_habit(user).id, section_id=section_id),
        lambda: routines.edit_entry(user, entry_id, starts_at="07:30"),
        lambda: routines.move_entry(user, entry_id, 1),
        lambda: routines.remove_entry(user, entry_id),
        lambda: routines.replace(user, routine.id, {"name": "Mine", "sections": []}),
        lambda: routines.delete(user, routine.id),
    ]
    for call in calls:
        assert isinstance(refusal_of(call), NotFound)
    db.session.refresh(routine)
    assert routine.name == "Morning" and len(routine.entries) == 1


def test_resolve_finds_a_routine_by_id_or_name_and_refuses_an_ambiguous_name(user):
    first = timed(user)
    assert routines.resolve(user, "morning") is first
    assert routines.resolve(user, str(first.id)) is first
    timed(user)
    assert refusal_of(lambda: routines.resolve(user, "Morning")).key == "ROUTINE_AMBIGUOUS"


def test_replace_keeps_known_ids_removes_the_rest_and_ignores_invented_ids(user):
    read, run, tidy = make_habit(user, "Read"), make_habit(user, "Run"), make_task(user, "Tidy")
    routine = timed(user, entries=[{"habit_id": read.id}, {"habit_id": run.id}])
    kept_section, kept_entry, dropped_entry = routine.sections[0].id, routine.entries[0].id, routine.entries[1].id
    stranger = "00000000-0000-0000-0000-000000000001"
    routines.replace(
        user,
        routine.id,
        {
            "name": "Dawn",
            "sections": [
                {"id": stranger, "name": "First", "starts_at": "06:00",
                 "entries": [{"id": stranger, "task_id": tidy.id}]},
                {"id": str(kept_section), "name": "Wake up", "starts_at": "07:00", "ends_at": "09:00",
                 "entries": [{"id": str(kept_entry), "habit_id": read.id, "starts_at": "07:30"}]},
            ],
        },
    )  # fmt: skip
    db.session.expire_all()
    routine = db.session.get(Routine, routine.id)
    assert routine.name == "Dawn"
    assert [s.name for s in routine.sections] == ["First", "Wake up"]
    assert routine.sections[1].id == kept_section
    assert str(routine.sections[0].id) != stranger
    ids = {entry.id for entry in routine.entries}
    assert kept_entry in ids and dropped_entry not in ids and len(ids) == 2
    assert db.session.get(RoutineEntry, kept_entry).starts_at == time(7, 30)


def test_an_entry_kept_by_replace_keeps_its_check_history(user):
    read = make_habit(user, "Read")
    routine = morning(user, read)
    entry_id = entry_of(routine).id
    today.check(user, entry_id, now=NOW)
    tree = routines.describe(routine)
    tree["sections"][0]["name"] = "Renamed"
    routines.replace(user, routine.id, tree)
    assert entry_of(routine).id == entry_id
    assert today.today_routine(user, NOW.date()).entries[0].checked
    assert today.check(user, entry_id, now=NOW).entry.checked is False  # the toggle still finds today's check


def test_replace_refuses_a_bad_tree_without_changing_anything(user):
    routine = timed(user)
    refused = refusal_of(
        lambda: routines.replace(user, routine.id, {"name": "X", "sections": [{"name": "A", "starts_at": "25:00"}]})
    )
    assert refused.details == {"sections[0].starts_at": "TIME_INVALID"}
    db.session.expire_all()
    assert db.session.get(Routine, routine.id).name == "Morning"


def test_editing_a_section_window_rechecks_its_entries(user):
    habit = make_habit(user)
    routine = timed(user, entries=[{"habit_id": habit.id, "starts_at": "08:30"}])
    refused = refusal_of(lambda: routines.edit_section(user, routine.id, routine.sections[0].id, ends_at="08:00"))
    assert refused.key == "ITEM_START_OUT_OF_SECTION"
    routines.edit_section(user, routine.id, routine.sections[0].id, ends_at=None, name="Open")
    assert routine.sections[0].ends_at is None and routine.sections[0].name == "Open"


def test_pieces_can_be_added_moved_and_removed(user):
    read, run = make_habit(user, "Read"), make_habit(user, "Run")
    routine = timed(user)
    routines.add_section(user, routine.id, "Evening", "20:00", "22:00")
    evening = routine.sections[1]
    routines.add_entry(user, routine.id, habit_id=read.id, section_id=evening.id, starts_at="20:15")
    routines.add_entry(user, routine.id, habit_id="Run", section_id=evening.id)
    routines.move_entry(user, evening.entries[1].id, -1)
    assert [entry.item.name for entry in evening.entries] == ["Run", "Read"]
    routines.move_section(user, routine.id, evening.id, -1)
    assert [section.name for section in routine.sections] == ["Evening", "Wake up"]
    routines.remove_entry(user, evening.entries[0].id)
    assert [entry.item.name for entry in routine.entries] == ["Read"]
    routines.remove_section(user, routine.id, routine.sections[1].id)
    assert refusal_of(lambda: routines.remove_section(user, routine.id, evening.id)).key == "ROUTINE_SECTION_REQUIRED"
    assert run.id  # the habit itself stays


def test_a_list_routine_refuses_sections(user):
    routine = routines.create_list(user, "Chores")
    assert (
        refusal_of(lambda: routines.add_section(user, routine.id, "A", "07:00")).key == "LIST_ROUTINE_HAS_NO_SECTIONS"
    )


def test_deleting_a_routine_keeps_its_habits_history(user):
    habit = make_habit(user)
    routine = morning(user, habit)
    today.check(user, entry_of(routine).id, now=NOW)
    routines.delete(user, routine.id)
    assert db.session.get(Routine, routine.id) is None
    assert habit.xp == 10 and habit.total_check_ins == 1
    assert db.session.scalar(db.select(XpDay).where(XpDay.owner_type == OwnerType.ROUTINE)) is None
    assert db.session.scalar(db.select(EntryCheck.item_name)) == "Read"


def test_every_edit_announces_routines(user):
    from app import events

    with events.collecting() as domains:
        timed(user)
    assert domains == {"routines"}
