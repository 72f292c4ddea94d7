"""Goals: validation, progress steps, completion XP and its exact undo, the tree, archiving,
naming a goal, and the dashboard's horizon."""

from datetime import date, timedelta

import pytest

from app.extensions import db
from app.goals import services as goals
from app.goals.models import Goal, GoalStatus
from app.routines.models.history import XpDay
from app.shared.errors import Invalid, NotFound
from tests.builders import TODAY, a_category, a_goal


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"name": "G"}, {"name": "NAME_INVALID"}),
        ({"target_value": 0}, {"target_value": "TARGET_INVALID"}),
        ({"target_value": -3}, {"target_value": "TARGET_INVALID"}),
        ({"target_value": "lots"}, {"target_value": "TARGET_INVALID"}),
        ({"current_value": -1}, {"current_value": "VALUE_INVALID"}),
        ({"unit": ""}, {"unit": "UNIT_INVALID"}),
        ({"unit": "u" * 65}, {"unit": "UNIT_INVALID"}),
        ({"start_date": "someday"}, {"start_date": "DATE_INVALID"}),
        ({"start_date": date(2026, 2, 1), "end_date": date(2026, 1, 31)}, {"end_date": "DATES_OUT_OF_ORDER"}),
        ({"term": "FOREVER"}, {"term": "TERM_INVALID"}),
        ({"motivation": "m" * 257}, {"motivation": "TEXT_TOO_LONG"}),
    ],
)
def test_invalid_goals_are_refused_field_by_field(ana, fields, problem):
    with pytest.raises(Invalid) as refused:
        a_goal(ana, **fields)
    assert refused.value.details == problem
    assert db.session.scalar(db.select(db.func.count()).select_from(Goal)) == 0


def test_a_new_goal_starts_not_started_with_no_reward(ana):
    goal = a_goal(ana, start_date="2026-01-01", end_date="2026-01-01", term="short_term")
    assert (goal.status, goal.current_value, goal.xp_reward, goal.term) == (GoalStatus.NOT_STARTED, 0, 0, "SHORT_TERM")


def test_a_goal_created_with_progress_is_in_progress(ana):
    assert a_goal(ana, current_value=3).status == GoalStatus.IN_PROGRESS


def test_the_first_increase_starts_a_goal(ana):
    goal = a_goal(ana)
    goals.increase(ana, goal.id)
    assert (goal.current_value, goal.status) == (1, GoalStatus.IN_PROGRESS)
    goals.increase(ana, goal.id, 2.5)
    assert goal.current_value == 3.5


def test_increasing_past_the_target_never_completes_a_goal(ana):
    goal = a_goal(ana, target_value=2)
    goals.increase(ana, goal.id, 5)
    assert goal.status == GoalStatus.IN_PROGRESS and goal.xp_reward == 0 and ana.xp == 0


@pytest.mark.parametrize("value", [0, -1, "abc"])
def test_a_step_must_be_positive(ana, value):
    goal = a_goal(ana)
    for step in (goals.increase, goals.decrease):
        with pytest.raises(Invalid) as refused:
            step(ana, goal.id, value)
        assert refused.value.details == {"value": "AMOUNT_INVALID"}


def test_decrease_stops_at_zero_and_keeps_the_status(ana):
    goal = a_goal(ana, current_value=2)
    goals.decrease(ana, goal.id, 5)
    assert (goal.current_value, goal.status) == (0, GoalStatus.IN_PROGRESS)


@pytest.mark.parametrize(
    ("target", "span_days", "xp"),
    [(2, 1, 98), (20, 30, 187), (100, 5, 585), (500, 120, 780)],
)
def test_completion_xp_follows_the_formula(ana, target, span_days, xp):
    goal = a_goal(ana, target_value=target, start_date=TODAY, end_date=TODAY + timedelta(days=span_days))
    assert goals.completion_xp(goal, TODAY) == xp


def test_no_consistency_bonus_once_the_deadline_has_come(ana):
    goal = a_goal(ana, target_value=100, start_date=TODAY - timedelta(days=5), end_date=TODAY)
    assert goals.completion_xp(goal, TODAY) == 450  # 200 × 1.5 × 1.5 × 1.0


def test_completing_grants_the_reward_to_the_user_and_each_category(ana):
    health, mind = a_category(ana, "Health"), a_category(ana, "Mind")
    goal = a_goal(
        ana, target_value=100, start_date=TODAY, end_date=TODAY + timedelta(days=5), categories=[health.id, mind.id]
    )
    goals.complete(ana, goal.id, today=TODAY)
    assert (goal.status, goal.completed_on, goal.xp_reward) == (GoalStatus.COMPLETED, TODAY, 585)
    assert (ana.xp, health.xp, mind.xp) == (585, 585, 585)


def test_undo_takes_back_exactly_the_reward_even_after_the_deadline(ana):
    health = a_category(ana, "Health", experience="INTERMEDIATE")
    goal = a_goal(ana, target_value=100, start_date=TODAY, end_date=TODAY + timedelta(days=5), categories=[health.id])
    goals.complete(ana, goal.id, today=TODAY)
    goals.complete(ana, goal.id, today=TODAY + timedelta(days=30))  # the formula would now say 450
    assert (ana.xp, health.xp) == (0, 1250)
    assert (goal.status, goal.completed_on, goal.xp_reward) == (GoalStatus.IN_PROGRESS, None, 0)
    assert all(row.xp == 0 for row in db.session.scalars(db.select(XpDay)))


def test_asking_for_the_state_a_goal_is_in_changes_nothing(ana):
    goal = a_goal(ana)
    goals.complete(ana, goal.id, done=False, today=TODAY)
    assert goal.status == GoalStatus.NOT_STARTED and ana.xp == 0
    goals.complete(ana, goal.id, done=True, today=TODAY)
    reward = ana.xp
    goals.complete(ana, goal.id, done=True, today=TODAY)
    assert ana.xp == reward > 0


def test_the_status_cannot_be_set_to_completed_by_an_edit(ana):
    goal = a_goal(ana)
    with pytest.raises(Invalid) as refused:
        goals.edit(ana, goal.id, status="COMPLETED")
    assert refused.value.details == {"status": "GOAL_STATUS_INVALID"}
    goals.edit(ana, goal.id, status="in_progress")
    assert goal.status == GoalStatus.IN_PROGRESS


def test_a_completed_goal_keeps_its_status_through_edits(ana):
    goal = a_goal(ana)
    goals.complete(ana, goal.id, today=TODAY)
    with pytest.raises(Invalid):
        goals.edit(ana, goal.id, status="NOT_STARTED")
    goals.edit(ana, goal.id, name="Read 12 good books")
    assert goal.status == GoalStatus.COMPLETED


def test_an_edit_changes_only_the_fields_given_and_checks_the_period_as_a_whole(ana):
    goal = a_goal(ana, description="Novels")
    goals.edit(ana, goal.id, target_value="24")
    assert (goal.target_value, goal.description, goal.unit) == (24, "Novels", "books")
    with pytest.raises(Invalid) as refused:
        goals.edit(ana, goal.id, end_date="2025-12-31")
    assert refused.value.details == {"end_date": "DATES_OUT_OF_ORDER"}


def test_a_goal_moves_under_another_and_back_to_the_top(ana):
    year, month = a_goal(ana, "Read 12 books"), a_goal(ana, "Read 1 book in March")
    goals.move_under(ana, month.id, year.id)
    assert month.parent_id == year.id and year.children == [month]
    goals.move_under(ana, "march", None)
    assert month.parent_id is None


def test_a_goal_cannot_go_under_itself_or_its_own_sub_goals(ana):
    top, middle, bottom = a_goal(ana, "Top"), a_goal(ana, "Middle"), a_goal(ana, "Bottom")
    goals.move_under(ana, middle.id, top.id)
    goals.move_under(ana, bottom.id, middle.id)
    with pytest.raises(Invalid) as itself:
        goals.move_under(ana, top.id, top.id)
    assert itself.value.key == "GOAL_SELF_PARENT"
    for descendant in (middle, bottom):
        with pytest.raises(Invalid) as cycle:
            goals.move_under(ana, top.id, descendant.id)
        assert cycle.value.key == "GOAL_CYCLE"
    with pytest.raises(Invalid) as by_edit:
        goals.edit(ana, top.id, parent=bottom.id)
    assert by_edit.value.details == {"parent": "GOAL_CYCLE"}
    db.session.expire_all()
    assert top.parent_id is None


def test_deleting_a_goal_moves_its_sub_goals_up_to_its_parent(ana):
    top, middle, bottom = a_goal(ana, "Top"), a_goal(ana, "Middle"), a_goal(ana, "Bottom")
    goals.move_under(ana, middle.id, top.id)
    goals.move_under(ana, bottom.id, middle.id)
    goals.delete(ana, middle.id)
    db.session.expire_all()
    assert bottom.parent_id == top.id
    assert db.session.get(Goal, middle.id) is None


def test_the_tree_lists_sub_goals_under_their_parent(ana):
    top = a_goal(ana, "Top", end_date=date(2026, 12, 31))
    a_goal(ana, "Lonely", end_date=date(2026, 6, 30))
    a_goal(ana, "Child", parent=top.id, end_date=date(2026, 5, 31))
    rows = goals.tree(ana)
    assert [(row.goal.name, row.depth) for row in rows] == [("Lonely", 0), ("Top", 0), ("Child", 1)]


def test_archiving_leaves_the_list_keeps_the_history_and_spares_the_children(ana):
    top = a_goal(ana, "Top")
    child = a_goal(ana, "Child", parent=top.id)
    goals.complete(ana, top.id, today=TODAY)
    reward = ana.xp
    goals.archive(ana, top.id)
    assert [g.name for g in goals.listing(ana)] == ["Child"]
    assert [g.name for g in goals.listing(ana, archived=True)] == ["Top"]
    assert ana.xp == reward and top.status == GoalStatus.COMPLETED
    (row,) = goals.tree(ana)
    assert row.goal is child and row.hidden_parent is top
    goals.restore(ana, "top")
    assert [(row.goal.name, row.depth) for row in goals.tree(ana)] == [("Top", 0), ("Child", 1)]


def test_nothing_new_goes_under_an_archived_goal(ana):
    top, other = a_goal(ana, "Top"), a_goal(ana, "Other")
    goals.archive(ana, top.id)
    with pytest.raises(Invalid) as refused:
        goals.move_under(ana, other.id, top.id)
    assert refused.value.key == "GOAL_PARENT_ARCHIVED"


def test_an_ambiguous_parent_is_refused_with_the_candidates(ana):
    a_goal(ana, "Run 100 km"), a_goal(ana, "Run a marathon")
    with pytest.raises(Invalid) as refused:
        a_goal(ana, "Run 5 km first", parent="run")
    assert refused.value.key == "GOAL_AMBIGUOUS" and "Run a marathon" in refused.value.to_dict()["message"]


def test_a_goal_is_named_by_id_exact_name_or_a_unique_piece_of_its_name(ana):
    books = a_goal(ana, "Read 12 books")
    a_goal(ana, "Run 100 km")
    assert goals.resolve(ana, str(books.id)) is books
    assert goals.resolve(ana, "read 12 BOOKS") is books
    assert goals.resolve(ana, "books") is books
    with pytest.raises(NotFound) as missing:
        goals.resolve(ana, "swim")
    assert missing.value.key == "GOAL_NOT_FOUND"


def test_an_ambiguous_piece_of_a_name_lists_the_candidates_with_their_ids(ana):
    first, second = a_goal(ana, "Run 100 km"), a_goal(ana, "Run a marathon")
    with pytest.raises(Invalid) as refused:
        goals.resolve(ana, "run")
    assert refused.value.key == "GOAL_AMBIGUOUS"
    for goal in (first, second):
        assert goal.name in refused.value.message and str(goal.id) in refused.value.message


def test_an_exact_name_wins_over_pieces_and_active_goals_win_over_archived(ana):
    run = a_goal(ana, "Run")
    a_goal(ana, "Run a marathon")
    assert goals.resolve(ana, "run") is run
    old, new = a_goal(ana, "Swim 5 km"), a_goal(ana, "Swim 5 km")
    goals.archive(ana, old.id)
    assert goals.resolve(ana, "swim 5 km") is new


def test_another_users_goal_is_not_found(ana, bruno):
    theirs = a_goal(bruno, "Bruno's goal")
    mine = a_goal(ana, "Mine")
    for call in (
        lambda: goals.increase(ana, theirs.id),
        lambda: goals.complete(ana, theirs.id),
        lambda: goals.archive(ana, theirs.id),
        lambda: goals.move_under(ana, mine.id, theirs.id),
        lambda: goals.resolve(ana, "Bruno"),
    ):
        with pytest.raises(NotFound) as refused:
            call()
        assert refused.value.key == "GOAL_NOT_FOUND"
    db.session.expire_all()
    assert (theirs.current_value, theirs.status, mine.parent_id) == (0, GoalStatus.NOT_STARTED, None)


def test_the_horizon_groups_unfinished_goals_by_deadline(ana):
    # TODAY is Wednesday 11 March 2026: the week ends on Sunday the 15th, the month on the 31st.
    for name, end in [
        ("Late", date(2026, 3, 10)),
        ("Friday", date(2026, 3, 13)),
        ("Sunday", date(2026, 3, 15)),
        ("Month end", date(2026, 3, 31)),
        ("April", date(2026, 4, 1)),
    ]:
        a_goal(ana, name, start_date=date(2026, 3, 1), end_date=end)
    done = a_goal(ana, "Done", start_date=date(2026, 3, 1), end_date=date(2026, 3, 12))
    goals.complete(ana, done.id, today=TODAY)
    archived = a_goal(ana, "Archived", start_date=date(2026, 3, 1), end_date=date(2026, 3, 12))
    goals.archive(ana, archived.id)
    horizon = goals.horizon(ana, today=TODAY)
    assert [[g.name for g in group] for _key, group in horizon.groups()] == [
        ["Late"],
        ["Friday", "Sunday"],
        ["Month end"],
        ["April"],
    ]
