"""Every domain of Beyou, declared once.

A domain is one `Domain(...)` below; every list the app keeps about domains is derived from
these declarations: the announced names (`events.DOMAINS`), the refusal messages
(`errors.MESSAGES`), the export sections (`configuration.EXPORT_SECTIONS`), the registered
blueprints (`app/web/__init__.py`), the navigation (`navigation.AREAS`), the imported tool and
model modules, and the sources of the ownership sweep (tests/security/test_ownership.py).
tests/platform/test_wiring.py fails when the code and a declaration disagree.

This module imports nothing of the app, so every layer can read it. How to add a domain:
docs/adding-a-domain.md.
"""

from dataclasses import dataclass, field, replace

from flask import url_for
from flask_babel import lazy_gettext as _l


@dataclass(frozen=True)
class Area:
    """A domain's entry in the navigation: the page it opens. The bottom bar holds the daily
    areas on phones; every other area is in the "More" sheet."""

    label: object
    icon: str
    endpoint: str
    in_bottom_bar: bool = True
    slug: str = ""  # the domain's name unless the page is called otherwise

    @property
    def url(self):
        return url_for(self.endpoint)


@dataclass(frozen=True)
class Elsewhere:
    """A domain with no entry of its own in the navigation, and where it is reached instead."""

    reached: str


@dataclass(frozen=True)
class Domain:
    """One domain and every place it is wired into.

    Module names are relative to their package (`app/web/`, `app/services/`, `app/agent/tools/`,
    `app/models/`); a domain is built once it has a blueprint.
    """

    name: str  # what its services announce, and `@tool(domain=...)`
    area: Area | Elsewhere | None
    blueprint: str | None = None
    services: tuple[str, ...] = ()
    tools: tuple[str, ...] = ()
    models: dict[str, tuple[str, ...]] = field(default_factory=dict)  # module → the tables it defines
    export: dict[str, tuple[str, ...]] = field(default_factory=dict)  # section → the tables it carries
    not_exported: dict[str, str] = field(default_factory=dict)  # table → why the export leaves it out
    ids: dict[str, str] = field(default_factory=dict)  # a route's id argument → the table it names
    errors: dict[str, object] = field(default_factory=dict)  # refusal key → its message
    catalogue: tuple[str, ...] = ()  # its rows of the tool catalogue (docs/tool-catalogue.md)
    # Its toolset, as `openToolsets` offers it to the model (English, a few words); None: its tools are
    # core tools or it has none. Its own area's turns carry it from the first round, and so do `also_on`'s.
    toolset: str | None = None
    toolset_also_on: tuple[str, ...] = ()

    @property
    def built(self):
        return self.blueprint is not None

    @property
    def tables(self):
        return tuple(table for tables in self.models.values() for table in tables)

    @property
    def navigation_area(self):
        """Its navigation entry, slug filled in; None when it is reached elsewhere."""
        if not isinstance(self.area, Area):
            return None
        return replace(self.area, slug=self.area.slug or self.name)


DOMAINS = (
    Domain(
        "dashboard",
        Area(_l("Dashboard"), "home", "dashboard.index"),
        blueprint="dashboard",
        services=("widgets", "briefing"),
    ),
    Domain(
        "routines",
        Area(_l("Routines"), "calendar", "routines.index"),
        blueprint="routines",
        services=("routines", "schedules", "today", "streaks", "day_close", "progress"),
        tools=("routines",),
        models={
            "routines": ("routines", "routine_sections", "routine_entries", "schedule_days"),
            "checks": ("entry_checks", "day_close_marks"),
            "history": ("day_outcomes", "xp_days"),
        },
        export={
            "routines": ("routines", "routine_sections", "routine_entries"),
            "schedule": ("schedule_days",),
            "day_outcomes": ("day_outcomes",),
            "entry_checks": ("entry_checks",),
            "xp_days": ("xp_days",),
        },
        not_exported={"day_close_marks": "bookkeeping of the day close; the outcomes it froze are exported"},
        ids={"routine_id": "routines", "section_id": "routine_sections", "entry_id": "routine_entries"},
        errors={
            "ROUTINE_NOT_FOUND": _l("We couldn't find that routine. It may have been deleted."),
            "ROUTINE_AMBIGUOUS": _l("More than one routine is called “%(ref)s”: %(candidates)s. Use its id."),
            "ROUTINE_NAME_REQUIRED": _l("Give the routine a name."),
            "ROUTINE_NAME_TOO_LONG": _l("Use at most 256 characters."),
            "ROUTINE_SECTION_REQUIRED": _l("A routine needs at least one section."),
            "ROUTINE_SECTION_NAME_REQUIRED": _l("Give the section a name."),
            "ROUTINE_SECTION_START_REQUIRED": _l("Choose when the section starts."),
            "ROUTINE_SECTION_NOT_FOUND": _l("We couldn't find that section in this routine."),
            "LIST_ROUTINE_HAS_NO_SECTIONS": _l(
                "A list routine has no sections: add habits and tasks to the list itself."
            ),
            "LIST_ROUTINE_HAS_NO_TIMES": _l("Items of a list routine have no times."),
            "TIME_INVALID": _l("Enter a time as HH:MM."),
            "ITEM_END_BEFORE_START": _l("The end time must be after the start time."),
            "ITEM_START_OUT_OF_SECTION": _l("The start time must be within the section's time."),
            "ITEM_END_OUT_OF_SECTION": _l("The end time must be within the section's time."),
            "ENTRY_ITEM_REQUIRED": _l("Choose one habit or one task."),
            "ENTRY_NOT_FOUND": _l("We couldn't find that routine entry. It may have been removed."),
            "ENTRY_ID_REQUIRED": _l(
                "“%(name)s” is a habit or task, not a routine entry. Check or skip it through its entry id: "
                "%(entries)s."
            ),
            "ITEM_NOT_IN_ROUTINE": _l("“%(name)s” is not in any routine. Add it to a routine to check it."),
            "ENTRY_NOT_ON_DAY": _l("This item was not part of that day's routine."),
            "CHECK_IN_FUTURE": _l("You can't check a day that hasn't happened yet."),
            "SKIP_IN_FUTURE": _l("You can't skip a day that hasn't happened yet."),
            "DAY_IN_FUTURE": _l("That day hasn't happened yet."),
            "WEEKDAY_INVALID": _l("Choose days from Monday to Sunday."),
            "HISTORY_OWNER_INVALID": _l("History is kept for habits, tasks, routines and your account."),
            "XP_HISTORY_DAYS_INVALID": _l("Choose from 1 to 90 days."),
            "HISTORY_RANGE_INVALID": _l("Choose a start on or before the end, and an end no later than tomorrow."),
        },
        catalogue=("Routines", "Schedules", "Today"),
        toolset="routines, sections, entries, weekday schedules, today: check, skip",
        toolset_also_on=("dashboard",),
    ),
    Domain(
        "habits",
        Area(_l("Habits"), "repeat", "habits.index"),
        blueprint="habits",
        services=("habits",),
        tools=("catalogue",),
        models={"habits": ("habits", "habit_categories")},
        export={"habits": ("habits", "habit_categories")},
        ids={"habit_id": "habits"},
        errors={
            "HABIT_NOT_FOUND": _l("We couldn't find that habit. It may have been deleted."),
            "HABIT_AMBIGUOUS": _l("More than one habit is called “%(ref)s”: %(candidates)s. Use its id."),
            "HABIT_IN_ROUTINE": _l("This habit is used in: %(routines)s. Remove it from the routine first."),
        },
        catalogue=("Habits",),
        toolset="list, create, edit, delete",
    ),
    Domain(
        "tasks",
        Area(_l("Tasks"), "check-square", "tasks.index", in_bottom_bar=False),
        blueprint="tasks",
        services=("tasks",),
        tools=("catalogue",),
        models={"tasks": ("tasks", "task_categories")},
        export={"tasks": ("tasks", "task_categories")},
        ids={"task_id": "tasks"},
        errors={
            "TASK_NOT_FOUND": _l("We couldn't find that task. It may have been deleted."),
            "TASK_AMBIGUOUS": _l("More than one task is called “%(ref)s”: %(candidates)s. Use its id."),
            "TASK_IN_ROUTINE": _l("This task is used in: %(routines)s. Remove it from the routine first."),
        },
        catalogue=("Tasks",),
        toolset="one-off to-dos: list, create, edit, delete",
    ),
    Domain(
        "categories",
        Area(_l("Categories"), "grid", "categories.index", in_bottom_bar=False),
        blueprint="categories",
        services=("categories",),
        tools=("catalogue",),
        models={"categories": ("categories",)},
        export={"categories": ("categories",)},
        ids={"category_id": "categories"},
        errors={
            "CATEGORIES_REQUIRED": _l("Choose at least one category."),
            "CATEGORY_NOT_FOUND": _l("We couldn't find that category. It may have been deleted."),
            "CATEGORY_AMBIGUOUS": _l("More than one category is called “%(ref)s”: %(candidates)s. Use its id."),
            "CATEGORY_IN_USE": _l("This category is used in: %(uses)s. Remove it from them first."),
        },
        catalogue=("Categories",),
        toolset="areas of life: list, create, edit, delete",
    ),
    Domain(
        "goals",
        Area(_l("Goals"), "target", "goals.index"),
        blueprint="goals",
        services=("goals",),
        tools=("goals",),
        models={"goals": ("goals", "goal_categories")},
        export={"goals": ("goals", "goal_categories")},
        ids={"goal_id": "goals"},
        errors={
            "GOAL_NOT_FOUND": _l("We couldn't find that goal. It may have been deleted."),
            "GOAL_AMBIGUOUS": _l("More than one goal matches “%(ref)s”: %(candidates)s. Use its exact name or id."),
            "GOAL_CYCLE": _l("A goal can't go under one of its own sub-goals."),
            "GOAL_SELF_PARENT": _l("A goal can't go under itself."),
            "GOAL_PARENT_ARCHIVED": _l("This goal is archived. Restore it before putting goals under it."),
            "GOAL_STATUS_INVALID": _l("Choose Not started or In progress; use Complete on the goal to finish it."),
            "TARGET_INVALID": _l("Enter a target of at least 0.01."),
            "UNIT_INVALID": _l("Enter a unit of 1 to 64 characters."),
            "VALUE_INVALID": _l("Enter a number of zero or more."),
            "AMOUNT_INVALID": _l("Enter an amount greater than zero."),
            "VALUE_TOO_LARGE": _l("Use a number no larger than 1,000,000,000,000."),
            "DATES_OUT_OF_ORDER": _l("The end date can't be before the start date."),
            "TERM_INVALID": _l("Choose short, medium or long term."),
        },
        catalogue=("Goals",),
        toolset="list, create, edit, delete, progress, complete, archive, nest",
    ),
    Domain(
        "notebook",
        Area(_l("Notebook"), "book", "notebook.index", in_bottom_bar=False),
        blueprint="notebook",
        services=(
            "notebook",
            "study_board",
            "study_sources",
            "study_embeddings",
            "source_search",
        ),
        tools=("notebook", "study_board"),
        models={
            "notebook": ("study_topics", "study_pages", "study_page_blocks"),
            "study_board": ("study_board_nodes", "study_board_connections"),
            "study_sources": ("study_sources", "study_passages", "study_passage_vectors"),
        },
        export={
            "notebook": ("study_topics", "study_pages"),
            "notebook_blocks": ("study_page_blocks",),
            "study_board": ("study_board_nodes", "study_board_connections"),
            "notebook_sources": ("study_sources",),
        },
        not_exported={
            "study_passages": "cut from each source's text, which is exported; the split rebuilds them",
            "study_passage_vectors": "computed from the passages by the embeddings endpoint, which rebuilds them",
        },
        ids={
            "topic_id": "study_topics",
            "page_id": "study_pages",
            "page_block_id": "study_page_blocks",
            "node_id": "study_board_nodes",
            "source_id": "study_sources",
        },
        errors={
            "NOTEBOOK_TOPIC_NOT_FOUND": _l("We couldn't find that topic. It may have been deleted."),
            "NOTEBOOK_PAGE_NOT_FOUND": _l("We couldn't find that page. It may have been deleted."),
            "NOTEBOOK_PAGE_NOT_FOUND_BY_TITLE": _l(
                "No page is called “%(ref)s”. Your topics: %(topics)s. Use a page's exact title or its id."
            ),
            "NOTEBOOK_PAGE_AMBIGUOUS": _l("More than one page is called “%(ref)s”: %(candidates)s. Use its id."),
            "NOTEBOOK_TOPIC_NAME_REQUIRED": _l("Give the topic a name."),
            "NOTEBOOK_TOPIC_NAME_TOO_LONG": _l("Use at most 120 characters for a topic's name."),
            "NOTEBOOK_PAGE_TITLE_REQUIRED": _l("Give the page a title."),
            "NOTEBOOK_PAGE_TITLE_TOO_LONG": _l("Use at most 200 characters for a page's title."),
            "NOTEBOOK_PARENT_OTHER_TOPIC": _l("A page can only sit inside a page of its own topic."),
            "NOTEBOOK_BLOCK_NOT_FOUND": _l("We couldn't find that block. It may have been deleted."),
            "NOTEBOOK_NOTE_REQUIRED": _l("Write something in the note."),
            "NOTEBOOK_NOTE_TOO_LONG": _l("A note holds at most 20,000 characters. Split it into two notes."),
            "NOTEBOOK_DIAGRAM_REQUIRED": _l("Write the diagram's Mermaid source."),
            "NOTEBOOK_DIAGRAM_TOO_LONG": _l("A diagram's source holds at most 10,000 characters."),
            "NOTEBOOK_DIAGRAM_TYPE_UNKNOWN": _l(
                "Start the diagram with its type, such as “flowchart TD”, “sequenceDiagram” or “mindmap”."
            ),
            "NOTEBOOK_CARD_SIDE_REQUIRED": _l("Write both sides of the card."),
            "NOTEBOOK_CARD_SIDE_TOO_LONG": _l("A card's side holds at most 1,000 characters."),
            "NOTEBOOK_NOT_A_CARD": _l("Only flashcards are reviewed."),
            "NOTEBOOK_GRADE_INVALID": _l("Answer again, good or easy."),
            "NOTEBOOK_DIRECTION_INVALID": _l("Move it up or down."),
            "NOTEBOOK_BLOCK_KIND_INVALID": _l("Add a note, a diagram or a flashcard."),
            "STUDY_NODE_NOT_FOUND": _l("We couldn't find that concept. It may have been removed from the board."),
            "STUDY_NODE_NOT_FOUND_BY_TITLE": _l(
                "No concept on the board of “%(page)s” is called “%(ref)s”. Its concepts: %(titles)s."
            ),
            "STUDY_NODE_AMBIGUOUS": _l("More than one concept is called “%(ref)s”: %(candidates)s. Use its id."),
            "STUDY_NODE_OTHER_PAGE": _l(
                "“%(node)s” is on the board of another page (“%(other)s”), not of “%(page)s”. "
                "A board only joins its own concepts."
            ),
            "STUDY_NODE_TITLE_REQUIRED": _l("Give the concept a title."),
            "STUDY_NODE_TITLE_TOO_LONG": _l("Use at most 200 characters for a concept's title."),
            "STUDY_NODE_DESCRIPTION_TOO_LONG": _l("Use at most 2,000 characters for a concept's description."),
            "STUDY_NODE_STATUS_INVALID": _l("Choose To do, Learning or Done."),
            "STUDY_BOARD_FULL": _l("This board already holds %(limit)s concepts. Remove one to add another."),
            "STUDY_BOARD_ORDER_INVALID": _l(
                "Send every concept of this board exactly once (it has %(count)s) in the new order."
            ),
            "STUDY_CONNECTION_SELF": _l("“%(node)s” can't lead to itself. Choose two different concepts."),
            "STUDY_CONNECTION_EXISTS": _l("“%(source)s” already leads to “%(target)s”."),
            "STUDY_CONNECTION_NOT_FOUND": _l("“%(source)s” doesn't lead to “%(target)s”: there is no such connection."),
            "NOTEBOOK_SOURCE_NOT_FOUND": _l("We couldn't find that source. It may have been deleted."),
            "NOTEBOOK_SOURCE_EMPTY": _l("This source has no text. Paste or upload some text to study from."),
            "NOTEBOOK_SOURCE_TOO_LONG": _l(
                "A pasted source holds at most 100,000 characters. Split it in parts, or upload it as a file."
            ),
            "NOTEBOOK_SOURCE_TITLE_TOO_LONG": _l("Use at most 200 characters for a source's title."),
            "NOTEBOOK_SOURCE_FILE_REQUIRED": _l("Choose a .txt, .md or .pdf file to upload."),
            "NOTEBOOK_SOURCE_FILE_TOO_LARGE": _l("Upload a file of at most 5 MB."),
            "NOTEBOOK_SOURCE_FILE_TYPE": _l("Upload a .txt, .md or .pdf file."),
            "NOTEBOOK_SOURCE_NOT_TEXT": _l(
                "This file isn't plain text (UTF-8). Save it as .txt or .md, or upload the PDF itself."
            ),
            "NOTEBOOK_SOURCE_NOT_PDF": _l("This file is named .pdf but isn't a PDF. Upload the PDF itself."),
            "NOTEBOOK_SOURCE_PDF_UNREADABLE": _l("This PDF can't be read: it may be damaged or password-protected."),
            "NOTEBOOK_SOURCE_PDF_NO_TEXT": _l(
                "This PDF has no text to extract (it may be scanned images). Upload a PDF with selectable text, "
                "or paste the text."
            ),
            "NOTEBOOK_SOURCE_PROCESSING_FAILED": _l(
                "Something went wrong while this source was indexed; nothing of it is searchable. Delete it and "
                "add it again."
            ),
            "NOTEBOOK_SEARCH_TOO_LONG": _l("Search for at most 200 characters."),
            "NOTEBOOK_WEB_SEARCH_OFF": _l("Searching the web for sources isn't set up on this server."),
            "NOTEBOOK_WEB_QUERY_REQUIRED": _l("Type what the sources should be about."),
            "NOTEBOOK_WEB_SEARCH_FAILED": _l(
                "The web search didn't answer. Try again in a moment, or paste a source yourself."
            ),
            "NOTEBOOK_WEB_SOURCE_ADDRESS": _l("This result has no web address to keep with it. Choose another one."),
        },
        catalogue=("Study notebook",),
        toolset="study notebook: topics and pages, notes, diagrams shown or kept, concept boards, today's study plan",
    ),
    Domain(
        "study_ai",
        Elsewhere("on each notebook page (/notebook/pages/<id>): the tutor, the studio and the board's planning"),
        blueprint="study_ai",
        services=(
            "study_ai",
            "study_retrieval",
            "study_planning",
            "study_tutor",
            "study_studio",
        ),
        tools=("study_ai",),
        models={
            "study_tutor": ("study_tutor_exchanges",),
            "study_studio": ("study_outputs", "study_card_drafts"),
        },
        export={
            "study_tutor": ("study_tutor_exchanges",),
            "study_outputs": ("study_outputs",),
            "study_card_drafts": ("study_card_drafts",),
        },
        ids={
            "output_id": "study_outputs",
            "draft_id": "study_card_drafts",
        },
        errors={
            "NOTEBOOK_NOTHING_TO_STUDY": _l(
                "This page has nothing to study from yet. Write a note or add a source to it, then ask again."
            ),
            "STUDY_AI_RATE_LIMITED": _l(
                "You've asked the notebook's AI a lot this hour. You can ask again at %(time)s."
            ),
            "STUDY_AI_UNAVAILABLE": _l(
                "The notebook's AI couldn't reach any AI model right now. Try again in a minute."
            ),
            "STUDY_AI_NOT_CONFIGURED": _l(
                "The notebook's AI isn't configured on this server: no AI provider has an API key. "
                "Your notes and sources work as usual."
            ),
            "NOTEBOOK_EXPLAIN_NOTES_ONLY": _l("Only notes and board concepts can be explained."),
            "STUDY_AI_ROADMAP_NONE_PICKED": _l("Pick at least one concept to add to the board."),
            "STUDY_AI_TUTOR_QUESTION_REQUIRED": _l("Type a question for the tutor."),
            "STUDY_AI_TUTOR_QUESTION_TOO_LONG": _l("Ask in at most 2,000 characters."),
            "STUDY_AI_TUTOR_PASSAGE_NOT_FOUND": _l(
                "That passage is no longer in this source. The source may have been deleted or replaced."
            ),
            "STUDY_AI_OUTPUT_NOT_FOUND": _l("We couldn't find that summary, guide or quiz. It may have been deleted."),
            "STUDY_AI_OUTPUT_KIND_INVALID": _l("Choose a summary, a study guide or a quiz."),
            "STUDY_AI_OUTPUTS_FULL": _l(
                "This page keeps at most %(limit)s studio outputs. Delete one to make another."
            ),
            "STUDY_AI_FOCUS_TOO_LONG": _l("Describe the focus in at most 200 characters."),
            "STUDY_AI_SUMMARY_UNSUPPORTED": _l(
                "No summary was made: this page's notes and sources don't hold enough to summarise. "
                "Add to them, or try another focus."
            ),
            "STUDY_AI_GUIDE_UNSUPPORTED": _l(
                "No study guide was made: this page's notes and sources don't hold enough for one. "
                "Add to them, or try another focus."
            ),
            "STUDY_AI_QUIZ_UNSUPPORTED": _l(
                "No quiz was made: this page's notes and sources don't hold enough to ask about. "
                "Add to them, or try another focus."
            ),
            "STUDY_AI_NOT_A_QUIZ": _l("Only a quiz can be answered."),
            "STUDY_AI_DRAFT_NOT_FOUND": _l(
                "We couldn't find that flashcard draft. It may have been accepted or discarded."
            ),
            "STUDY_AI_DRAFTS_FULL": _l(
                "This page already has %(limit)s flashcard drafts waiting. Accept or discard some first."
            ),
            "STUDY_AI_CARD_COUNT_INVALID": _l("Ask for 1 to 20 flashcards."),
            "STUDY_AI_CARDS_UNSUPPORTED": _l(
                "No flashcards were drafted: this page's notes and sources don't hold enough for one. "
                "Add to them, or try another focus."
            ),
            "STUDY_AI_CARDS_NOTHING_NEW": _l(
                "Every flashcard drafted was already on this page or waiting as a draft. Try another focus."
            ),
        },
        toolset="AI flashcard drafts for a notebook page, from its notes and sources",
        toolset_also_on=("notebook",),
    ),
    Domain(
        "study_cycles",
        Elsewhere("inside the notebook, at /notebook/cycles"),
        blueprint="study_cycles",
        services=("study_cycles", "study_planner"),
        tools=("study_cycles",),
        models={
            "study_cycles": (
                "study_cycles",
                "study_cycle_days",
                "study_cycle_subjects",
                "study_blocks",
                "study_laps",
                "study_sessions",
                "study_credits",
                "study_entry_links",
            )
        },
        export={
            "study_cycles": (
                "study_cycles",
                "study_cycle_days",
                "study_cycle_subjects",
                "study_blocks",
                "study_laps",
                "study_credits",
            ),
            "study_sessions": ("study_sessions", "study_entry_links"),
        },
        ids={"cycle_id": "study_cycles", "session_id": "study_sessions"},
        errors={
            "STUDY_CYCLE_NOT_FOUND": _l("We couldn't find that study cycle. It may have been deleted."),
            "STUDY_CYCLE_NOT_ACTIVE": _l(
                "No active study cycle is called “%(ref)s”. Your active cycles: %(cycles)s. Use a name or an id."
            ),
            "STUDY_CYCLE_AMBIGUOUS": _l("More than one active cycle is called “%(ref)s”: %(candidates)s. Use its id."),
            "STUDY_CYCLE_ARCHIVED": _l("This cycle is archived: its history is kept, and it no longer plans."),
            "STUDY_CYCLE_NAME_REQUIRED": _l("Give the cycle a name."),
            "STUDY_CYCLE_NAME_TOO_LONG": _l("Use at most 120 characters for a cycle's name."),
            "STUDY_SUBJECTS_REQUIRED": _l("Choose at least one notebook page to study."),
            "STUDY_SUBJECT_TWICE": _l("“%(page)s” is in the list twice. Keep it once."),
            "STUDY_SUBJECTS_OVERLAP": _l(
                "“%(inner)s” is inside “%(outer)s”: a cycle can't hold a page together with a page inside it. "
                "Keep one of them."
            ),
            "STUDY_WEEK_EMPTY": _l("Give at least one day of the week some study minutes."),
            "STUDY_MINUTES_STEP": _l("Use minutes in steps of 5 (5, 10, 15…)."),
            "STUDY_DAY_TOO_LONG": _l("A day holds at most 1,440 minutes."),
            "STUDY_WEEK_TOO_SHORT": _l(
                "The week's %(minutes)s minutes can't give each of the %(subjects)s subjects its share. "
                "Add minutes, remove a subject, or lower the minutes set by hand."
            ),
            "STUDY_LARGEST_BLOCK_INVALID": _l("Choose a largest block from 5 to 240 minutes, in steps of 5."),
            "STUDY_MODE_INVALID": _l("Choose Time or Goal."),
            "STUDY_BLOCK_NOT_FOUND": _l("This cycle has blocks 1 to %(last)s. Choose one of those numbers."),
            "STUDY_BLOCK_OVER_LARGEST": _l("A block of this cycle holds at most %(largest)s minutes."),
            "STUDY_BLOCK_MODE_CONTRADICTION": _l(
                "A block with a concept is a Goal block: Time with a concept contradicts itself."
            ),
            "STUDY_CONCEPT_OUTSIDE_SUBJECT": _l(
                "“%(concept)s” is not a page inside “%(subject)s”. Choose a page inside the subject, or Next."
            ),
            "STUDY_SESSION_NOT_FOUND": _l("We couldn't find that study session. It may have been deleted."),
            "STUDY_SESSION_MINUTES_INVALID": _l("Enter from 1 to 600 minutes."),
            "STUDY_SESSION_IN_FUTURE": _l("That day hasn't happened yet. Log study for today or a past day."),
            "STUDY_SESSION_TOO_OLD": _l("Log study from today or the last 30 days."),
            "STUDY_SESSION_NO_CYCLE": _l(
                "“%(page)s” is not a subject of an active cycle, so these minutes would count nowhere. "
                "Add it to a cycle first."
            ),
            "STUDY_SESSIONS_DAYS_INVALID": _l("Choose from 1 to 31 days."),
        },
        catalogue=("Study cycles",),
        toolset="study cycles: the week's plan, blocks, laps, today's study, logged sessions",
        toolset_also_on=("notebook",),
    ),
    Domain(
        "ideas",
        Area(_l("Ideas"), "zap", "ideas.index", in_bottom_bar=False),
        blueprint="ideas",
        services=("ideas",),
        tools=("ideas",),
        models={"ideas": ("quick_notes",)},
        export={"ideas": ("quick_notes",)},
        ids={"note_id": "quick_notes"},
        errors={
            "IDEA_NOT_FOUND": _l("We couldn't find that note. It may have been deleted."),
            "IDEA_TEXT_REQUIRED": _l("Write something on the note."),
            "IDEA_TOO_LONG": _l("A note holds at most 500 characters. Shorten it and save again."),
            "IDEA_COLOUR_INVALID": _l("Choose one of the board's colours."),
            "IDEA_BOARD_FULL": _l(
                "The board is full: all %(cells)s places hold a note. Archive a few notes to make room."
            ),
            "IDEA_CELL_INVALID": _l("Choose a place on the board."),
            "IDEA_ARCHIVED": _l("This note is archived. Restore it to the board first."),
            "IDEA_BOARD_CHANGED": _l("The board changed while you were moving this note. Try again."),
            "IDEA_TOO_SHORT_FOR_TASK": _l("A task's name needs at least 2 characters. Add a word to the note first."),
        },
        catalogue=("Ideas board",),
        toolset="sticky notes on the Ideas board: list, create",
    ),
    Domain(
        "mood",
        Area(_l("Mood"), "smile", "mood.index", in_bottom_bar=False),
        blueprint="mood",
        services=("mood",),
        tools=("mood",),
        models={"mood": ("mood_entries",)},
        export={"mood": ("mood_entries",)},
        errors={
            "MOOD_LEVEL_INVALID": _l("Choose how you felt, from 1 (awful) to 5 (great)."),
            "MOOD_IN_FUTURE": _l("That day hasn't happened yet. Log a mood for today or a past day."),
            "MOOD_JOURNAL_TOO_LONG": _l("A day's journal holds at most 10,000 characters. Shorten it and save again."),
            "MOOD_DAYS_INVALID": _l("Choose from 1 to 366 days."),
        },
        catalogue=("Mood",),
        toolset="daily mood: log a level, read past levels (never the private journal)",
    ),
    Domain(
        "focus",
        Elsewhere("opened on one routine entry of today, at /focus"),
        blueprint="focus",
        services=("focus",),
        tools=("focus",),
        models={"focus": ("micro_tasks", "pinned_steps", "timer_cycles")},
        export={"focus": ("micro_tasks", "pinned_steps", "timer_cycles")},
        ids={"micro_task_id": "micro_tasks"},
        errors={
            "FOCUS_ENTRY_NOT_TODAY": _l("This entry is not in today's routine. Focus mode opens on today's entries."),
            "FOCUS_ENTRY_REQUIRED": _l("Say which routine entry: send its entry id (getDayView lists today's)."),
            "FOCUS_ENTRY_REQUIRED_OPEN": _l(
                "Say which routine entry: send its entry id. The entry open in Focus mode is “%(name)s”, "
                "entry id %(entry_id)s."
            ),
            "MICRO_TASK_NOT_FOUND": _l("We couldn't find that step. It may have been deleted."),
            "MICRO_TASK_TEXT_REQUIRED": _l("Write the step first."),
            "MICRO_TASK_TEXT_TOO_LONG": _l("Use at most 200 characters for a step."),
            "MICRO_TASKS_FULL": _l("This entry already has 50 steps today. Delete one to add another."),
            "MICRO_TASK_ORDER_INVALID": _l("Send every step of this entry for today, each exactly once."),
            "TIMER_CYCLE_INVALID": _l("That timer cycle could not be recorded: it needs an id, a kind and minutes."),
            "FOCUS_WORK_MINUTES_INVALID": _l("Choose a focus length from 1 to 120 minutes."),
            "FOCUS_BREAK_MINUTES_INVALID": _l("Choose a break length from 1 to 60 minutes."),
        },
        catalogue=("Focus mode",),
        toolset="micro-tasks of a routine entry of today, the day view",
    ),
    Domain(
        "profile",
        Area(_l("Configuration"), "settings", "configuration.index", in_bottom_bar=False, slug="configuration"),
        blueprint="configuration",
        services=("configuration", "accounts", "onboarding", "admin"),
        tools=("profile", "memory"),
        models={
            "user": ("users", "user_sessions"),
            "onboarding": ("onboarding_runs",),
            "briefing": ("daily_briefings",),
            "audit": ("admin_audit",),
        },
        export={"profile": ("users",)},
        not_exported={
            "user_sessions": "sign-ins are keys to the account, not the user's data",
            "onboarding_runs": "the wizard's working state; what it created is exported with its own domain",
            "daily_briefings": "recomputed from the exported outcomes, mood levels and goals on the day it is opened",
            "admin_audit": "an admin's record of the admin pages they opened and what they changed, "
            "read at /admin/audit; it holds no one's content",
        },
        errors={
            "EMAIL_INVALID": _l("Enter a valid email address."),
            "EMAIL_TAKEN": _l("An account with this email already exists. Try signing in."),
            "PASSWORD_TOO_SHORT": _l("Use at least 8 characters."),
            "PASSWORD_TOO_LONG": _l("Use at most 256 characters."),
            "PASSWORD_TOO_COMMON": _l("This password is too common. Pick one that is harder to guess."),
            "LANGUAGE_INVALID": _l("Choose English or Portuguese."),
            "TIMEZONE_INVALID": _l("Choose a valid time zone."),
            "INVALID_CREDENTIALS": _l("Email or password is incorrect."),
            "LOGIN_LOCKED": _l("Too many failed attempts for this email. Sign-in is paused for %(minutes)s minutes."),
            "RESET_LINK_INVALID": _l("This reset link is invalid or has already been used."),
            "RESET_LINK_EXPIRED": _l("This reset link has expired. Ask for a new one."),
            "THEME_INVALID": _l("Choose light, dark or system."),
            "CONSTANCE_MODE_INVALID": _l("Choose any completed item or complete routine only."),
            "XP_DECAY_INVALID": _l("Choose gradual, flat or time window."),
            "WIDGET_UNKNOWN": _l("One of these widgets doesn't exist."),
            "WIDGET_DUPLICATE": _l("Each widget can appear only once."),
            "SETTING_UNKNOWN": _l("This is not a setting you can change."),
            "PASSWORD_INCORRECT": _l("That password is not right."),
            "CONFIRMATION_MISMATCH": _l("Type the word exactly as shown to confirm."),
            "ONBOARDING_SAID_TOO_LONG": _l("Use at most 1000 characters to describe what you want."),
            "ONBOARDING_FINISHED": _l("The setup assistant is finished. Open it again from the configuration page."),
            "ONBOARDING_STEP_CHANGED": _l("This step has moved on, maybe on another device. Here is where it is now."),
            "ONBOARDING_NOTHING_CHOSEN": _l("Keep at least one suggestion, or go on without adding any."),
            "ONBOARDING_RATE_LIMITED": _l(
                "The setup assistant has made many suggestions this hour. Try again at %(time)s, or add things "
                "yourself on their pages."
            ),
            "ONBOARDING_WRITE_REFUSED": _l("“%(name)s” could not be saved: %(reason)s"),
        },
        catalogue=("Configuration",),
        toolset="settings: name, phrase, theme, language, time zone, XP rules, widgets",
    ),
    Domain(
        "feedback",
        Area(_l("Feedback"), "message-circle", "feedback.index", in_bottom_bar=False),
        blueprint="feedback",
        services=("feedback",),
        tools=("profile",),
        models={"feedback": ("feedback",)},
        export={"feedback": ("feedback",)},
        ids={"feedback_id": "feedback"},
        errors={
            "FEEDBACK_KIND_INVALID": _l("Choose bug, suggestion or other."),
            "FEEDBACK_TEXT_INVALID": _l("Write between 5 and 4000 characters."),
            "FEEDBACK_STATUS_INVALID": _l("Choose new, triaged, done or won't do."),
            "FEEDBACK_NOT_FOUND": _l("We couldn't find that feedback."),
        },
        catalogue=("Feedback",),
        toolset="send feedback to the Beyou team",
    ),
    Domain(
        "assistant",
        Elsewhere("the chat panel mounted in every signed-in page"),
        blueprint="agent",
        services=("assistant", "pending_actions"),
        tools=("memory", "toolsets"),
        models={"agent": ("chats", "chat_messages", "turns"), "pending_actions": ("pending_actions",)},
        export={"assistant": ("chats", "chat_messages")},
        not_exported={
            "turns": "a turn is the running state of an answer; the answer is exported as a message",
            "pending_actions": "a confirmation card's state, minutes long; what the assistant proposed and what "
            "came of it are in the exported messages",
        },
        ids={"chat_id": "chats", "turn_id": "turns", "action_id": "pending_actions"},
        errors={
            "CHAT_NOT_FOUND": _l("We couldn't find that conversation. It may have been deleted."),
            "CHAT_TITLE_INVALID": _l("Give the conversation a title."),
            "TURN_NOT_FOUND": _l("We couldn't find that answer."),
            "MESSAGE_EMPTY": _l("Write a message first."),
            "MESSAGE_TOO_LONG": _l("Messages can have at most 4000 characters."),
            "NOTE_TOO_LONG": _l(
                "This note has %(length)s characters; the limit is %(limit)s. Shorten it and save again."
            ),
            "AI_UNAVAILABLE": _l("The assistant couldn't reach any AI model right now. Try again in a minute."),
            "AI_STREAM_INTERRUPTED": _l(
                "The answer was cut off by the AI provider. What arrived is kept below; ask again to continue."
            ),
            "AI_NOT_CONFIGURED": _l(
                "The assistant isn't configured on this server yet: no AI provider has an API key."
            ),
            "TOO_MANY_STREAMS": _l(
                "You already have two answers in progress. Wait for one to finish, then send again."
            ),
            "TRANSCRIPT_PERSIST_FAILED": _l(
                "The answer couldn't be saved, so it may be missing when you come back. "
                "Anything the assistant changed is shown above."
            ),
            "TIMEOUT": _l("The answer took too long and was stopped. What arrived is kept."),
            "TURN_CANCELLED": _l("Stopped."),
            "TURN_FAILED": _l("Something went wrong while answering. What arrived is kept."),
            "TURN_INTERRUPTED": _l(
                "The answer was interrupted: the server restarted while writing it. What arrived, and anything "
                "the assistant did, is kept below; ask again to continue."
            ),
            "AGENT_RATE_LIMITED": _l("You've sent a lot of messages this hour. You can send again at %(time)s."),
            "ACTION_NOT_FOUND": _l("We couldn't find that proposed change."),
            "ACTION_CHANGED": _l(
                "This changed after the assistant proposed it, so nothing was done. Ask again if you still want it."
            ),
            "ACTION_EXPIRED": _l(
                "This proposal expired, so nothing was done. Ask the assistant again if you still want it."
            ),
            "AGENT_BUDGET_SPENT": _l(
                "You've sent a lot of messages this hour, so this one was not answered. Send it again later."
            ),
        },
        catalogue=("Memory",),
    ),
)
"""In the order the navigation shows their areas."""

INFRASTRUCTURE_BLUEPRINTS = {
    "auth": "sign-up, sign-in, sign-out and the password reset: before there is a user to show areas to",
    "admin": "the admin area (feedback inbox, LLM chain, users, audit log, metrics), linked from the More sheet "
    "for admins",
    "privacy": "the privacy page, read before there is an account as much as after",
    "system": "the health check for the process manager",
    "live": "the websocket every signed-in page keeps open, carrying every domain's announcements",
    "onboarding": "the first-run setup assistant: it writes through the categories, habits, tasks, routines and "
    "goals services and owns no page area of its own",
}
"""Blueprints that belong to no domain, and why."""

SHARED_SERVICES = {
    "errors": "the one family of refusals",
    "ownership": "loading a row only through its owner",
    "values": "strict reading of numbers, days and times",
    "entity_fields": "the fields habits, tasks and goals share",
    "catalogue": "the machinery categories, habits, tasks and goals share (lookup, fields, routine items)",
    "icons": "the icon set every area picks from",
    "demo": "the demo account, written through every domain's service",
}
"""Service modules that serve every domain rather than one."""

SHARED_MODELS = {
    "base": "the owned-row mixin",
    "progress": "the XP and streak mixins",
}
"""Model modules that define no table of their own."""

ROUTE_ARGUMENTS_THAT_ARE_NOT_ROWS = {
    "token": "a password-reset link's signed token",
    "section": "a configuration form's name",
    "widget_id": "a dashboard widget's name from the fixed widget catalogue",
    "filename": "a static file",
    "step": "an onboarding wizard step's name",
}
"""Route arguments that name no row, so the ownership sweep has nothing to try on them."""

BY_NAME = {domain.name: domain for domain in DOMAINS}
