"""The notebook's AI in the data export: the tutor's conversations, the studio's outputs and the
flashcard drafts still waiting.

One function per section the domain's declaration names, `export_<section>(user)`, read by the
export on the configuration page (app/profile/configuration.py)."""

from app.extensions import db
from app.notebook.ai import studio, tutor
from app.notebook.ai.models.tutor import TutorExchange


def export_study_tutor(user):
    """Every question asked of the tutor on a notebook page, with its answer and what it cited."""
    return [
        tutor.exchange_data(exchange)
        for exchange in db.session.scalars(
            db.select(TutorExchange)
            .where(TutorExchange.user_id == user.id)
            .order_by(TutorExchange.page_id, TutorExchange.created_at, TutorExchange.id)
        )
    ]


def export_study_outputs(user):
    """Every page's summaries, study guides and quizzes, with the passages each cites."""
    return [studio.output_data(output) for output in studio.every_output(user)]


def export_study_card_drafts(user):
    """The AI flashcard drafts still waiting, each with the passage it comes from."""
    return [studio.draft_data(draft) for draft in studio.every_draft(user)]
