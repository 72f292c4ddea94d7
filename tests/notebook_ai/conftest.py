"""The wire fake and an app whose chain points at it, for the notebook's AI; a page to study."""

import json

import pytest

from app.extensions import db
from app.notebook import services as notebook
from app.notebook import sources
from app.profile.models import User
from tests.assistant.conftest import AgentClient, Reply, agent_app, agent_db_url, fake, fake_providers, make_agent_app
from tests.conftest import make_user

__all__ = ["AgentClient", "agent_app", "agent_db_url", "fake", "fake_providers", "make_agent_app"]

NOTE = "Mitochondria make most of the cell's ATP through respiration."
SOURCE = (
    "The nucleus holds the cell's DNA.\n\n"
    + "Ribosomes read messenger RNA and build proteins from amino acids. " * 14
    + "\n\n"
    + "The cell membrane is a lipid bilayer that lets some molecules through and keeps others out. " * 10
)


def says(payload):
    """A fake reply holding this JSON answer."""
    return Reply.says(json.dumps(payload))


def body_of(request):
    """Everything a recorded request sent, as one string to search."""
    return json.dumps(request.body, ensure_ascii=False)


@pytest.fixture
def in_app(agent_app):
    """Ana's account, inside an app context of the fake-backed app."""
    user_id = make_user(agent_app)
    with agent_app.test_request_context():
        yield db.session.get(User, user_id)
        db.session.remove()


def a_page(user, title="Cells", note=NOTE, source=SOURCE):
    """A page with one note and one pasted source (short, so indexed at once)."""
    topic = notebook.create_topic(user, "Biology")
    page = notebook.create_page(user, topic.id, title)
    if note:
        notebook.add_note(user, page.id, note)
    if source:
        sources.paste(user, page.id, source, title="Cell biology")
    return page
