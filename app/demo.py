"""The demo account's life: a person two months into Beyou, so a visitor sees streaks, a heatmap,
XP and levels that mean something instead of an empty app.

Everything is made through the services, the way the pages and the assistant make it: the
categories, habits, tasks and goals; two timed routines sharing the week (weekdays, weekend) and
an unscheduled list routine for errands (every weekday is taken, and a checklist opened when
needed is a use of its own); then sixty days lived one at a time — each day's entries checked,
skipped or left alone "on that day" (`today.check(now=...)`, so XP and streak bonuses land on
the day they were earned) — with the day close run every Sunday night (`day_close.close_user`,
which closes the week's days as the clock does after downtime and records the MISSED).

The one thing no service does is make a row in the past: every row is stamped with the moment it
is made, and the day close and the schedule never look at a day before the account, the habit
or the routine existed. So, right after making them, this backdates the `created_at` of the
account and of its things to the first day of the history — nothing else is written directly.

The dice are seeded, so the same day gives the same life, and the account is left alone once it
has any category (running it twice changes nothing).
"""

import random
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, time, timedelta

from app.categories import services as categories
from app.categories.models import Category
from app.extensions import db
from app.focus import services as focus
from app.goals import services as goals
from app.habits import services as habits
from app.ideas import services as ideas
from app.mood import services as mood
from app.notebook import boards, sources
from app.notebook import services as notebook
from app.onboarding import services as onboarding
from app.profile import configuration
from app.routines import day_close, schedules
from app.routines import services as routines
from app.routines.models.routines import RoutineKind
from app.routines.today import check, skip
from app.shared.days import today_for, user_zone
from app.study_cycles import services as study_cycles
from app.tasks import services as tasks

HISTORY_DAYS = 60
SEED = 20240917

WIDGETS = [
    "dailyProgress",
    "calendarToday",
    "constance",
    "constanceHeatmap",
    "levelProgress",
    "categoryBalance",
    "betterArea",
    "worstArea",
    "fastTips",
    "moodWeek",
    "studyToday",
]

CATEGORIES = [
    ("Health", "heart", "Body first: moving, eating and sleeping well."),
    ("Mind", "emoji-brain", "Reading, learning and a quiet head."),
    ("Work", "briefcase", "Focused work and a tidy inbox."),
    ("Home", "home", "A calm, clean place to live."),
    ("Relationships", "users", "The people who matter."),
]

# name, icon, importance, difficulty, categories, how reliably it gets done (0–1)
HABITS = [
    ("Drink a glass of water", "emoji-water", 3, 1, ["Health"], 0.95),
    ("Morning stretch", "emoji-stretch", 3, 2, ["Health"], 0.8),
    ("Meditate 10 minutes", "emoji-meditate", 4, 2, ["Mind", "Health"], 0.75),
    ("Plan the day", "calendar", 4, 1, ["Work"], 0.85),
    ("Deep work block", "emoji-laptop", 5, 4, ["Work"], 0.7),
    ("Inbox zero", "inbox", 2, 2, ["Work"], 0.6),
    ("Walk 20 minutes", "emoji-walk", 3, 1, ["Health"], 0.75),
    ("Cook a real meal", "emoji-cook", 3, 3, ["Home", "Health"], 0.65),
    ("Read 20 pages", "book-open", 4, 2, ["Mind"], 0.8),
    ("Journal", "emoji-journal", 3, 1, ["Mind"], 0.7),
    ("Lights out by 23:00", "emoji-sleep", 4, 3, ["Health"], 0.55),
    ("Run 5 km", "emoji-run", 4, 4, ["Health"], 0.7),
]

# name, icon, importance, difficulty, categories, one_time, how reliably it gets done
TASKS = [
    ("Water the plants", "emoji-plant", 2, 1, ["Home"], False, 0.9),
    ("Laundry", "emoji-laundry", 2, 2, ["Home"], False, 0.75),
    ("Grocery run", "shopping-cart", 3, 2, ["Home"], False, 0.85),
    ("Weekly review", "clipboard", 4, 2, ["Work", "Mind"], False, 0.7),
    ("Call someone I love", "emoji-call", 4, 1, ["Relationships"], False, 0.8),
    ("Book the dentist", "emoji-tooth", 3, 1, ["Health"], True, 0.0),
]

# A timed routine: name, icon, weekdays, [(section, icon, starts, ends, [(item, starts, ends)])]
TIMED_ROUTINES = [
    (
        "Weekday rhythm",
        "sunrise",
        [0, 1, 2, 3, 4],
        [
            (
                "Morning",
                "sun",
                "06:30",
                "08:30",
                [
                    ("Drink a glass of water", "06:30", "06:35"),
                    ("Morning stretch", "06:40", "06:55"),
                    ("Meditate 10 minutes", "07:00", "07:10"),
                ],
            ),
            (
                "Work",
                "briefcase",
                "09:00",
                "13:00",
                [
                    ("Plan the day", "09:00", "09:15"),
                    ("Deep work block", "09:15", "11:15"),
                    ("Inbox zero", "12:00", "12:30"),
                ],
            ),
            (
                "Evening",
                "moon",
                "18:30",
                "23:00",
                [
                    ("Walk 20 minutes", "18:30", "18:50"),
                    ("Read 20 pages", "21:30", "22:00"),
                    ("Lights out by 23:00", "22:45", "23:00"),
                ],
            ),
        ],
    ),
    (
        "Weekend rhythm",
        "emoji-beach",
        [5, 6],
        [
            (
                "Slow morning",
                "coffee",
                "08:00",
                "11:30",
                [
                    ("Drink a glass of water", "08:00", "08:05"),
                    ("Run 5 km", "08:30", "09:15"),
                ],
            ),
            (
                "Chores",
                "emoji-broom",
                "12:00",
                "17:00",
                [
                    ("Grocery run", "12:00", "13:00"),
                    ("Laundry", "14:00", "15:00"),
                    ("Water the plants", "16:00", "16:15"),
                ],
            ),
            (
                "Evening",
                "moon",
                "18:00",
                "23:00",
                [
                    ("Call someone I love", "18:00", "18:30"),
                    ("Cook a real meal", "19:00", "20:00"),
                    ("Weekly review", "21:00", "21:30"),
                ],
            ),
        ],
    ),
]

# Unscheduled: every weekday already has its routine; the errands list is opened when needed.
LIST_ROUTINE = ("Errands", "check-square", ["Book the dentist", "Grocery run", "Laundry"])

# Focus mode's steps on today's entries: item name -> [(step, pinned, done)]. Pinned steps come back
# every day; timer cycles are left out, since only a timer that really ran records one.
FOCUS_STEPS = {
    "Morning stretch": [("Neck and shoulders", True, True), ("Hamstrings", True, False)],
    "Deep work block": [
        ("Close chat and email", True, True),
        ("Outline the next section", False, True),
        ("Write 500 words", False, False),
        ("Review and save", True, False),
    ],
    "Grocery run": [("Check the fridge", True, False), ("Write the list", True, False), ("Bring bags", False, False)],
    "Weekly review": [("Empty the inbox", True, False), ("Pick next week's three big things", True, False)],
}

# Days (counted back from today) with a story: a cold (skips, which never break a streak) and
# one lost day (nothing done at all: the constance breaks there and starts again).
SICK_DAYS = {41, 40, 39}
LOST_DAY = 23


@dataclass
class Life:
    categories: int
    habits: int
    tasks: int
    goals: int
    routines: int
    days: int
    checks: int
    skips: int

    def summary(self):
        return (
            f"{self.categories} categories, {self.habits} habits, {self.tasks} tasks, {self.goals} goals, "
            f"{self.routines} routines, {self.days} days of history ({self.checks} checks, {self.skips} skips)"
        )


def give_a_life(user, today=None):
    """Fill the demo account with two months of a believable life; returns a Life with what was
    made, or None when the account already had data (nothing is changed then)."""
    if db.session.scalar(db.select(Category.id).where(Category.user_id == user.id).limit(1)) is not None:
        return None
    today = today or today_for(user)
    first = today - timedelta(days=HISTORY_DAYS)
    made = _structure(user, today)
    _backdate(user, made, _moment(user, first, time(0)))
    with _rows_kept_across_commits():
        checks, skips = _live(user, first, today, random.Random(SEED))
    _complete_goal(user, made["finished_goal"], today - timedelta(days=18))
    _moods(user, today)
    _ideas_board(user)
    _focus_steps(user, today)
    _notebook(user, today)
    _study_board(user)
    _study_source(user)
    _study_cycle(user, today)
    configuration.update(
        user,
        widgets=WIDGETS,
        tutorial_done=True,
        phrase="We are what we repeatedly do.",
        phrase_author="Will Durant",
    )
    onboarding.finish(user)  # the demo is set up already: never sent to the wizard
    return Life(
        categories=len(made["categories"]),
        habits=len(made["habits"]),
        tasks=len(made["tasks"]),
        goals=len(made["goals"]),
        routines=len(made["routines"]),
        days=HISTORY_DAYS,
        checks=checks,
        skips=skips,
    )


# The things a life is made of ------------------------------------------------------------------


def _structure(user, today):
    made = {"categories": {}, "habits": {}, "tasks": {}}
    for name, icon, description in CATEGORIES:
        made["categories"][name] = categories.create(user, name=name, icon=icon, description=description)
    ids = {name: category.id for name, category in made["categories"].items()}
    for name, icon, importance, difficulty, tags, _reliability in HABITS:
        made["habits"][name] = habits.create(
            user,
            name=name,
            icon=icon,
            importance=importance,
            difficulty=difficulty,
            categories=[ids[tag] for tag in tags],
        )
    for name, icon, importance, difficulty, tags, one_time, _reliability in TASKS:
        made["tasks"][name] = tasks.create(
            user,
            name=name,
            icon=icon,
            importance=importance,
            difficulty=difficulty,
            categories=[ids[tag] for tag in tags],
            one_time=one_time,
        )
    made["goals"], made["finished_goal"] = _goals(user, ids, today)
    made["routines"] = [_timed_routine(user, made, *spec) for spec in TIMED_ROUTINES]
    name, icon, items = LIST_ROUTINE
    made["routines"].append(routines.create_list(user, name, icon, [_entry_spec(made, item) for item in items]))
    return made


def _goals(user, ids, today):
    year_end = today.replace(month=12, day=31)
    run = goals.create(
        user,
        name="Run 300 km",
        icon="emoji-run",
        target_value=300,
        current_value=112,
        unit="km",
        start_date=today - timedelta(days=HISTORY_DAYS),
        end_date=max(year_end, today + timedelta(days=120)),
        term="LONG_TERM",
        categories=[ids["Health"]],
        motivation="Feel strong at forty.",
    )
    sub = goals.create(
        user,
        name="Run 100 km this quarter",
        icon="activity",
        target_value=100,
        current_value=64,
        unit="km",
        start_date=today - timedelta(days=45),
        end_date=today + timedelta(days=45),
        term="SHORT_TERM",
        categories=[ids["Health"]],
        parent=run.id,
    )
    books = goals.create(
        user,
        name="Read 12 books",
        icon="emoji-books",
        target_value=12,
        current_value=5,
        unit="books",
        start_date=today - timedelta(days=HISTORY_DAYS),
        end_date=today + timedelta(days=300),
        term="MEDIUM_TERM",
        categories=[ids["Mind"]],
    )
    trip = goals.create(
        user,
        name="Save for a trip to Japan",
        icon="emoji-travel",
        target_value=2000,
        current_value=850,
        unit="EUR",
        start_date=today - timedelta(days=HISTORY_DAYS),
        end_date=today + timedelta(days=9),
        term="MEDIUM_TERM",
        categories=[ids["Work"], ids["Relationships"]],
    )
    course = goals.create(
        user,
        name="Finish the Portuguese course",
        icon="emoji-language",
        target_value=10,
        current_value=10,
        unit="modules",
        start_date=today - timedelta(days=HISTORY_DAYS),
        end_date=today + timedelta(days=30),
        term="SHORT_TERM",
        categories=[ids["Mind"], ids["Work"]],
    )
    return [run, sub, books, trip, course], course


def _entry_spec(made, name, starts_at=None, ends_at=None):
    key = "habit_id" if name in made["habits"] else "task_id"
    item = made["habits"].get(name) or made["tasks"][name]
    return {key: item.id, "starts_at": starts_at, "ends_at": ends_at}


def _timed_routine(user, made, name, icon, weekdays, sections):
    routine = routines.create_timed(
        user,
        name,
        icon,
        [
            {
                "name": section,
                "icon": section_icon,
                "starts_at": starts,
                "ends_at": ends,
                "entries": [_entry_spec(made, *entry) for entry in entries],
            }
            for section, section_icon, starts, ends, entries in sections
        ],
    )
    schedules.set_days(user, routine.id, weekdays)
    return routine


def _backdate(user, made, moment):
    """The only direct write: the account and its things existed from the history's first day."""
    things = [
        user,
        *made["categories"].values(),
        *made["habits"].values(),
        *made["tasks"].values(),
        *made["goals"],
        *made["routines"],
    ]
    for thing in things:
        thing.created_at = moment
    db.session.commit()


# Living the days ---------------------------------------------------------------------------------


@contextmanager
def _rows_kept_across_commits():
    """Every check commits, and by default a commit expires every loaded row, so the next check
    reloads the account, the entries and their habits: about a third of the statements of the
    replay. Nothing else writes meanwhile (one-time tasks, the only rows the close removes, are
    never checked here), so the rows stay true; the setting is put back afterwards."""
    session = db.session()
    kept = session.expire_on_commit
    session.expire_on_commit = False
    try:
        yield
    finally:
        session.expire_on_commit = kept
        session.expire_all()


def _live(user, first, today, dice):
    """Check, skip or leave each entry of each past day; close the days every Sunday night and
    after the last one."""
    reliability = {row[0]: row[-1] for row in (*HABITS, *TASKS)}
    checks = skips = 0
    day = first
    while day < today:
        back = (today - day).days
        growth = 0.12 * (1 - back / HISTORY_DAYS)  # a little better every week
        routine = schedules.routine_on(user, day)
        entries = _in_order(routine) if routine is not None else []
        for entry in entries:
            if back == LOST_DAY:
                break
            roll = dice.random()
            if back in SICK_DAYS:
                wanted = "skip" if roll < 0.8 else "check" if roll < 0.9 else None
            else:
                chance = min(reliability[entry.item.name] + growth, 0.98)
                wanted = "check" if roll < chance else "skip" if roll < chance + 0.06 else None
            if wanted == "check":
                check(user, entry.id, now=_moment(user, day, entry.ends_at or time(12)))
                checks += 1
            elif wanted == "skip":
                skip(user, entry.id, now=_moment(user, day, entry.starts_at or time(12)))
                skips += 1
        if day.weekday() == 6 or day == today - timedelta(days=1):
            day_close.close_user(user, now=_moment(user, day + timedelta(days=1), time(0, 30)))
        day += timedelta(days=1)
    return checks, skips


def _focus_steps(user, today):
    """Steps, some pinned and some done, on the entries of today's routine that FOCUS_STEPS names."""
    routine = schedules.routine_on(user, today)
    now = _moment(user, today, time(6))
    for entry in _in_order(routine) if routine is not None else []:
        for text, pinned, done in FOCUS_STEPS.get(entry.item.name, ()):
            step, _steps = focus.add(user, entry.id, text, now=now)
            if pinned:
                focus.pin(user, step.id, now=now)
            if done:
                focus.check(user, step.id, done=True, now=now)


def _in_order(routine):
    if routine.kind == RoutineKind.TIMED:
        return [entry for section in routine.sections for entry in section.entries]
    return list(routine.entries)


def _complete_goal(user, goal, day):
    goals.complete(user, goal.id, done=True, today=day)


# days back, level 1–5, the journal's words (the owner's own: only the mood page shows them)
MOODS = [
    (14, 3, None),
    (13, 4, "Long walk by the river after work. Slept like a stone."),
    (12, 4, None),
    (11, 2, "Behind on everything today and snapped at Leo. Need an early night."),
    (10, 3, None),
    (9, 3, None),
    (8, 4, None),
    (7, 5, "Finished the report a day early! Dinner with Marta, we laughed a lot."),
    (6, 4, None),
    (5, 2, "Headache most of the day. Skipped the run, and that's fine."),
    (4, 3, None),
    (3, 4, None),
    (2, 4, "The morning deep work block really works when the phone stays in the kitchen."),
    (1, 3, None),
]


def _moods(user, today):
    """Two weeks of moods up to yesterday (today is left for the visitor to log), some written about."""
    for back, level, written in MOODS:
        mood.save(user, today - timedelta(days=back), level, written)


def _moment(user, day, clock):
    """`clock` on `day` in the user's zone: the `now` a service sees while the day is lived."""
    return datetime.combine(day, clock, tzinfo=user_zone(user))


# text, colour; the last one was archived once it was dealt with
IDEAS = [
    ("Book club idea: one short novel a month, meet at the café on Fridays", "yellow"),
    ("Try cold showers for a week and see if mornings get easier", "blue"),
    ("Gift for Marta: the pottery class she mentioned", "pink"),
    ("A standing desk? Measure the corner by the window first", "green"),
    ("Quote: “Amateurs sit and wait for inspiration; the rest of us just get up and go to work.”", "purple"),
    ("Learn three chords on the ukulele", "orange"),
    ("Ask the landlord about the leaking tap", "yellow"),
]


def _ideas_board(user):
    """A board of notes in several colours, one already archived."""
    notes = [ideas.create(user, text, colour) for text, colour in IDEAS]
    ideas.archive(user, notes[-1].id)


CELLS_NOTE = """**Cells** are the smallest unit of life. Every cell has:

- a *membrane* that decides what gets in and out;
- *cytoplasm*, where most of the work happens;
- genetic material (DNA) — inside a nucleus in plants and animals."""
PHOTOSYNTHESIS_FLOW = """flowchart LR
  Light[Sunlight] --> Chloroplast
  Water[Water + CO2] --> Chloroplast
  Chloroplast --> Sugar[Glucose]
  Chloroplast --> Oxygen"""
# front, back, and the days since its last "good" (None: never reviewed, so due today)
BIOLOGY_CARDS = [
    ("What does the cell membrane do?", "It decides what enters and leaves the cell.", None),
    ("Where does photosynthesis happen?", "In the chloroplasts.", None),
    ("What does photosynthesis make?", "Glucose and oxygen, from light, water and CO2.", 0),
]
SPANISH_CARDS = [
    ("ser or estar: “Ella ___ cansada”", "está — a passing state takes estar.", None),
    ("ser or estar: “Nosotros ___ de Lisboa”", "somos — origin takes ser.", 3),
]


def _notebook(user, today):
    """Two topics: Biology (a page with a page inside it, notes, a diagram, cards) and Spanish
    (a page of notes and cards); some cards are due today, others were reviewed on earlier days."""
    biology = notebook.create_topic(user, "Biology")
    cells = notebook.create_page(user, biology.id, "Cells")
    membranes = notebook.create_page(user, biology.id, "Membranes", cells.id)
    photosynthesis = notebook.create_page(user, biology.id, "Photosynthesis")
    notebook.add_note(user, cells.id, CELLS_NOTE)
    notebook.add_note(user, membranes.id, "A membrane is a double layer of lipids with proteins floating in it.")
    notebook.add_diagram(user, photosynthesis.id, PHOTOSYNTHESIS_FLOW)
    notebook.add_note(user, photosynthesis.id, "Plants turn light into sugar; the oxygen is what is left over.")
    spanish = notebook.create_topic(user, "Spanish")
    verbs = notebook.create_page(user, spanish.id, "Ser and estar")
    notebook.add_note(
        user, verbs.id, "**Ser** for what something *is* (origin, job, time); **estar** for how it *is* now."
    )
    for page, cards in ((photosynthesis, BIOLOGY_CARDS), (verbs, SPANISH_CARDS)):
        for front, back, reviewed_back in cards:
            card = notebook.add_card(user, page.id, front, back)
            if reviewed_back is not None:
                notebook.review_card(user, card.id, "good", today=today - timedelta(days=reviewed_back))


# The board of one study page, half learnt: (title, description, status), then what leads to what.
BOARD_TOPIC, BOARD_PAGE = "Biology", "Cells"
BOARD_NODES = [
    ("Cell membrane", "A lipid bilayer that decides what gets in and out.", "DONE"),
    ("Diffusion and osmosis", "Molecules moving down their gradient; water across the membrane.", "DONE"),
    ("Mitochondria", "Where respiration makes ATP.", "LEARNING"),
    ("Cellular respiration", "Glucose + oxygen → ATP, water and CO₂.", "LEARNING"),
    ("Photosynthesis", None, "TODO"),
    ("Cell division", "Mitosis first, then meiosis.", "TODO"),
]
BOARD_LINKS = [
    ("Cell membrane", "Diffusion and osmosis"),
    ("Mitochondria", "Cellular respiration"),
    ("Photosynthesis", "Cellular respiration"),
    ("Cell membrane", "Cell division"),
]


def _study_board(user):
    """A board in progress on the page "Cells" of the topic "Biology" (made when missing)."""
    page = next(
        (page for topic in notebook.topics(user) for page in topic.pages if page.title == BOARD_PAGE),
        None,
    )
    if page is None:
        topic = next((topic for topic in notebook.topics(user) if topic.name == BOARD_TOPIC), None)
        page = notebook.create_page(user, (topic or notebook.create_topic(user, BOARD_TOPIC)).id, BOARD_PAGE)
    nodes = {
        title: boards.add_node(user, page.id, title, description, status) for title, description, status in BOARD_NODES
    }
    for source, target in BOARD_LINKS:
        boards.connect(user, page.id, nodes[source].id, nodes[target].id)


DEMO_SOURCE_TITLE = "Chapter 3: The cell"
DEMO_SOURCE = """# Chapter 3: The cell

Every living thing is made of cells. A cell is the smallest unit that can carry out the processes of life: \
it takes in nutrients, turns them into energy, grows, and divides.

The plasma membrane surrounds the cell. It is a double layer of lipids with proteins set into it, and it \
decides what enters and what leaves: water crosses it by osmosis, small molecules by diffusion, and larger \
ones through channel and carrier proteins.

The nucleus holds the cell's DNA, wrapped around proteins as chromatin. During division the chromatin \
condenses into chromosomes, so that each daughter cell receives a full copy of the genome.

Mitochondria turn glucose and oxygen into ATP, the energy currency of the cell. They have their own DNA, a \
trace of their origin as free-living bacteria taken in by an ancestral cell long ago.

In plant cells, chloroplasts capture light and make sugar by photosynthesis, and a rigid wall of cellulose \
outside the membrane gives the plant its shape."""


def _study_source(user):
    """A pasted chapter on the page "Cells" of Biology (`_notebook` made it), split and searchable."""
    page = notebook.resolve_page(user, "Cells")
    sources.paste(user, page.id, DEMO_SOURCE, title=DEMO_SOURCE_TITLE)


# A week of study over two pages: weights, then sessions (days back, page, minutes) that finish the
# first lap and leave the second one running.
STUDY_WEEK = {0: 60, 1: 45, 3: 60, 5: 90}
STUDY_PAGES = [("Cells", 4, 2), ("Genetics", 3, 3)]
STUDY_SESSIONS = [(12, 0, 50), (11, 1, 45), (9, 0, 60), (8, 1, 40), (6, 0, 55), (5, 1, 30), (3, 0, 45), (2, 1, 50)]


def _study_cycle(user, today):
    """One active cycle over two notebook pages (the notebook's first two top-level pages, or a
    Biology topic made for it), sessions logged by hand over the last two weeks, a lap in progress."""
    pages = [page for topic in notebook.topics(user) for page in topic.pages if page.parent_id is None][:2]
    if len(pages) < 2:
        topic = notebook.create_topic(user, "Biology")
        pages = [notebook.create_page(user, topic.id, title) for title, _importance, _mastery in STUDY_PAGES]
    week = {
        "name": "Exam season",
        "days": {weekday: {"minutes": minutes, "starts_at": "18:30"} for weekday, minutes in STUDY_WEEK.items()},
        "subjects": [
            {"page": str(page.id), "importance": importance, "mastery": mastery}
            for page, (_title, importance, mastery) in zip(pages, STUDY_PAGES, strict=True)
        ],
        "largest_block": 45,
        "default_mode": "TIME",
    }
    study_cycles.create_cycle(user, week)
    now = _moment(user, today, time(7))
    for back, page_index, minutes in STUDY_SESSIONS:
        study_cycles.log_session(user, pages[page_index].id, minutes, day=today - timedelta(days=back), now=now)
