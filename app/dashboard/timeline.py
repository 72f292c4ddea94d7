"""The "Today's calendar" widget (`calendarToday`): today's timed routine entries and study blocks
on one timeline, in the order of the day, with where "now" falls among them.

An entry is timed by its own start, or else by its section's window (a timed routine's section
is when its entries happen). A study cycle's blocks follow each other from the day's start time,
after what was already studied today; a cycle with no start time is study for any time of the
day, listed under the timeline rather than placed at a guessed hour.
"""

from dataclasses import dataclass, field
from datetime import time

MINUTES_PER_DAY = 24 * 60


@dataclass(frozen=True)
class Slot:
    """One thing on the timeline. `state` is "done", "skipped" or "open"; `kind` is "routine" or
    "study"."""

    kind: str
    starts: time
    ends: time | None
    name: str
    detail: str | None
    icon: str | None
    state: str = "open"

    def is_past(self, now):
        """Over before `now` (an entry with no end is over once it started)."""
        return (self.ends or self.starts) <= now


@dataclass
class DayTimeline:
    slots: list = field(default_factory=list)
    now: time | None = None
    now_index: int = 0  # the "now" line goes before slots[now_index]
    untimed_entries: int = 0  # today's routine entries with no time (a LIST routine's all)
    anytime_study: list = field(default_factory=list)  # [(cycle name, minutes left today)]

    @property
    def empty(self):
        return not self.slots and not self.untimed_entries and not self.anytime_study


def day_timeline(plan, study_slices, now):
    """The timeline of `plan` (today's `RoutineDay`, or None) and `study_slices` (study cycles'
    `TodaySlice`s) at the local time `now`."""
    timeline = DayTimeline(now=now)
    if plan is not None:
        for section in plan.sections:
            for entry in section.entries:
                starts = entry.starts_at or section.starts_at
                if starts is None:
                    timeline.untimed_entries += 1
                    continue
                ends = entry.ends_at if entry.starts_at else section.ends_at
                state = "done" if entry.checked else "skipped" if entry.skipped else "open"
                timeline.slots.append(Slot("routine", starts, ends, entry.name, section.name, entry.icon, state))
    for found in study_slices:
        if not found.minutes:
            continue  # a rest day
        if found.starts_at is None:
            if found.left:
                timeline.anytime_study.append((found.cycle.name, found.left))
            continue
        timeline.slots.extend(_study_slots(found))
    timeline.slots.sort(key=lambda slot: (slot.starts, slot.kind != "routine"))
    timeline.now_index = next(
        (index for index, slot in enumerate(timeline.slots) if slot.starts > now), len(timeline.slots)
    )
    return timeline


def _study_slots(found):
    """A timed cycle's day: the studied part as one done slot, then each block still to do."""
    start = _minutes(found.starts_at)
    slots = []
    if found.studied:
        studied = min(found.studied, found.minutes)
        slots.append(Slot("study", _clock(start), _clock(start + studied), found.cycle.name, None, "book-open", "done"))
        start += studied
    for block, minutes in found.blocks:
        subject = block.subject.page.title
        slots.append(Slot("study", _clock(start), _clock(start + minutes), subject, found.cycle.name, "book-open"))
        start += minutes
    return slots


def _minutes(moment):
    return moment.hour * 60 + moment.minute


def _clock(minutes):
    """The time `minutes` after midnight, held at the day's last minute (study that runs past
    midnight ends with the day on today's timeline)."""
    minutes = min(minutes, MINUTES_PER_DAY - 1)
    return time(minutes // 60, minutes % 60)
