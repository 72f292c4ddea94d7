"""The pieces every service stands on: refusals, loading through the owner, announcements."""

import uuid

import pytest
from flask_babel import force_locale
from sqlalchemy import ForeignKey, MetaData, String, Uuid
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from app import events
from app.extensions import db
from app.profile.models import User
from app.shared.errors import DomainError, Invalid, NotFound
from app.shared.ownership import owned
from tests.conftest import make_user


class ScratchBase(DeclarativeBase):
    metadata = MetaData()


class Note(ScratchBase):
    """A stand-in for any owned row, kept off the app's metadata."""

    __tablename__ = "scratch_notes"
    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    user_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey(User.id))
    text: Mapped[str] = mapped_column(String(50))


@pytest.fixture
def notes(app, app_context):
    ScratchBase.metadata.create_all(db.engine)
    yield
    db.session.rollback()
    ScratchBase.metadata.drop_all(db.engine)


def test_a_foreign_id_is_not_found_exactly_like_an_unknown_one(app, notes):
    ana = db.session.get(User, make_user(app))
    bruno = db.session.get(User, make_user(app, email="bruno@example.com"))
    note = Note(user_id=bruno.id, text="Bruno's")
    db.session.add(note)
    db.session.commit()
    refusals = []
    for row_id in (note.id, uuid.uuid4(), "not-a-uuid", None):
        with pytest.raises(NotFound) as caught:
            owned(Note, row_id, ana)
        refusals.append((caught.value.key, caught.value.message, caught.value.status))
    assert len(set(refusals)) == 1
    assert owned(Note, str(note.id), bruno) is note


def test_a_refusal_carries_a_key_a_translated_message_and_field_details(app_context):
    error = Invalid("INVALID_INPUT", details={"email": "EMAIL_INVALID"})
    assert error.status == 422
    with force_locale("pt"):
        assert error.to_dict() == {
            "error": "INVALID_INPUT",
            "message": "Alguns campos precisam da sua atenção.",
            "details": {"email": "Digite um endereço de e-mail válido."},
        }


def test_message_placeholders_are_filled(app_context):
    assert "paused for 15 minutes" in DomainError("LOGIN_LOCKED", wait="15 minutes").message


def test_announcements_are_collected_only_inside_a_scope():
    events.announce(None, "habits")  # outside any scope: nobody listens, nothing breaks
    with events.collecting() as outer:
        events.announce(None, "habits")
        with events.collecting() as inner:
            events.announce(None, "goals")
        events.announce(None, "routines", "habits")
    assert outer == {"habits", "routines"}
    assert inner == {"goals"}
    assert events.hx_trigger_header(outer) == "domain:habits, domain:routines"


def test_an_unknown_domain_is_a_programming_error():
    with pytest.raises(ValueError):
        events.announce(None, "habbits")
