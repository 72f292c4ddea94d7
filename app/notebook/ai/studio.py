"""The study studio of a page: summaries, study guides and quizzes, and AI flashcard drafts, all
made from the page's own passages (the notebook's AI in GROUNDED mode, app/notebook/ai/services.py).

Grounded means checked here, not only asked for: the model answers with "supported": false when
the passages hold nothing to build from, and every part it writes must cite a real passage once
invented citations are dropped (`study_ai.cited`). A part citing nothing is left out; an output
left with nothing is not produced — the student is told so, nothing is stored, though the call
has spent one of the study bucket's calls like any other answer.

Outputs and drafts keep a copy of the passages they cite, so their citations still read after a
source is deleted. A draft becomes a real flashcard only when the student accepts it: through
`notebook.add_card`, in the same commit that removes the draft, so it is then in the review.
"""

from functools import cache
from pathlib import Path

from flask_babel import gettext as _
from jinja2 import Environment, StrictUndefined
from pydantic import BaseModel, Field

from app.events import announce
from app.extensions import db
from app.notebook import services as notebook
from app.notebook.ai import services as notebook_ai
from app.notebook.ai.models.studio import FOCUS_MAX, OUTPUT_KINDS, OUTPUT_TITLE_MAX, CardDraft, StudioOutput
from app.notebook.models.pages import CARD_SIDE_MAX
from app.shared.errors import Invalid
from app.shared.fields import UNSET, given, refuse_if
from app.shared.ownership import owned

PROMPT = Path(__file__).resolve().parent / "prompts" / "studio.md"
LIMITS = {"sections": 6, "points": 6, "terms": 10, "questions": 8, "choices": 4, "cards": 10}
CARDS_MAX = 20  # the most drafts one request may ask for
OUTPUTS_PER_PAGE = 30
DRAFTS_PER_PAGE = 60
EXISTING_SHOWN = 40  # the page's newest card fronts the model is told not to repeat (all are checked here)
SUMMARY_MAX = 6_000
PART_MAX = 1_000  # one point, definition, question, choice or explanation
CHOICES = (2, 6)
UNSUPPORTED = {
    "summary": "STUDY_AI_SUMMARY_UNSUPPORTED",
    "guide": "STUDY_AI_GUIDE_UNSUPPORTED",
    "quiz": "STUDY_AI_QUIZ_UNSUPPORTED",
    "cards": "STUDY_AI_CARDS_UNSUPPORTED",
}


# What the model answers ------------------------------------------------------------------------

SUPPORTED = "false when the passages hold nothing to build this from (then leave the rest empty)"


class SummaryAnswer(BaseModel):
    supported: bool = Field(description=SUPPORTED)
    title: str = ""
    text: str = Field("", description="Markdown, citing passages as [n]")


class GuideSection(BaseModel):
    heading: str = ""
    points: list[str] = Field(default_factory=list, description="one sentence each, citing passages as [n]")


class GuideTerm(BaseModel):
    term: str = ""
    definition: str = Field("", description="as the passages give it, citing them as [n]")


class GuideAnswer(BaseModel):
    supported: bool = Field(description=SUPPORTED)
    title: str = ""
    sections: list[GuideSection] = Field(default_factory=list)
    terms: list[GuideTerm] = Field(default_factory=list)


class QuizQuestion(BaseModel):
    question: str = ""
    choices: list[str] = Field(default_factory=list)
    answer: int = Field(0, description="the index of the right choice, counting from 0")
    explanation: str = Field("", description="why the right choice is right, citing passages as [n]")


class QuizAnswer(BaseModel):
    supported: bool = Field(description=SUPPORTED)
    title: str = ""
    questions: list[QuizQuestion] = Field(default_factory=list)


class DraftedCard(BaseModel):
    front: str = ""
    back: str = ""
    passage: int = Field(0, description="the number of the passage the card comes from")


class CardsAnswer(BaseModel):
    supported: bool = Field(description=SUPPORTED)
    cards: list[DraftedCard] = Field(default_factory=list)


SCHEMAS = {"summary": SummaryAnswer, "guide": GuideAnswer, "quiz": QuizAnswer, "cards": CardsAnswer}


# Asking ----------------------------------------------------------------------------------------


@cache
def _template():
    environment = Environment(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True)
    return environment.from_string(PROMPT.read_text(encoding="utf-8"))


def task_for(kind, focus=None, *, cards=None, existing=()):
    """The studio's task for `kind` (prompts/studio.md), after the GROUNDED rules."""
    limits = {**LIMITS, "cards": cards or LIMITS["cards"]}
    return _template().render(kind=kind, focus=focus or "", limits=limits, existing=list(existing))


def _asked(user, page, kind, focus, **task):
    """The page's passages (retrieved for the focus when there is one) and the model's answer.
    The focus reaches the model inside the task, not as a question to answer."""
    passages = notebook_ai.passages_for(user, page, focus)
    answer = notebook_ai.ask(
        user, page, notebook_ai.Mode.GROUNDED, task_for(kind, focus, **task), SCHEMAS[kind], passages=passages
    )
    return answer, passages


def _focus(value):
    text = " ".join(str(value or "").split())
    refuse_if({"focus": "STUDY_AI_FOCUS_TOO_LONG"} if len(text) > FOCUS_MAX else {})
    return text or None


# Outputs ---------------------------------------------------------------------------------------


def outputs(user, page_id):
    """The page's summaries, guides and quizzes, the newest first."""
    page = notebook.get_page(user, page_id)
    return db.session.scalars(
        db.select(StudioOutput)
        .where(StudioOutput.user_id == user.id, StudioOutput.page_id == page.id)
        .order_by(StudioOutput.created_at.desc(), StudioOutput.id)
    ).all()


def get_output(user, output_id):
    return owned(StudioOutput, output_id, user, key="STUDY_AI_OUTPUT_NOT_FOUND")


def generate(user, page_id, kind, focus=None):
    """A summary, a study guide or a quiz of the page, from its passages only, stored.

    Refused before any model is asked when the kind is unknown, the focus too long, the page
    already keeps OUTPUTS_PER_PAGE outputs, or it has nothing to read; refused after the call,
    storing nothing, when the passages support none of it."""
    page = notebook.get_page(user, page_id)
    if kind not in OUTPUT_KINDS:
        raise Invalid("STUDY_AI_OUTPUT_KIND_INVALID")
    focus = _focus(focus)
    if len(outputs(user, page.id)) >= OUTPUTS_PER_PAGE:
        raise Invalid("STUDY_AI_OUTPUTS_FULL", limit=OUTPUTS_PER_PAGE)
    answer, passages = _asked(user, page, kind, focus)
    content = _CLEANERS[kind](answer, passages) if answer.supported else None
    if not content:
        raise Invalid(UNSUPPORTED[kind])
    cited = notebook_ai.citations_in("\n".join(_texts(kind, content)), passages)
    output = StudioOutput(
        user_id=user.id,
        page_id=page.id,
        kind=kind,
        title=_title(answer.title, kind, page),
        focus=focus,
        content=content,
        passages=[passage.as_dict() for passage in cited],
    )
    db.session.add(output)
    db.session.commit()
    announce(user, "study_ai")
    return output


def delete_output(user, output_id):
    output = get_output(user, output_id)
    db.session.delete(output)
    db.session.commit()
    announce(user, "study_ai")


def check_quiz(user, output_id, chosen):
    """How a student's answers to a quiz went, without storing them: for each question, the
    choice made (None when skipped), the right one, and whether they match. `chosen` maps a
    question's index to the index of the choice made."""
    quiz = get_output(user, output_id)
    if quiz.kind != "quiz":
        raise Invalid("STUDY_AI_NOT_A_QUIZ")
    marks = []
    for index, question in enumerate(quiz.content["questions"]):
        choice = _choice(chosen.get(index), len(question["choices"]))
        marks.append({"chosen": choice, "answer": question["answer"], "right": choice == question["answer"]})
    return marks


def _choice(value, count):
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if 0 <= number < count else None


def passages_of(row):
    """The copies of the passages an output cites (or a draft comes from), as study_ai Passages."""
    return [notebook_ai.Passage.from_dict(data) for data in row.passages]


def _title(value, kind, page):
    title = " ".join(str(value or "").split())[:OUTPUT_TITLE_MAX]
    if title:
        return title
    defaults = {
        "summary": _("Summary of %(page)s", page=page.title),
        "guide": _("Study guide of %(page)s", page=page.title),
        "quiz": _("Quiz on %(page)s", page=page.title),
    }
    return defaults[kind][:OUTPUT_TITLE_MAX]


def _grounded(text, passages, limit=PART_MAX):
    """`text` with its invented citations dropped, or None when it cites no real passage."""
    clean = notebook_ai.cited(str(text or "").strip(), passages)[:limit].strip()
    return clean if clean and notebook_ai.citations_in(clean, passages) else None


def _plain(text, limit=PART_MAX):
    """A short text that cites nothing (a heading, a term, a choice): squeezed, citations removed."""
    return " ".join(notebook_ai.cited(str(text or ""), []).split())[:limit]


def _summary(answer, passages):
    text = _grounded(answer.text, passages, SUMMARY_MAX)
    return {"text": text} if text else None


def _guide(answer, passages):
    sections = []
    for section in answer.sections[: LIMITS["sections"]]:
        grounded = (_grounded(text, passages) for text in section.points[: LIMITS["points"]])
        points = [point for point in grounded if point]
        if points:
            sections.append({"heading": _plain(section.heading, OUTPUT_TITLE_MAX), "points": points})
    terms = []
    for term in answer.terms[: LIMITS["terms"]]:
        name, definition = _plain(term.term, OUTPUT_TITLE_MAX), _grounded(term.definition, passages)
        if name and definition:
            terms.append({"term": name, "definition": definition})
    return {"sections": sections, "terms": terms} if sections or terms else None


def _quiz(answer, passages):
    questions = []
    for asked in answer.questions[: LIMITS["questions"]]:
        question, explanation = _plain(asked.question), _grounded(asked.explanation, passages)
        if not (0 <= asked.answer < len(asked.choices)) or not question or not explanation:
            continue
        right = _plain(asked.choices[asked.answer])
        choices = list(dict.fromkeys(choice for choice in map(_plain, asked.choices) if choice))
        if right in choices and CHOICES[0] <= len(choices) <= CHOICES[1]:
            questions.append(
                {"question": question, "choices": choices, "answer": choices.index(right), "explanation": explanation}
            )
    return {"questions": questions} if questions else None


_CLEANERS = {"summary": _summary, "guide": _guide, "quiz": _quiz}


def _texts(kind, content):
    """Every text of an output that may cite a passage."""
    if kind == "summary":
        return [content["text"]]
    if kind == "guide":
        return [point for section in content["sections"] for point in section["points"]] + [
            term["definition"] for term in content["terms"]
        ]
    return [question["explanation"] for question in content["questions"]]


# Flashcard drafts ------------------------------------------------------------------------------


def drafts(user, page_id):
    """The page's drafts waiting for the student, in the order they were drafted."""
    page = notebook.get_page(user, page_id)
    return db.session.scalars(
        db.select(CardDraft)
        .where(CardDraft.user_id == user.id, CardDraft.page_id == page.id)
        .order_by(CardDraft.created_at, CardDraft.position, CardDraft.id)
    ).all()


def get_draft(user, draft_id):
    return owned(CardDraft, draft_id, user, key="STUDY_AI_DRAFT_NOT_FOUND")


def draft_cards(user, page_id, count=None, focus=None):
    """Up to `count` flashcard drafts from the page's passages, each from one passage, stored.

    A card already on the page (or already drafted) is not drafted again; the answer lists the
    new drafts only. Refused before any model is asked when the page already keeps
    DRAFTS_PER_PAGE drafts or has nothing to read; after the call, when no passage supports a
    card (STUDY_AI_CARDS_UNSUPPORTED) or every card was already there (STUDY_AI_CARDS_NOTHING_NEW)."""
    page = notebook.get_page(user, page_id)
    focus = _focus(focus)
    waiting = drafts(user, page.id)
    room = DRAFTS_PER_PAGE - len(waiting)
    if room <= 0:
        raise Invalid("STUDY_AI_DRAFTS_FULL", limit=DRAFTS_PER_PAGE)
    count = min(_count(count), room)
    existing = [block.text for block in page.blocks if block.kind == "card"] + [draft.front for draft in waiting]
    answer, passages = _asked(user, page, "cards", focus, cards=count, existing=existing[-EXISTING_SHOWN:])
    by_number = {passage.number: passage for passage in passages}
    cards = [card for card in answer.cards if card.passage in by_number] if answer.supported else []
    seen = {_folded(front) for front in existing}
    new = []
    for card in cards:
        front, back = _plain(card.front, CARD_SIDE_MAX), _plain(card.back, CARD_SIDE_MAX)
        if front and back and _folded(front) not in seen:
            seen.add(_folded(front))
            new.append((front, back, by_number[card.passage]))
    if not new:
        raise Invalid("STUDY_AI_CARDS_NOTHING_NEW" if cards else "STUDY_AI_CARDS_UNSUPPORTED")
    made = [
        CardDraft(
            user_id=user.id, page_id=page.id, front=front, back=back, passage=passage.as_dict(), position=position
        )
        for position, (front, back, passage) in enumerate(new[:count])
    ]
    db.session.add_all(made)
    db.session.commit()
    announce(user, "study_ai")
    return made


def _count(value):
    if value in (None, ""):
        return LIMITS["cards"]
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = 0
    refuse_if({} if 1 <= number <= CARDS_MAX else {"count": "STUDY_AI_CARD_COUNT_INVALID"})
    return number


def _folded(text):
    return " ".join(text.casefold().split())


def edit_draft(user, draft_id, front, back):
    """New sides for a draft before it is accepted, checked like a flashcard's."""
    draft = get_draft(user, draft_id)
    draft.front, draft.back = _sides(front, back)
    db.session.commit()
    announce(user, "study_ai")
    return draft


def accept_draft(user, draft_id, front=UNSET, back=UNSET):
    """The draft, as it is or with the sides given, becomes a flashcard at the end of its page,
    due for review at once; the draft goes in the same commit."""
    draft = get_draft(user, draft_id)
    sides = _sides(front if given(front) else draft.front, back if given(back) else draft.back)
    page_id = draft.page_id
    db.session.delete(draft)
    card = notebook.add_card(user, page_id, *sides)  # commits the draft's removal with the card
    announce(user, "study_ai")
    return card


def accept_all(user, page_id):
    """Every draft of the page becomes a flashcard, in the order they were drafted."""
    return [accept_draft(user, draft.id) for draft in drafts(user, page_id)]


def discard_draft(user, draft_id):
    draft = get_draft(user, draft_id)
    db.session.delete(draft)
    db.session.commit()
    announce(user, "study_ai")


def discard_all(user, page_id):
    """Every draft of the page, gone; the count of those discarded."""
    waiting = drafts(user, page_id)
    for draft in waiting:
        db.session.delete(draft)
    db.session.commit()
    announce(user, "study_ai")
    return len(waiting)


def _sides(front, back):
    problems, sides = {}, {}
    for field, value in (("front", front), ("back", back)):
        sides[field] = str(value or "").strip()
        if not sides[field]:
            problems[field] = "NOTEBOOK_CARD_SIDE_REQUIRED"
        elif len(sides[field]) > CARD_SIDE_MAX:
            problems[field] = "NOTEBOOK_CARD_SIDE_TOO_LONG"
    refuse_if(problems)
    return sides["front"], sides["back"]


# Export ----------------------------------------------------------------------------------------


def every_output(user):
    return db.session.scalars(
        db.select(StudioOutput)
        .where(StudioOutput.user_id == user.id)
        .order_by(StudioOutput.page_id, StudioOutput.created_at, StudioOutput.id)
    ).all()


def every_draft(user):
    return db.session.scalars(
        db.select(CardDraft)
        .where(CardDraft.user_id == user.id)
        .order_by(CardDraft.page_id, CardDraft.created_at, CardDraft.position, CardDraft.id)
    ).all()


def output_data(output):
    """An output as the export writes it: its kind, title, parts and the passages it cites."""
    return {
        "id": str(output.id),
        "pageId": str(output.page_id),
        "kind": output.kind,
        "title": output.title,
        "focus": output.focus,
        "content": output.content,
        "passages": output.passages,
        "createdAt": output.created_at.isoformat(),
    }


def draft_data(draft):
    return {
        "id": str(draft.id),
        "pageId": str(draft.page_id),
        "front": draft.front,
        "back": draft.back,
        "passage": draft.passage,
        "createdAt": draft.created_at.isoformat(),
    }
