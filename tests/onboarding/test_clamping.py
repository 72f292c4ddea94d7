"""The onboarding answer is hostile until proven useful: each cleaning rule, one at a time."""

from app.onboarding import services as onboarding
from app.onboarding.services import (
    CategoriesAnswer,
    GoalsAnswer,
    ItemsAnswer,
    RoutineAnswer,
    clean_categories,
    clean_goals,
    clean_items,
    clean_routine,
    normalise_weekdays,
    pulled_inside,
)
from tests.builders import a_category, a_habit, a_task


def categories(*names, icon="heart"):
    return CategoriesAnswer(categories=[{"name": name, "icon": icon} for name in names])


def test_category_names_the_person_typed_are_kept_as_typed(ana):
    said = "saúde, Work and family time"
    found = clean_categories(ana, categories("Saude", "work", "Family Time", "Finance"), said)
    assert [item["name"] for item in found] == ["saúde", "Work", "family time", "Finance"]


def test_every_list_is_capped(ana):
    found = clean_categories(ana, categories(*(f"Area {n}" for n in range(20))), "")
    assert len(found) == onboarding.CATEGORIES_MAX == 8
    items = ItemsAnswer(
        habits=[{"name": f"Habit {n}"} for n in range(12)], tasks=[{"name": f"Task {n}"} for n in range(12)]
    )
    kinds = [item["kind"] for item in clean_items(ana, items, "")]
    assert kinds.count("habit") == 8 and kinds.count("task") == 8
    goals = GoalsAnswer(goals=[{"name": f"Goal {n}"} for n in range(9)])
    assert len(clean_goals(ana, goals, "")) == 5


def test_a_name_twice_and_a_name_too_short_are_dropped(ana):
    found = clean_categories(ana, categories("Health", "health ", "x", None, ""), "")
    assert [item["name"] for item in found] == ["Health"]


def test_importance_and_difficulty_are_clamped_to_one_to_five(ana):
    items = ItemsAnswer(habits=[{"name": "Run", "importance": 9, "difficulty": -3},
                                {"name": "Read", "difficulty": 2.6}])  # fmt: skip
    found = clean_items(ana, items, "")
    assert [(item["importance"], item["difficulty"]) for item in found] == [(5, 1), (3, 3)]


def test_icons_come_only_from_the_catalogue(ana):
    found = clean_categories(ana, categories("Health", icon="rocket-ship-9000"), "")
    assert found[0]["icon"] == "star"
    assert clean_categories(ana, categories("Health", icon="heart"), "")[0]["icon"] == "heart"


def test_only_the_account_s_own_categories_are_kept_as_the_account_spells_them(ana):
    a_category(ana, "Saúde")
    items = ItemsAnswer(habits=[{"name": "Run", "categories": ["saude", "Made up"]}])
    assert clean_items(ana, items, "")[0]["categories"] == ["Saúde"]


def test_weekdays_are_normalised_from_numbers_and_names_in_either_language():
    assert normalise_weekdays(["Mon", "tuesday", "Quarta", 6, "7", "funday", True, "sex"]) == [0, 1, 2, 4, 6]


def test_item_times_are_pulled_inside_their_section_s_window():
    seven, nine = 7 * 60, 9 * 60
    assert pulled_inside(6 * 60 + 30, 9 * 60 + 30, seven, nine) == (seven, nine)
    assert pulled_inside(10 * 60, None, seven, nine) == (nine, None)
    assert pulled_inside(7 * 60 + 30, 7 * 60, seven, nine) == (
        7 * 60 + 30,
        7 * 60 + 30,
    )  # the end never before the start
    assert pulled_inside(23 * 60 + 30, None, 22 * 60, 6 * 60) == (23 * 60 + 30, None)  # past midnight: fits
    assert pulled_inside(12 * 60, 13 * 60, 22 * 60, 6 * 60) == (None, None)  # past midnight: no guess


def test_the_routine_keeps_known_items_times_inside_and_drops_sections_without_a_start(ana):
    run = a_habit(ana, "Run")
    a_task(ana, "Call mom")
    answer = RoutineAnswer(name="Mornings", icon="nope", weekdays=["mon", "FRIDAY"], sections=[
        {"name": "Morning", "starts_at": "07:00", "ends_at": "09:00",
         "items": [{"name": "run", "starts_at": "06:00", "ends_at": "10:00"}, {"name": "Fly to the moon"},
                   {"name": "call mom", "starts_at": "8h30"}]},
        {"name": "Whenever", "starts_at": "soon"},
    ])  # fmt: skip
    (routine,) = clean_routine(ana, answer, "")
    assert (routine["name"], routine["icon"], routine["weekdays"]) == ("Mornings", "star", [0, 4])
    (section,) = routine["sections"]
    assert section["items"] == [
        {"kind": "habit", "name": run.name, "starts_at": "07:00", "ends_at": "09:00"},
        {"kind": "task", "name": "Call mom", "starts_at": "08:30", "ends_at": None},
    ]


def test_goals_get_a_sane_target_a_term_and_whole_months(ana):
    answer = GoalsAnswer(goals=[{"name": "Read", "target_value": 1e12, "unit": "", "term": "LONG_TERM", "months": 500},
                                {"name": "Save", "term": "someday", "months": -2}])  # fmt: skip
    read, save = clean_goals(ana, answer, "")
    assert (read["target_value"], read["unit"], read["term"], read["months"]) == (1_000_000, "times", "LONG_TERM", 60)
    assert (save["target_value"], save["term"], save["months"]) == (1.0, "MEDIUM_TERM", 1)
