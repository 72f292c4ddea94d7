"""Feedback: what a user may send, and an inbox only admins can read or triage."""

import pytest

from app.extensions import db
from app.feedback import services as feedback
from app.feedback.models import Feedback, FeedbackStatus
from app.shared.errors import Forbidden, Invalid, NotFound


@pytest.fixture
def admin(bruno):
    bruno.is_admin = True
    db.session.commit()
    return bruno


def test_feedback_is_recorded_as_new(ana):
    sent = feedback.submit(ana, "feature_request", "  Dark mode for charts, please  ", "/dashboard")
    assert (sent.kind, sent.text, sent.page, sent.status) == (
        "FEATURE_REQUEST",
        "Dark mode for charts, please",
        "/dashboard",
        "NEW",
    )


@pytest.mark.parametrize(
    ("kind", "text", "problem"),
    [
        ("PRAISE", "Lovely app", {"kind": "FEEDBACK_KIND_INVALID"}),
        ("BUG", "Bad", {"text": "FEEDBACK_TEXT_INVALID"}),
        ("BUG", "x" * 4001, {"text": "FEEDBACK_TEXT_INVALID"}),
    ],
)
def test_invalid_feedback_is_refused(ana, kind, text, problem):
    with pytest.raises(Invalid) as refused:
        feedback.submit(ana, kind, text)
    assert refused.value.details == problem
    assert db.session.scalar(db.select(db.func.count()).select_from(Feedback)) == 0


def test_texts_of_5_and_4000_characters_are_accepted(ana):
    feedback.submit(ana, "OTHER", "Hello")
    feedback.submit(ana, "OTHER", "x" * 4000)


def test_an_over_long_page_is_cut_rather_than_refused(ana):
    assert len(feedback.submit(ana, "BUG", "Broken chart", "/" + "p" * 300).page) == 200


def test_only_admins_read_or_triage_the_inbox(ana, admin):
    sent = feedback.submit(ana, "BUG", "Broken chart")
    for call in (
        lambda: feedback.inbox(ana),
        lambda: feedback.counts(ana),
        lambda: feedback.set_status(ana, sent.id, "DONE"),
    ):
        with pytest.raises(Forbidden):
            call()
    assert sent.status == FeedbackStatus.NEW


def test_admins_filter_the_inbox_and_move_items_through_triage(ana, admin):
    bug = feedback.submit(ana, "BUG", "Broken chart")
    idea = feedback.submit(ana, "FEATURE_REQUEST", "Dark charts")
    feedback.set_status(admin, bug.id, "triaged")
    assert [item.text for item in feedback.inbox(admin, status="TRIAGED")] == ["Broken chart"]
    assert [item.text for item in feedback.inbox(admin, kind="FEATURE_REQUEST")] == ["Dark charts"]
    assert feedback.counts(admin) == {"NEW": 1, "TRIAGED": 1, "DONE": 0, "WONT_DO": 0, "total": 2}
    with pytest.raises(Invalid):
        feedback.set_status(admin, idea.id, "CLOSED")
    with pytest.raises(NotFound) as missing:
        feedback.set_status(admin, "not-an-id", "DONE")
    assert missing.value.key == "FEEDBACK_NOT_FOUND"
