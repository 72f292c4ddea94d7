"""The planner's invariants, pinned by property tests: the minutes add up to the week, no block is
over the largest size, every subject appears, and more weight never gets less time."""

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.study_cycles.planner import GOAL, NEXT, TIME, PlanImpossible, Subject, plan, share_week

weights = st.integers(min_value=1, max_value=5)
# No per-example deadline: the machine running the suite may be loaded; the speed has its own test.
unhurried = settings(deadline=None)


@st.composite
def configurations(draw):
    count = draw(st.integers(min_value=1, max_value=30))
    subjects = [Subject(key, draw(weights), draw(weights)) for key in range(count)]
    week = draw(st.integers(min_value=count, max_value=7 * 288)) * 5
    largest = draw(st.one_of(st.none(), st.integers(min_value=1, max_value=48).map(lambda steps: steps * 5)))
    return week, subjects, largest


@unhurried
@given(configurations())
def test_the_blocks_add_up_to_the_week(configuration):
    week, subjects, largest = configuration
    assert sum(block.minutes for block in plan(week, subjects, largest)) == week


@unhurried
@given(configurations())
def test_no_block_is_over_the_largest_size_and_every_block_is_in_steps_of_5(configuration):
    week, subjects, largest = configuration
    for block in plan(week, subjects, largest):
        assert 5 <= block.minutes <= (largest or 60) and block.minutes % 5 == 0


@unhurried
@given(configurations())
def test_every_subject_appears_and_the_blocks_are_numbered_from_1(configuration):
    week, subjects, largest = configuration
    queue = plan(week, subjects, largest)
    assert {block.subject for block in queue} == {subject.key for subject in subjects}
    assert [block.number for block in queue] == list(range(1, len(queue) + 1))


@unhurried
@given(configurations())
def test_more_weight_never_gets_less_time(configuration):
    week, subjects, _largest = configuration
    shares = share_week(week, subjects)
    for heavier in subjects:
        for lighter in subjects:
            if heavier.weight > lighter.weight:
                assert shares[heavier.key] >= shares[lighter.key]


@unhurried
@given(configurations(), st.data())
def test_hand_set_minutes_are_kept_and_the_rest_still_adds_up(configuration, data):
    week, subjects, _largest = configuration
    steps = week // 5
    if len(subjects) < 2 or steps < len(subjects) + 1:
        return
    fixed = data.draw(st.integers(min_value=1, max_value=steps - (len(subjects) - 1)))
    subjects[0] = Subject(subjects[0].key, 3, 3, fixed * 5)
    shares = share_week(week, subjects)
    assert shares[subjects[0].key] == fixed * 5 and sum(shares.values()) == week


def test_important_weakly_mastered_subjects_get_more():
    shares = share_week(300, [Subject("hard", 5, 1), Subject("easy", 1, 5)])
    assert shares == {"hard": 285, "easy": 15}  # weights 25 and 1, one step each first


def test_the_default_mode_goal_gives_each_block_the_concept_next():
    queue = plan(60, [Subject("a", 3, 3)], default_mode=GOAL)
    assert {(block.mode, block.concept) for block in queue} == {(GOAL, NEXT)}
    assert {(block.mode, block.concept) for block in plan(60, [Subject("a", 3, 3)])} == {(TIME, None)}


def test_subjects_alternate_along_the_queue():
    queue = plan(240, [Subject("a", 3, 3), Subject("b", 3, 3)], largest_block=30)
    assert [block.subject for block in queue] == ["a", "b"] * 4


def test_a_week_shorter_than_one_step_per_subject_is_impossible():
    with pytest.raises(PlanImpossible):
        plan(5, [Subject("a", 3, 3), Subject("b", 3, 3)])


def test_thirty_subjects_plan_in_well_under_50_ms():
    subjects = [Subject(key, key % 5 + 1, (key * 3) % 5 + 1) for key in range(30)]
    timings = []
    for _ in range(10):  # the best of ten: a loaded machine slows some runs, not the planner
        started = time.perf_counter()
        plan(7 * 240, subjects, largest_block=25)
        timings.append(time.perf_counter() - started)
    assert min(timings) < 0.010
