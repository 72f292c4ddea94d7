"""The onboarding assistant: a new account says in its own words what it wants, step by step
(categories → habits and tasks → routine → goals → summary), and each step is one structured
call to the chain whose answer is shown as suggestions to edit, drop or accept.

The answer is hostile until proven useful: every list is capped, the category names the person
typed are kept as typed, importance and difficulty are clamped, weekdays normalised, item times
pulled inside their section's window and icons taken only from the catalogue. A malformed
answer is asked for once more (the chain's JSON-only retry), then `ONBOARDING_ANSWER_UNUSABLE`;
`AI_UNAVAILABLE` is only for a call no model answered.

Accepted suggestions become rows through the ordinary services. Before each write the step reads
what the account already has and skips a name that exists, and each saved item is recorded on
the run at once, so "Try again" and a double click never create anything twice. A refused write
names the item and the service's own reason; it does not blame the AI.
"""

import json
import re
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache
from pathlib import Path

from flask import current_app
from jinja2 import Environment, StrictUndefined
from pydantic import BaseModel
from sqlalchemy.exc import IntegrityError

from app.categories import services as categories
from app.categories.models import Category
from app.extensions import db
from app.goals import services as goals
from app.goals.models import Goal
from app.habits import services as habits
from app.habits.models import Habit
from app.llm import (
    AnswerUnreadable,
    BudgetSpent,
    ChatRequest,
    DeadlineReached,
    LLMError,
    LLMNotConfigured,
    Message,
    Model,
    RateBucket,
    model,
)
from app.onboarding.models import OnboardingRun, OnboardingStatus, OnboardingStep
from app.profile import configuration
from app.routines import schedules
from app.routines import services as routines
from app.routines.models.routines import Routine
from app.shared import icons
from app.shared.days import today_for
from app.shared.errors import DomainError, Invalid, Throttled
from app.shared.values import NUMBER_MAX, folded, whole_number_from
from app.tasks import services as tasks
from app.tasks.models import Task

ONBOARDING_BUCKET = RateBucket("onboarding", "ONBOARDING_RATE_LIMIT")


def onboarding_model() -> Model:
    """The onboarding assistant's door to the chain: 30 calls an hour per user by default."""
    return model("onboarding", bucket=ONBOARDING_BUCKET)


PROMPTS = Path(__file__).resolve().parent / "prompts"
LANGUAGE_NAMES = {"en": "English", "pt": "Brazilian Portuguese"}
ORDER = list(OnboardingStep)
SAID_MAX = 1000
NAME_MAX = 256
CATEGORIES_MAX = 8
HABITS_MAX = 8
TASKS_MAX = 8
SECTIONS_MAX = 6
SECTION_ITEMS_MAX = 10
GOALS_MAX = 5
SCALE = (1, 5)
TARGET_MAX = 1_000_000
MONTHS = (1, 60)
WEEKDAYS = {
    **{name: number for number, name in enumerate(schedules.WEEKDAY_NAMES)},
    **dict.fromkeys(("segunda", "segunda-feira"), 0),
    **dict.fromkeys(("terca", "terça", "terca-feira", "terça-feira"), 1),
    **dict.fromkeys(("quarta", "quarta-feira"), 2),
    **dict.fromkeys(("quinta", "quinta-feira"), 3),
    **dict.fromkeys(("sexta", "sexta-feira"), 4),
    **dict.fromkeys(("sabado", "sábado"), 5),
    **dict.fromkeys(("domingo",), 6),
}
TERMS = {"short": "SHORT_TERM", "medium": "MEDIUM_TERM", "long": "LONG_TERM"}


class AssistantUnavailable(DomainError):
    """The suggestion call failed: the step stays as it was, with a retry and the manual path."""

    status = 503

    def __init__(self):
        super().__init__("AI_UNAVAILABLE")


class AssistantNotConfigured(DomainError):
    """No model is set up on this server: a retry can never help, the pages can."""

    status = 503

    def __init__(self):
        super().__init__("ONBOARDING_AI_NOT_CONFIGURED")


class AssistantTooSlow(DomainError):
    """No model answered within the door's deadline (AI_REQUEST_SECONDS): the step stays as it
    was, with the same retry and manual path."""

    status = 503

    def __init__(self):
        super().__init__("ONBOARDING_AI_TOO_SLOW", seconds=current_app.config["AI_REQUEST_SECONDS"])


class AnswerUnusable(DomainError):
    """A model answered, but nothing of it could be read as the step's suggestions: the step stays
    as it was, with the same retry and manual path; the network is not to blame."""

    status = 502

    def __init__(self):
        super().__init__("ONBOARDING_ANSWER_UNUSABLE")


# The answers the model is asked for (typed loosely: the cleaning below decides what is kept) ------


class Suggested(BaseModel):
    """One suggested category, habit, task or goal: the fields a step asks for, all optional."""

    name: str | None = None
    icon: str | None = None
    importance: float | None = None
    difficulty: float | None = None
    categories: list[str] = []
    target_value: float | None = None
    unit: str | None = None
    term: str | None = None
    months: float | None = None


class CategoriesAnswer(BaseModel):
    categories: list[Suggested]


class ItemsAnswer(BaseModel):
    habits: list[Suggested] = []
    tasks: list[Suggested] = []


class SectionItem(BaseModel):
    name: str | None = None
    starts_at: str | None = None
    ends_at: str | None = None


class Section(BaseModel):
    name: str | None = None
    icon: str | None = None
    starts_at: str | None = None
    ends_at: str | None = None
    items: list[SectionItem] = []


class RoutineAnswer(BaseModel):
    name: str | None = None
    icon: str | None = None
    weekdays: list[str | int] = []
    sections: list[Section]


class GoalsAnswer(BaseModel):
    goals: list[Suggested]


SCHEMAS = {
    OnboardingStep.CATEGORIES: CategoriesAnswer,
    OnboardingStep.ITEMS: ItemsAnswer,
    OnboardingStep.ROUTINE: RoutineAnswer,
    OnboardingStep.GOALS: GoalsAnswer,
}


# The run -------------------------------------------------------------------------------------


def current(user):
    """The account's run, started on the first visit; the same on every device."""
    query = db.select(OnboardingRun).where(OnboardingRun.user_id == user.id)
    run = db.session.scalar(query)
    if run is not None:
        return run
    db.session.add(OnboardingRun(user_id=user.id, history=[], saved={}))
    try:
        db.session.commit()
    except IntegrityError:  # opened on two devices at once: the other one's row stands
        db.session.rollback()
    return db.session.scalar(query)


def step_named(value):
    """The step a URL names (its lowercase name), or None."""
    return next((step for step in OnboardingStep if step.value == str(value or "").upper()), None)


def _at_step(user, step):
    """The running run, refusing a step it is no longer on (another device moved it on)."""
    run = current(user)
    if run.status != OnboardingStatus.ACTIVE:
        raise Invalid("ONBOARDING_FINISHED")
    if step != run.step:
        raise Invalid("ONBOARDING_STEP_CHANGED")
    return run


def _advance(run):
    run.step = ORDER[ORDER.index(run.step) + 1]
    run.suggestions = None
    run.said = None


def suggest(user, step, said):
    """One structured call for the step, with the history so far; its cleaned suggestions are
    stored on the run (so a reload or another device shows them)."""
    run = _at_step(user, step)
    said = " ".join(str(said or "").split())
    if len(said) > SAID_MAX:
        raise Invalid("ONBOARDING_SAID_TOO_LONG", details={"said": "ONBOARDING_SAID_TOO_LONG"})
    if step == OnboardingStep.SUMMARY:
        raise Invalid("ONBOARDING_STEP_CHANGED")
    try:
        answer = onboarding_model().structured(_request(user, run, said), SCHEMAS[step], user=user)
    except BudgetSpent as spent:
        raise Throttled("ONBOARDING_RATE_LIMITED", time=spent.reset_at.strftime("%H:%M UTC")) from None
    except AnswerUnreadable:
        raise AnswerUnusable() from None
    except DeadlineReached:
        raise AssistantTooSlow() from None
    except LLMNotConfigured:
        raise AssistantNotConfigured() from None
    except LLMError:
        raise AssistantUnavailable() from None
    run.said = said
    run.suggestions = {"items": CLEANERS[step](user, answer, said)}
    db.session.commit()
    return run


def next_step(user, step):
    """Go on without adding anything from this step (the summary has no step after it)."""
    run = _at_step(user, step)
    if step == OnboardingStep.SUMMARY:
        raise Invalid("ONBOARDING_STEP_CHANGED")
    run.history = [*run.history, {"step": step.value, "said": run.said or "", "accepted": []}]
    _advance(run)
    db.session.commit()
    return run


def skip(user):
    """Leave the wizard; the assistant panel is revealed, and the wizard stays reachable."""
    run = current(user)
    if run.status == OnboardingStatus.ACTIVE:
        run.status = OnboardingStatus.SKIPPED
        db.session.commit()
    configuration.update(user, tutorial_done=True)
    return run


def finish(user):
    """The summary's last button: the wizard is done and the assistant panel appears."""
    run = current(user)
    run.status = OnboardingStatus.FINISHED
    db.session.commit()
    configuration.update(user, tutorial_done=True)
    return run


def restart(user):
    """Open the wizard again from its first step (from the configuration page); what it saved
    before stays recorded, so nothing is suggested twice into the account."""
    run = current(user)
    run.status, run.step, run.suggestions, run.said = OnboardingStatus.ACTIVE, OnboardingStep.CATEGORIES, None, None
    db.session.commit()
    return run


# Asking ---------------------------------------------------------------------------------------


@cache
def _template():
    environment = Environment(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True)
    return environment.from_string((PROMPTS / "onboarding.md").read_text(encoding="utf-8"))


def _request(user, run, said):
    system = _template().render(
        language_name=LANGUAGE_NAMES.get(user.language, "English"),
        step=run.step.value,
        icons=icons.catalogue_for_prompt(),
        limits={
            "categories": CATEGORIES_MAX,
            "habits": HABITS_MAX,
            "tasks": TASKS_MAX,
            "sections": SECTIONS_MAX,
            "items": SECTION_ITEMS_MAX,
            "goals": GOALS_MAX,
        },
    )
    payload = {"step": run.step.value.lower(), "in_my_words": said, "so_far": run.history, "account": _account(user)}
    return ChatRequest(system=system, messages=[Message.user(json.dumps(payload, ensure_ascii=False))])


def _names(user, model_class):
    return list(
        db.session.scalars(db.select(model_class.name).where(model_class.user_id == user.id).order_by(model_class.name))
    )


def _account(user):
    """What the account already holds, by name: the model builds on it, never repeats it."""
    return {
        "categories": _names(user, Category),
        "habits": _names(user, Habit),
        "tasks": _names(user, Task),
        "routines": _names(user, Routine),
        "goals": _names(user, Goal),
    }


# Cleaning the answer ------------------------------------------------------------------------------


def _name(value):
    text = " ".join(str(value or "").split()) if isinstance(value, str | int | float) else ""
    return text[:NAME_MAX] if len(text) >= 2 else None


def _scale(value):
    try:
        number = round(float(value))
    except (TypeError, ValueError, OverflowError):
        return 3
    return min(max(number, SCALE[0]), SCALE[1])


def _icon(value):
    return value if isinstance(value, str) and icons.is_known(value) else icons.DEFAULT


def _unique(items, limit):
    """The first `limit` items with a name, each name once."""
    seen, kept = set(), []
    for item in items:
        if item["name"] and folded(item["name"]) not in seen:
            seen.add(folded(item["name"]))
            kept.append(item)
    return kept[:limit]


def requested_names(said):
    """The short phrases the person listed ("Health, Work and Family"): names to keep as typed."""
    parts = re.split(r"[,;\n]|\s+(?:and|e|y)\s+", said or "")
    return [part.strip(" .!:") for part in parts if 2 <= len(part.strip(" .!:")) <= 40]


def clean_categories(user, answer, said):
    """Categories, at most eight; a name the person typed keeps their spelling."""
    asked = {folded(name): name for name in requested_names(said)}
    found = []
    for suggestion in answer.categories:
        name = _name(suggestion.name)
        if name and folded(name) in asked:
            name = asked[folded(name)]
        found.append({"kind": "category", "name": name, "icon": _icon(suggestion.icon)})
    return _unique(found, CATEGORIES_MAX)


def _category_names(user, value):
    """The account's categories the suggestion names (as the account spells them)."""
    known = {folded(name): name for name in _names(user, Category)}
    values = value if isinstance(value, list) else [value]
    return list(dict.fromkeys(known[folded(v)] for v in values if isinstance(v, str) and folded(v) in known))


def clean_items(user, answer, _said):
    """Habits and tasks, at most eight each, importance and difficulty from 1 to 5, and only the
    account's own categories."""

    def item(kind, suggestion):
        return {
            "kind": kind,
            "name": _name(suggestion.name),
            "icon": _icon(suggestion.icon),
            "importance": _scale(suggestion.importance),
            "difficulty": _scale(suggestion.difficulty),
            "categories": _category_names(user, suggestion.categories),
        }

    return [
        *_unique([item("habit", s) for s in answer.habits], HABITS_MAX),
        *_unique([item("task", s) for s in answer.tasks], TASKS_MAX),
    ]


def _minutes(value):
    """Minutes after midnight of an "H:MM" time, or None."""
    match = re.fullmatch(r"\s*([01]?\d|2[0-3])[:h.]([0-5]\d)\s*", str(value or ""))
    return int(match[1]) * 60 + int(match[2]) if match else None


def _clock(minutes):
    return None if minutes is None else f"{minutes // 60:02d}:{minutes % 60:02d}"


def normalise_weekdays(values):
    """Weekday numbers 0–6 from numbers, English or Portuguese names or their first three letters."""
    names = {folded(name): number for name, number in WEEKDAYS.items()}
    found = set()
    for value in values if isinstance(values, list) else [values]:
        text = folded(value) if isinstance(value, str | int) and not isinstance(value, bool) else ""
        number = whole_number_from(text, NUMBER_MAX)
        if number is not None:
            found.update([number] if number <= 6 else [])
        elif len(text) >= 3:
            found.update(number for name, number in names.items() if name.startswith(text))
    return sorted(found)


def pulled_inside(start, end, window_start, window_end):
    """An item's (start, end) minutes pulled inside its section's window; a section past
    midnight (end before start) keeps its items' times only when they already fit."""
    if window_end is not None and window_end < window_start:
        fits = start is None or start >= window_start or start <= window_end
        return (start, end) if fits else (None, None)
    upper = window_end if window_end is not None else 24 * 60 - 1
    if start is not None:
        start = min(max(start, window_start), upper)
    if end is not None:
        end = min(max(end, start if start is not None else window_start), upper)
    return start, end


def clean_routine(user, answer, _said):
    """One timed routine: at most six sections with a start, ten known habits or tasks in each,
    every item's times inside its section, weekdays normalised."""
    items = {folded(name): ("habit", name) for name in _names(user, Habit)}
    items.update({folded(name): ("task", name) for name in _names(user, Task) if folded(name) not in items})
    sections = []
    for section in answer.sections:
        start, end = _minutes(section.starts_at), _minutes(section.ends_at)
        name = _name(section.name)
        if start is None or name is None:
            continue
        entries, seen = [], set()
        for entry in section.items:
            known = items.get(folded(entry.name or ""))
            if known is None or folded(known[1]) in seen or len(entries) == SECTION_ITEMS_MAX:
                continue
            seen.add(folded(known[1]))
            entry_start, entry_end = pulled_inside(_minutes(entry.starts_at), _minutes(entry.ends_at), start, end)
            entries.append(
                {"kind": known[0], "name": known[1], "starts_at": _clock(entry_start), "ends_at": _clock(entry_end)}
            )
        sections.append(
            {
                "name": name,
                "icon": _icon(section.icon),
                "starts_at": _clock(start),
                "ends_at": _clock(end),
                "items": entries,
            }
        )
    if not sections:
        return []
    return [
        {
            "kind": "routine",
            "name": _name(answer.name) or "My routine",
            "icon": _icon(answer.icon),
            "weekdays": normalise_weekdays(answer.weekdays),
            "sections": sections[:SECTIONS_MAX],
        }
    ]


def _target(value):
    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        return 1.0
    if number != number:  # NaN
        return 1.0
    return round(min(max(number, 1.0), TARGET_MAX), 2)


def _months(value):
    try:
        number = round(float(value))
    except (TypeError, ValueError, OverflowError):
        return 3
    return min(max(number, MONTHS[0]), MONTHS[1])


def clean_goals(user, answer, _said):
    """At most five goals: a target from 1 to a million, a unit, a term, and a length in whole
    months (the model never writes a date: the end is counted here from today)."""
    found = []
    for suggestion in answer.goals:
        term = TERMS.get(folded(suggestion.term or "").split("_")[0].split(" ")[0], "MEDIUM_TERM")
        unit = _name(suggestion.unit) or "times"
        found.append(
            {
                "kind": "goal",
                "name": _name(suggestion.name),
                "icon": _icon(suggestion.icon),
                "target_value": _target(suggestion.target_value),
                "unit": unit[:64],
                "term": term,
                "months": _months(suggestion.months),
                "categories": _category_names(user, suggestion.categories),
            }
        )
    return _unique(found, GOALS_MAX)


CLEANERS = {
    OnboardingStep.CATEGORIES: clean_categories,
    OnboardingStep.ITEMS: clean_items,
    OnboardingStep.ROUTINE: clean_routine,
    OnboardingStep.GOALS: clean_goals,
}


# Accepting -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    """What the person kept of suggestion `index`, with their edits."""

    index: int
    name: str | None = None
    target_value: str | None = None
    unit: str | None = None
    weekdays: tuple = ()


KIND_MODEL = {"category": Category, "habit": Habit, "task": Task, "routine": Routine, "goal": Goal}
SAVED_KEY = {"category": "categories", "habit": "habits", "task": "tasks", "routine": "routines", "goal": "goals"}


def accept(user, step, choices):
    """Create what the person kept, item by item through the ordinary services, then move on.

    A name the account already has (or that this wizard already saved) is skipped, and each
    saved item is recorded on the run in its own commit, so repeating a half-failed step only
    creates what is still missing. A refused write stops the step with the item's name and the
    service's reason; what was saved stays saved and listed.
    """
    run = _at_step(user, step)
    suggestions = (run.suggestions or {}).get("items", [])
    chosen = [_edited(suggestions[c.index], c) for c in choices if 0 <= c.index < len(suggestions)]
    if not chosen:
        raise Invalid("ONBOARDING_NOTHING_CHOSEN")
    for item in chosen:
        if _exists(user, run, item):
            continue
        try:
            WRITERS[item["kind"]](user, item)
        except DomainError as refused:
            db.session.rollback()
            reason = " ".join(dict.fromkeys(refused.field_messages.values())) or refused.message
            raise Invalid("ONBOARDING_WRITE_REFUSED", name=item["name"], reason=reason) from None
        _record(run, item)
    run.history = [
        *run.history,
        {"step": step.value, "said": run.said or "", "accepted": [item["name"] for item in chosen]},
    ]
    _advance(run)
    db.session.commit()
    return run


def _edited(suggestion, choice):
    item = dict(suggestion)
    if choice.name is not None:
        item["name"] = _name(choice.name) or item["name"]
    if choice.target_value is not None:
        item["target_value"] = _target(choice.target_value)
    if choice.unit is not None:
        item["unit"] = (_name(choice.unit) or item.get("unit") or "times")[:64]
    if item["kind"] == "routine":
        item["weekdays"] = normalise_weekdays(list(choice.weekdays))
    return item


def _exists(user, run, item):
    """Whether the account (or this wizard's record) already holds the item's name."""
    recorded = run.saved.get(SAVED_KEY[item["kind"]], [])
    if folded(item["name"]) in {folded(name) for name in recorded}:
        return True
    return folded(item["name"]) in {folded(name) for name in _names(user, KIND_MODEL[item["kind"]])}


def _record(run, item):
    """Write the saved item into the run's record at once, in its own commit."""
    key = SAVED_KEY[item["kind"]]
    run.saved = {**run.saved, key: [*run.saved.get(key, []), item["name"]]}
    db.session.commit()


def _write_category(user, item):
    categories.create(user, name=item["name"], icon=item["icon"])


ROUTINE_ITEM_FIELDS = ("name", "icon", "importance", "difficulty", "categories")


def _write_habit(user, item):
    habits.create(user, **{field: item[field] for field in ROUTINE_ITEM_FIELDS})


def _write_task(user, item):
    tasks.create(user, **{field: item[field] for field in ROUTINE_ITEM_FIELDS})


def _write_routine(user, item):
    sections = [
        {
            "name": section["name"],
            "icon": section["icon"],
            "starts_at": section["starts_at"],
            "ends_at": section["ends_at"],
            "entries": [
                {f"{entry['kind']}_id": entry["name"], "starts_at": entry["starts_at"], "ends_at": entry["ends_at"]}
                for entry in section["items"]
            ],
        }
        for section in item["sections"]
    ]
    routine = routines.create_timed(user, item["name"], item["icon"], sections=sections)
    if item["weekdays"]:
        schedules.set_days(user, routine.id, item["weekdays"])


def _write_goal(user, item):
    start = today_for(user)
    goals.create(
        user,
        name=item["name"],
        icon=item["icon"],
        target_value=item["target_value"],
        unit=item["unit"],
        term=item["term"],
        start_date=start,
        end_date=_months_after(start, item["months"]),
        categories=item["categories"],
    )


def _months_after(start, months):
    month = start.month - 1 + months
    year, month = start.year + month // 12, month % 12 + 1
    return date(year, month, 1) + timedelta(days=min(start.day, 28) - 1)


WRITERS = {
    "category": _write_category,
    "habit": _write_habit,
    "task": _write_task,
    "routine": _write_routine,
    "goal": _write_goal,
}
