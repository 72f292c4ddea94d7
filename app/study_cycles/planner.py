"""The study planner: a cycle's configuration in, a numbered queue of blocks out.

Pure: no database, no clock, no user. The page's editor and the assistant's `createStudyCycle`
call the same function through app/study_cycles/services.py, so both get the same queue.

How the week is shared: in steps of 5 minutes. A subject with minutes set by hand gets exactly
those; every other subject gets one step, and the rest of the week is shared by weight
(importance × (6 − mastery): important, weakly mastered subjects get more), largest remainder
first, so the minutes always add up to the week and more weight never gets less time. Each
subject's minutes are then cut into blocks of at most the largest block, as even as the steps
allow, and the blocks of all subjects are interleaved so no subject waits a whole lap.
"""

from dataclasses import dataclass
from fractions import Fraction

STEP = 5  # minutes: the week, the blocks and the hand-set minutes move in steps of 5
DEFAULT_LARGEST_BLOCK = 60  # when the cycle sets none
TIME, GOAL = "TIME", "GOAL"
NEXT = "NEXT"  # a GOAL block's concept: whatever the subject's board says is next


@dataclass(frozen=True)
class Subject:
    """What the planner needs of a subject: who it is (any hashable key), its weights and the
    weekly minutes set by hand, if any (a multiple of 5)."""

    key: object
    importance: int  # 1–5
    mastery: int  # 1–5
    minutes: int | None = None

    @property
    def weight(self):
        return self.importance * (6 - self.mastery)


@dataclass(frozen=True)
class Block:
    number: int  # 1-based place in the queue
    subject: object  # the subject's key
    minutes: int
    mode: str  # TIME or GOAL
    concept: str | None  # NEXT for a GOAL block, None for a TIME block


class PlanImpossible(ValueError):
    """The configuration cannot give every subject at least one step of the week."""


def plan(week_minutes, subjects, largest_block=None, default_mode=TIME):
    """The queue of blocks for a week of `week_minutes` (a positive multiple of 5) shared by
    `subjects` (at least one, keys unique). Raises PlanImpossible when the week is too short."""
    if week_minutes <= 0 or week_minutes % STEP or not subjects:
        raise PlanImpossible("a plan needs a positive week in steps of 5 and at least one subject")
    largest = largest_block or DEFAULT_LARGEST_BLOCK
    shares = share_week(week_minutes, subjects)
    mode = GOAL if default_mode == GOAL else TIME
    concept = NEXT if mode == GOAL else None
    placed = []
    for order, subject in enumerate(subjects):
        pieces = split(shares[subject.key], largest)
        for index, minutes in enumerate(pieces):
            # A block's place along the lap: the middle of its slice of the subject's run.
            placed.append((Fraction(2 * index + 1, 2 * len(pieces)), -subject.weight, order, minutes, subject.key))
    placed.sort(key=lambda row: row[:3])
    return [
        Block(number, key, minutes, mode, concept)
        for number, (_place, _weight, _order, minutes, key) in enumerate(placed, start=1)
    ]


def share_week(week_minutes, subjects):
    """{subject key: weekly minutes}: hand-set minutes as they are, the rest by weight."""
    steps = week_minutes // STEP
    fixed = {subject.key: subject.minutes // STEP for subject in subjects if subject.minutes}
    shared = [subject for subject in subjects if not subject.minutes]
    left = steps - sum(fixed.values())
    if left < len(shared) or (not shared and left):
        raise PlanImpossible("the week is too short for every subject, or the hand-set minutes miss it")
    units = dict(fixed)
    if shared:
        spare = left - len(shared)  # after one step each
        total_weight = sum(subject.weight for subject in shared)
        quotas = {subject.key: Fraction(spare * subject.weight, total_weight) for subject in shared}
        for subject in shared:
            units[subject.key] = 1 + int(quotas[subject.key])
        remaining = left - sum(units[subject.key] for subject in shared)
        by_remainder = sorted(
            enumerate(shared), key=lambda pair: (-(quotas[pair[1].key] % 1), -pair[1].weight, pair[0])
        )
        for _order, subject in by_remainder[:remaining]:
            units[subject.key] += 1
    return {key: count * STEP for key, count in units.items()}


def split(minutes, largest):
    """`minutes` cut into the fewest blocks of at most `largest`, sizes in steps of 5 differing
    by at most one step, the longer ones first."""
    steps, cap = minutes // STEP, max(largest // STEP, 1)
    count = -(-steps // cap)
    base, extra = divmod(steps, count)
    return [(base + (1 if index < extra else 0)) * STEP for index in range(count)]
