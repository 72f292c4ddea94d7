"""XP per check, levels, and what a late check still pays."""

import pytest

from app.profile.models import XpDecay
from app.routines.streaks import check_xp, decay_multiplier
from app.shared.progress import level_for, level_threshold


@pytest.mark.parametrize(
    ("difficulty", "importance", "streak", "xp"),
    [(1, 1, 0, 10), (2, 3, 0, 25), (5, 5, 0, 50), (5, 5, 25, 63), (5, 5, 50, 75), (5, 5, 400, 75)],
)
def test_check_xp_follows_the_formula(difficulty, importance, streak, xp):
    assert check_xp(difficulty, importance, streak) == xp


def test_a_negative_streak_earns_no_bonus():
    assert check_xp(1, 1, -3) == 10


@pytest.mark.parametrize(("level", "xp"), [(0, 0), (1, 50), (2, 200), (10, 5000), (100, 500_000)])
def test_levels_start_at_fifty_times_the_level_squared(level, xp):
    assert level_threshold(level) == xp
    assert level_for(xp) == level
    if level:
        assert level_for(xp - 0.5) == level - 1


@pytest.mark.parametrize(
    ("strategy", "days_late", "share"),
    [
        (XpDecay.GRADUAL, 1, 0.8),
        (XpDecay.GRADUAL, 2, 0.6),
        (XpDecay.GRADUAL, 3, 0.4),
        (XpDecay.GRADUAL, 4, 0.2),
        (XpDecay.GRADUAL, 30, 0.2),
        (XpDecay.FLAT, 1, 0.5),
        (XpDecay.FLAT, 9, 0.5),
        (XpDecay.TIME_WINDOW, 1, 1.0),
        (XpDecay.TIME_WINDOW, 2, 1.0),
        (XpDecay.TIME_WINDOW, 3, 0.0),
    ],
)
def test_late_checks_pay_the_users_decay_share(strategy, days_late, share):
    assert decay_multiplier(strategy, days_late) == share
