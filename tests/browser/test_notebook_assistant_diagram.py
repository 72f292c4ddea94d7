"""The assistant draws a diagram in its answer: the wire fake calls showDiagram, the chat shows the
drawing as it streams and after the answer is saved, nothing is added to the notebook, and the
page keeps its strict policy (no console errors)."""

import pytest
from playwright.sync_api import expect

from app import create_app
from app.extensions import db
from app.notebook.models.pages import PageBlock
from app.profile import accounts, configuration
from tests.browser.conftest import mistral_at, serve
from tests.browser.conftest import sign_in as signed_in_as
from tests.fakes import FakeProviders, Reply
from tests.fakes.script import FakeCall

pytestmark = pytest.mark.browser

PASSWORD = "draw it for me please"


@pytest.fixture(scope="module")
def fake():
    with FakeProviders() as providers:
        yield providers


@pytest.fixture(scope="module")
def served(tmp_path_factory, fake):
    database = tmp_path_factory.mktemp("diagram-e2e") / "diagram.sqlite3"
    env = mistral_at(fake, first_event_timeout=5)
    app = create_app("test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}", LLM_ENV=env)
    with app.app_context():
        db.create_all()
        user = accounts.register(name="Noa", email="noa@example.com", password=PASSWORD, timezone_name="UTC")
        configuration.update(user, tutorial_done=True)
    with serve(app) as base_url:
        yield app, base_url


def test_the_assistant_shows_a_diagram_inside_its_answer_and_saves_nothing(page, served, fake):
    app, base_url = served
    signed_in_as(page, base_url, "noa@example.com", PASSWORD)
    page.goto(f"{base_url}/notebook")
    page.get_by_role("button", name="Assistant").click()
    composer = page.locator("#composer-input")
    expect(composer).to_be_focused()

    fake.script(
        "mistral",
        Reply.calls(FakeCall("showDiagram", {"source": "flowchart LR\n  Light --> Chloroplast --> Sugar"})),
        Reply.says("Here is photosynthesis as a flow."),
    )
    composer.fill("Draw photosynthesis as a diagram")
    composer.press("Enter")

    answer = page.locator(".bubble-assistant").last
    expect(answer).to_contain_text("Here is photosynthesis as a flow.")
    expect(answer.locator(".tool-chip")).to_contain_text("Drew a diagram")
    diagram = answer.locator("[data-mermaid]")
    expect(diagram).to_have_attribute("data-mermaid-state", "drawn", timeout=20_000)
    expect(diagram.locator("[data-mermaid-drawing] img")).to_be_visible()

    page.reload()  # the saved answer draws it again
    page.get_by_role("button", name="Assistant").click()
    saved = page.locator(".bubble-assistant [data-mermaid]").last
    expect(saved).to_have_attribute("data-mermaid-state", "drawn", timeout=20_000)
    with app.app_context():
        assert db.session.scalar(db.select(db.func.count()).select_from(PageBlock)) == 0
    assert page.console_errors == []
