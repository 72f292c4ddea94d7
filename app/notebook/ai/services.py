"""The study notebook's AI: one structured call to the study door, in a mode the code chooses.

Every feature of the notebook that asks a model (the tutor on a page, the studio's outputs and AI
flashcards, "explain this", the board's planning) goes through `ask`, which:

- picks the passages the mode may read: the page's notes first, then the source passages that
  best answer the question (PLANNING reads none at all);
- numbers them itself, 1..n, so a citation `[n]` always means a passage the code knows — `cited`
  drops any number the model invented before the student sees it;
- refuses `NOTEBOOK_NOTHING_TO_STUDY` before any model is asked (and before the hourly bucket is
  spent) when there is nothing to read;
- spends one call of the study bucket (60 an hour by default, apart from the assistant's 30) and
  turns an empty bucket or a failed chain into a clean refusal.
"""

import re
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from pathlib import Path
from uuid import UUID

from flask import current_app
from flask_babel import gettext as _
from jinja2 import Environment, FileSystemLoader, StrictUndefined

from app.extensions import db
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
from app.notebook.ai.retrieval import retrieve
from app.notebook.models.pages import PageBlock
from app.notebook.models.sources import NotebookSource, SourcePassage
from app.notebook.sources import SEARCH_MAX_CHARS
from app.shared.errors import DomainError, Invalid, Throttled

STUDY_BUCKET = RateBucket("study", "STUDY_AI_RATE_LIMIT")


def study_model() -> Model:
    """The notebook AI's door to the chain (tutor, studio outputs, AI flashcards, reading aid):
    60 calls an hour per user by default, apart from the assistant's 30."""
    return model("study", bucket=STUDY_BUCKET)


_WORD = re.compile(r"[^\W_]+")
PROMPTS = Path(__file__).resolve().parent / "prompts"
LANGUAGE_NAMES = {"en": "English", "pt": "Brazilian Portuguese"}

NOTE_MAX_CHARS = 2_000  # one note as a passage: longer notes are cut here
NOTES_BUDGET = 8_000  # the page's notes together
SOURCES_BUDGET = 8_000  # source passages given in their order when there is no question
RETRIEVED = 6  # source passages retrieved for a question
TASK_MAX_CHARS = 4_000
QUESTION_MAX_CHARS = 2_000


class Mode(StrEnum):
    """How much the model may say beyond the student's own material."""

    TUTOR = "tutor"  # answers first from the passages, says when it goes beyond them
    GROUNDED = "grounded"  # the passages only; nothing without a supporting passage
    SUPPORTED = "supported"  # its own knowledge, citing the passages where they agree
    PLANNING = "planning"  # no passages at all


READS_PASSAGES = {Mode.TUTOR, Mode.GROUNDED, Mode.SUPPORTED}


@dataclass(frozen=True)
class Passage:
    """A piece of the student's material as the model saw it, under the number the code gave it."""

    number: int
    text: str
    kind: str  # "note" (a note block of the page) or "source" (a source passage)
    label: str  # "Notes" or the source's title, for the citation chip
    block_id: UUID | None = None
    source_id: UUID | None = None
    passage_id: int | None = None
    position: int | None = None  # the passage's place in its source

    def as_dict(self):
        """The passage as stored beside an answer (JSON), so its citations resolve later."""
        return {
            "number": self.number,
            "text": self.text,
            "kind": self.kind,
            "label": self.label,
            "block_id": str(self.block_id) if self.block_id else None,
            "source_id": str(self.source_id) if self.source_id else None,
            "passage_id": self.passage_id,
            "position": self.position,
        }

    @classmethod
    def from_dict(cls, data):
        return cls(
            number=data["number"],
            text=data["text"],
            kind=data["kind"],
            label=data["label"],
            block_id=UUID(data["block_id"]) if data.get("block_id") else None,
            source_id=UUID(data["source_id"]) if data.get("source_id") else None,
            passage_id=data.get("passage_id"),
            position=data.get("position"),
        )


class StudyAIUnavailable(DomainError):
    """No model of the chain answered: nothing was changed, the student may ask again."""

    status = 503

    def __init__(self):
        super().__init__("STUDY_AI_UNAVAILABLE")


class StudyAITooSlow(DomainError):
    """No model answered within the door's deadline (AI_REQUEST_SECONDS): the student waited that
    long and no longer; nothing was changed."""

    status = 503

    def __init__(self):
        super().__init__("STUDY_AI_TOO_SLOW", seconds=current_app.config["AI_REQUEST_SECONDS"])


class StudyAIAnswerUnusable(DomainError):
    """A model answered, but nothing of it could be read as asked: nothing was changed, the student
    may ask again (the network is not to blame)."""

    status = 502

    def __init__(self):
        super().__init__("STUDY_AI_ANSWER_UNUSABLE")


class StudyAINotConfigured(DomainError):
    """The server has no provider with a key: the notebook works, its AI does not."""

    status = 503

    def __init__(self):
        super().__init__("STUDY_AI_NOT_CONFIGURED")


# The passages ------------------------------------------------------------------------------------


def passages_for(user, page, question=None):
    """What the model reads for `page`, numbered from 1: the page's notes (in the page's order,
    within a budget: past it, the ones nearest the question), then the source passages retrieved
    for `question`; with no question,
    or when retrieval finds nothing, the page's source passages in their order up to a budget."""
    found = _notes(user, page, question)
    words = str(question or "").strip()[:SEARCH_MAX_CHARS]
    sources = retrieve(user, page.id, words, limit=RETRIEVED) if words else []
    if sources:
        found += [("source", hit.source_title, None, hit.source_id, hit.passage_id, hit.position, hit.text)
                  for hit in sources]  # fmt: skip
    else:
        found += _sources_in_order(user, page)
    return [
        Passage(number, text, kind, label, block_id, source_id, passage_id, position)
        for number, (kind, label, block_id, source_id, passage_id, position, text) in enumerate(found, start=1)
    ]


def _notes(user, page, question=None):
    """The page's note blocks (each cut to its share), all of them while they fit the budget;
    past it, the notes sharing most words with the question, still in the page's order."""
    blocks = db.session.scalars(
        db.select(PageBlock)
        .where(PageBlock.user_id == user.id, PageBlock.page_id == page.id, PageBlock.kind == "note")
        .order_by(PageBlock.position, PageBlock.created_at)
    )
    notes = [(block.id, text) for block in blocks if (text := block.text.strip()[:NOTE_MAX_CHARS])]
    asked = _words(question)
    ranked = sorted(range(len(notes)), key=lambda index: (-len(asked & _words(notes[index][1])), index))
    chosen, spent = set(), 0
    for index in ranked:
        if spent + len(notes[index][1]) <= NOTES_BUDGET:
            chosen.add(index)
            spent += len(notes[index][1])
    return [("note", _("Notes"), notes[i][0], None, None, None, notes[i][1]) for i in sorted(chosen)]


def _words(text):
    """The words of a text worth matching on (three letters or more), lowercased."""
    return {word for word in _WORD.findall(str(text or "").lower()) if len(word) >= 3}


def _sources_in_order(user, page):
    rows = db.session.execute(
        db.select(SourcePassage, NotebookSource.title)
        .join(NotebookSource, NotebookSource.id == SourcePassage.source_id)
        .where(NotebookSource.user_id == user.id, NotebookSource.page_id == page.id, NotebookSource.status == "ready")
        .order_by(NotebookSource.created_at, NotebookSource.id, SourcePassage.position)
    )
    passages, spent = [], 0
    for passage, title in rows:
        if spent + len(passage.text) > SOURCES_BUDGET and passages:
            break
        spent += len(passage.text)
        passages.append(("source", title, None, passage.source_id, passage.id, passage.position, passage.text))
    return passages


def has_something_to_read(user, page):
    """Whether the page holds a note with text or a source whose passages are searchable."""
    note = db.session.scalar(
        db.select(PageBlock.id)
        .where(PageBlock.user_id == user.id, PageBlock.page_id == page.id, PageBlock.kind == "note")
        .where(db.func.length(db.func.trim(PageBlock.text)) > 0)
        .limit(1)
    )
    if note is not None:
        return True
    source = db.session.scalar(
        db.select(NotebookSource.id)
        .where(NotebookSource.user_id == user.id, NotebookSource.page_id == page.id, NotebookSource.status == "ready")
        .where(NotebookSource.passages_total > 0)
        .limit(1)
    )
    return source is not None


# Asking -----------------------------------------------------------------------------------------


def ask(user, page, mode, task, schema, *, question=None, passages=None):
    """One structured answer (`schema`) for `task` on `page`, in `mode`.

    TUTOR and GROUNDED need passages; SUPPORTED may answer from its own knowledge when the page
    has something to read but no passage fits. Without them the refusal comes before any model is
    asked and before the bucket is spent. PLANNING is never given a passage.
    """
    mode = Mode(mode)
    if mode in READS_PASSAGES:
        if passages is None:
            passages = passages_for(user, page, question)
        if not passages and (mode != Mode.SUPPORTED or not has_something_to_read(user, page)):
            raise Invalid("NOTEBOOK_NOTHING_TO_STUDY")
    else:
        passages = []
    door = study_model()
    if not door.configured:
        raise StudyAINotConfigured()
    request = build_request(user, page, mode, task, passages, question=question)
    try:
        return door.structured(request, schema, user=user)
    except BudgetSpent as spent:
        raise Throttled("STUDY_AI_RATE_LIMITED", time=spent.reset_at.strftime("%H:%M UTC")) from None
    except LLMNotConfigured:
        raise StudyAINotConfigured() from None
    except AnswerUnreadable:
        raise StudyAIAnswerUnusable() from None
    except DeadlineReached:
        raise StudyAITooSlow() from None
    except LLMError:
        raise StudyAIUnavailable() from None


@cache
def _template(mode):
    """The mode's prompt; each includes the rules every mode shares (prompts/rules.md)."""
    environment = Environment(
        loader=FileSystemLoader(PROMPTS), undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True
    )
    return environment.get_template(f"{mode}.md")


def build_request(user, page, mode, task, passages, *, question=None):
    """The system prompt (the mode's rules, the page, the numbered passages) and the task."""
    system = _template(Mode(mode).value).render(
        language_name=LANGUAGE_NAMES.get(user.language, "English"),
        page_title=page.title,
        topic=page.topic.name,
        passages=[_numbered(passage) for passage in passages],
    )
    said = str(task or "").strip()[:TASK_MAX_CHARS]
    if question:
        said += "\n\nQuestion: " + str(question).strip()[:QUESTION_MAX_CHARS]
    return ChatRequest(system=system, messages=[Message.user(said)])


def _numbered(passage):
    where = passage.label if passage.position is None else f"{passage.label}, passage {passage.position}"
    return f"[{passage.number}] ({where})\n{passage.text}"


# Citations -------------------------------------------------------------------------------------

_CODE = re.compile(r"(```.*?(?:```|$)|`[^`\n]*`)", re.DOTALL)
# One or more bracketed groups of numbers in a row: "[1]", "[1, 2]", "[1][3]", "[2–4]".
_GROUPS = re.compile(r"[ \t]?(?:\[\s*\d+(?:\s*(?:[,;]|[-–])\s*\d+)*\s*\](?!\())+")
_GROUP = re.compile(r"\[([^\]]*)\]")
_NUMBERS = re.compile(r"(\d+)\s*[-–]\s*(\d+)|(\d+)")
RANGE_MAX = 20  # "[1-500]" is not a citation worth expanding


def cited(text, passages):
    """`text` with only the citations of real passages, each as `[n]`: "[1, 2]" and "[1-2]"
    become "[1][2]", a number with no passage (an invented "[9]" when there are five) is
    dropped with the space before it, and code is left untouched."""
    known = {passage.number for passage in passages}
    parts = _CODE.split(str(text or ""))
    return "".join(part if index % 2 else _GROUPS.sub(lambda run: _kept(run, known), part)
                   for index, part in enumerate(parts))  # fmt: skip


def _kept(run, known):
    numbers = [number for group in _GROUP.findall(run.group()) for number in _numbers_in(group)]
    kept = list(dict.fromkeys(number for number in numbers if number in known))
    if not kept:
        return ""
    space = " " if run.group()[:1] in (" ", "\t") else ""
    return space + "".join(f"[{number}]" for number in kept)


def _numbers_in(group):
    for first, last, single in _NUMBERS.findall(group):
        if single:
            yield int(single)
        elif 0 <= int(last) - int(first) <= RANGE_MAX:
            yield from range(int(first), int(last) + 1)


def citations_in(text, passages):
    """The passages `text` cites, in the order first cited (each once)."""
    by_number = {passage.number: passage for passage in passages}
    numbers = re.findall(r"\[(\d+)\](?!\()", "".join(_CODE.split(cited(text, passages))[::2]))
    return [by_number[number] for number in dict.fromkeys(int(n) for n in numbers)]
