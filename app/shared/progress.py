"""XP and levels, and the streak figures every checkable thing carries.

Levels follow 50·L² (cumulative XP, levels 0..100) and are *derived* from the XP total, so
they can never disagree with it (the original stored both and drifted; see research §17.4).
"""

import math
from datetime import date

from sqlalchemy import Date, Float, Integer
from sqlalchemy.orm import Mapped, mapped_column

MAX_LEVEL = 100


def level_threshold(level):
    """XP needed to reach `level`."""
    return 50 * level * level


def level_for(xp):
    level = math.isqrt(int(max(xp, 0) // 50)) if xp > 0 else 0
    while level < MAX_LEVEL and xp >= level_threshold(level + 1):
        level += 1
    while level > 0 and xp < level_threshold(level):
        level -= 1
    return min(level, MAX_LEVEL)


class HasXp:
    """Mixin: an XP total and the level, floor and ceiling derived from it."""

    xp: Mapped[float] = mapped_column(Float, default=0.0)

    @property
    def level(self):
        return level_for(self.xp or 0)

    @property
    def level_xp(self):
        return level_threshold(self.level)

    @property
    def next_level_xp(self):
        return level_threshold(min(self.level + 1, MAX_LEVEL))


class HasStreak:
    """Mixin: streak figures, always recomputed from day outcomes (never incremented)."""

    current_streak: Mapped[int] = mapped_column(Integer, default=0)
    best_streak: Mapped[int] = mapped_column(Integer, default=0)
    total_check_ins: Mapped[int] = mapped_column(Integer, default=0)
    first_check_in: Mapped[date | None] = mapped_column(Date)
    last_check_in: Mapped[date | None] = mapped_column(Date)
