"""The tutor on a study page: a question answered from the page's numbered passages (its notes,
then the source passages that best answer it), citing them as `[n]`.

The model has no memory: each question goes alone with its passages (app/notebook/ai/services.py,
mode TUTOR). The page keeps its exchanges so the conversation is there after a reload; each one
stores the passages its answer cites, as they were, so a citation resolves to its note block or
its source passage later and still reads right if the note has changed since.
"""

from pydantic import BaseModel

from app.events import announce
from app.extensions import db
from app.notebook import services as notebook
from app.notebook import sources
from app.notebook.ai import services as notebook_ai
from app.notebook.ai.models.tutor import QUESTION_MAX, TutorExchange
from app.notebook.ai.services import Mode, Passage
from app.notebook.models.pages import PageBlock
from app.notebook.models.sources import NotebookSource, SourcePassage
from app.shared.errors import NotFound
from app.shared.fields import refuse_if

TASK = "Answer the student's question about this page, following the TUTOR rules."
EXCHANGES_KEPT = 50  # a page's conversation keeps its latest exchanges
NEIGHBOURS = 1  # passages shown on each side of a cited source passage


class TutorAnswer(BaseModel):
    """What the model answers: Markdown citing `[n]`, and whether it went beyond the passages."""

    answer: str
    beyond_passages: bool = False


def exchanges(user, page):
    """The page's conversation, the oldest exchange first."""
    return db.session.scalars(
        db.select(TutorExchange)
        .where(TutorExchange.user_id == user.id, TutorExchange.page_id == page.id)
        .order_by(TutorExchange.created_at, TutorExchange.id)
    ).all()


def ask(user, page_id, question):
    """Answer `question` from the page's passages and keep the exchange on the page. Refusals
    (nothing to study, the hour's questions spent, no model answering) change nothing."""
    page = notebook.get_page(user, page_id)
    question = str(question or "").strip()
    if not question:
        refuse_if({"question": "STUDY_AI_TUTOR_QUESTION_REQUIRED"})
    if len(question) > QUESTION_MAX:
        refuse_if({"question": "STUDY_AI_TUTOR_QUESTION_TOO_LONG"})
    passages = notebook_ai.passages_for(user, page, question)
    reply = notebook_ai.ask(user, page, Mode.TUTOR, TASK, TutorAnswer, question=question, passages=passages)
    answer = notebook_ai.cited(reply.answer.replace("\x00", ""), passages).strip()  # PostgreSQL stores no NUL
    if not answer:
        raise notebook_ai.StudyAIUnavailable()
    exchange = TutorExchange(
        user_id=user.id,
        page_id=page.id,
        question=question,
        answer=answer,
        beyond_passages=bool(reply.beyond_passages),
        passages=[passage.as_dict() for passage in notebook_ai.citations_in(answer, passages)],
    )
    db.session.add(exchange)
    db.session.flush()
    _keep_latest(user, page)
    db.session.commit()
    announce(user, "study_ai")
    return exchange


def exchange_data(exchange):
    """An exchange as the export writes it."""
    return {
        "id": str(exchange.id),
        "pageId": str(exchange.page_id),
        "question": exchange.question,
        "answer": exchange.answer,
        "beyondPassages": exchange.beyond_passages,
        "cited": exchange.passages,
        "createdAt": exchange.created_at.isoformat(),
    }


def _keep_latest(user, page):
    kept = (
        db.select(TutorExchange.id)
        .where(TutorExchange.user_id == user.id, TutorExchange.page_id == page.id)
        .order_by(TutorExchange.created_at.desc(), TutorExchange.id.desc())
        .limit(EXCHANGES_KEPT)
    )
    db.session.execute(
        db.delete(TutorExchange)
        .where(TutorExchange.user_id == user.id, TutorExchange.page_id == page.id)
        .where(TutorExchange.id.not_in(kept.scalar_subquery()))
    )


def clear(user, page_id):
    """Forget the page's conversation; how many exchanges went."""
    page = notebook.get_page(user, page_id)
    removed = db.session.execute(
        db.delete(TutorExchange).where(TutorExchange.user_id == user.id, TutorExchange.page_id == page.id)
    ).rowcount
    db.session.commit()
    announce(user, "study_ai")
    return removed


def cited_passages(exchange):
    """The passages an exchange's answer cites, by number."""
    return {data["number"]: Passage.from_dict(data) for data in exchange.passages}


def still_there(user, page, exchanges_shown):
    """Of the note blocks and sources the shown answers cite, the ids that still exist, so a
    citation to something deleted since is shown without a dead link."""
    cited = [Passage.from_dict(data) for exchange in exchanges_shown for data in exchange.passages]
    block_ids = {passage.block_id for passage in cited if passage.block_id}
    source_ids = {passage.source_id for passage in cited if passage.source_id}
    found = set()
    if block_ids:
        found.update(db.session.scalars(db.select(PageBlock.id).where(
            PageBlock.user_id == user.id, PageBlock.page_id == page.id, PageBlock.id.in_(block_ids))))  # fmt: skip
    if source_ids:
        found.update(db.session.scalars(db.select(NotebookSource.id).where(
            NotebookSource.user_id == user.id, NotebookSource.id.in_(source_ids))))  # fmt: skip
    return found


def passage_in_source(user, source_id, position):
    """A source's passage at `position` with its neighbours on each side, in order."""
    source = sources.get(user, source_id)
    try:
        position = int(position)
    except (TypeError, ValueError):
        raise NotFound("STUDY_AI_TUTOR_PASSAGE_NOT_FOUND") from None
    passages = db.session.scalars(
        db.select(SourcePassage)
        .where(SourcePassage.source_id == source.id)
        .where(SourcePassage.position.between(position - NEIGHBOURS, position + NEIGHBOURS))
        .order_by(SourcePassage.position)
    ).all()
    if position not in {passage.position for passage in passages}:
        raise NotFound("STUDY_AI_TUTOR_PASSAGE_NOT_FOUND")
    return source, passages, position
