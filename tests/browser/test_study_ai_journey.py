"""The tutor on the demo account's study page, in a real browser with the wire fake answering:
a question shows a pending indicator, then an answer whose citations are chips; a source chip
opens the passage highlighted in its source, a note chip scrolls to the note block highlighted on
the page. On a desktop in English and on a phone in Portuguese, with no console errors."""

import json
import re

import pytest
from playwright.sync_api import expect

from app import create_app
from app.extensions import db
from app.notebook import services as notebook
from app.notebook.models.pages import PageBlock
from app.profile import configuration
from app.profile.models import User
from tests.browser.conftest import mistral_at, serve
from tests.browser.conftest import sign_in as signed_in_as
from tests.fakes import FakeProviders, Reply

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture(scope="module")
def fake():
    with FakeProviders() as providers:
        yield providers


@pytest.fixture(scope="module")
def demo_server(tmp_path_factory, fake):
    """The app with the demo account seeded (`flask seed-demo`), its chain pointing at the fake."""
    database = tmp_path_factory.mktemp("tutor-e2e") / "tutor.sqlite3"
    env = mistral_at(fake, first_event_timeout=20)
    app = create_app("test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}", LLM_ENV=env)
    with app.app_context():
        db.create_all()
    assert app.test_cli_runner().invoke(args=["seed-demo"]).exit_code == 0
    with serve(app) as base_url:
        yield app, base_url


def the_demo(app):
    return db.session.scalar(db.select(User).where(User.email == app.config["DEMO_EMAIL"]))


def cells_note_id(app):
    with app.app_context():
        page = notebook.resolve_page(the_demo(app), "Cells")
        note = db.session.scalar(db.select(PageBlock).where(PageBlock.page_id == page.id, PageBlock.kind == "note"))
        return str(note.id)


def answer(text):
    """The wire fake's answer: a short delay, so the pending indicator shows."""
    return Reply(text=[json.dumps({"answer": text, "beyond_passages": False})], first_byte_delay=1.5)


def ask_and_follow_the_citations(page, app, base_url, fake, question, text, pending):
    signed_in_as(page, base_url, app.config["DEMO_EMAIL"], app.config["DEMO_PASSWORD"])
    page.goto(f"{base_url}/notebook")
    page.get_by_role("link", name="Cells", exact=True).first.click()
    tutor = page.get_by_test_id("tutor")
    fake.script("mistral", answer(text))
    tutor.get_by_test_id("tutor-question").fill(question)
    tutor.get_by_test_id("tutor-question").press("Control+Enter")
    expect(tutor.get_by_test_id("tutor-pending")).to_be_visible()
    expect(tutor.get_by_test_id("tutor-pending")).to_contain_text(pending)
    expect(tutor.get_by_test_id("tutor-asking")).to_have_text(question)  # shown at once, before the answer
    latest = tutor.locator("#tutor-latest")
    expect(latest).to_contain_text(question, timeout=15_000)
    expect(tutor.get_by_test_id("tutor-pending")).to_be_hidden()
    expect(tutor.get_by_test_id("tutor-question")).to_have_value("")
    expect(tutor.get_by_test_id("tutor-question")).to_be_focused()
    expect(tutor.get_by_test_id("tutor-asking")).to_have_count(0)
    chips = latest.get_by_test_id("tutor-answer").get_by_test_id("tutor-cite")
    expect(chips).to_have_text(["2", "1"])
    assert "[9]" not in latest.inner_text()  # the invented citation never reached the page
    request = fake.requests("mistral")[-1]
    assert question in json.dumps(request.body, ensure_ascii=False)

    chips.nth(0).click()  # a source passage: shown in its source, highlighted between its neighbours
    expect(page).to_have_url(re.compile(r"/notebook/sources/[0-9a-f-]+/passage\?at=\d+#passage-\d+$"))
    cited = page.get_by_test_id("tutor-cited-passage")
    expect(cited).to_be_visible()
    expect(cited).to_be_in_viewport()
    expect(cited).to_contain_text(re.compile("membrane", re.IGNORECASE))
    highlight = cited.evaluate("element => getComputedStyle(element).borderLeftStyle")
    assert highlight == "solid"
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
    page.go_back()

    note_id = cells_note_id(app)
    latest = page.locator("#tutor-latest")
    latest.get_by_test_id("tutor-answer").get_by_test_id("tutor-cite").nth(1).click()  # the page's own note
    expect(page).to_have_url(re.compile(rf"#block-{note_id}$"))
    block = page.locator(f"#block-{note_id}")
    expect(block).to_be_in_viewport()
    assert page.evaluate("document.querySelector(':target').id") == f"block-{note_id}"
    assert block.evaluate("element => getComputedStyle(element).outlineStyle") == "solid"


def test_the_tutor_answers_on_the_demo_page_and_its_citations_lead_to_the_passages(page, demo_server, fake):
    app, base_url = demo_server
    page.set_viewport_size(DESKTOP)
    ask_and_follow_the_citations(
        page, app, base_url, fake,
        question="What does the plasma membrane do?",
        text="It decides what enters and leaves the cell [2]. Your notes say the same [1]. Invented [9].",
        pending="Reading your page",
    )  # fmt: skip
    assert page.evaluate("document.documentElement.scrollWidth") <= DESKTOP["width"]
    assert page.console_errors == []


@pytest.mark.console_errors_expected("status of 503 (SERVICE UNAVAILABLE)")
def test_a_refusal_keeps_the_question_typed(page, demo_server, fake):
    app, base_url = demo_server
    signed_in_as(page, base_url, app.config["DEMO_EMAIL"], app.config["DEMO_PASSWORD"])
    page.goto(f"{base_url}/notebook")
    page.get_by_role("link", name="Cells", exact=True).first.click()
    tutor = page.get_by_test_id("tutor")
    fake.script("mistral", Reply.fails(500, first_byte_delay=1))
    tutor.get_by_test_id("tutor-question").fill("Why is the membrane a bilayer?")
    tutor.get_by_role("button", name="Ask").click()
    expect(tutor.get_by_test_id("tutor-asking")).to_have_text("Why is the membrane a bilayer?")
    refusal = tutor.get_by_test_id("tutor-refusal")
    expect(refusal).to_have_text("The notebook's AI couldn't reach any AI model right now. Try again in a minute.")
    expect(tutor.get_by_test_id("tutor-question")).to_have_value("Why is the membrane a bilayer?")
    expect(tutor.get_by_test_id("tutor-asking")).to_have_count(0)
    # Nothing kept: whichever questions this module asked before (if any ran on this worker).
    expect(tutor.get_by_test_id("tutor-exchange").filter(has_text="Why is the membrane a bilayer?")).to_have_count(0)
    assert [error for error in page.console_errors if "503" not in error] == []


@pytest.mark.console_errors_expected("status of 502 (BAD GATEWAY)")
def test_an_answer_that_cannot_be_used_is_said_as_such_and_keeps_the_question(page, demo_server, fake):
    app, base_url = demo_server
    signed_in_as(page, base_url, app.config["DEMO_EMAIL"], app.config["DEMO_PASSWORD"])
    page.goto(f"{base_url}/notebook")
    page.get_by_role("link", name="Cells", exact=True).first.click()
    tutor = page.get_by_test_id("tutor")
    fake.script("mistral", Reply.says("A bilayer, because lipids."), Reply.says('{"answer": 2}'))
    tutor.get_by_test_id("tutor-question").fill("Why two layers?")
    tutor.get_by_role("button", name="Ask").click()
    refusal = tutor.get_by_test_id("tutor-refusal")
    expect(refusal).to_have_text("The notebook's AI answered, but its answer could not be used. Try again.")
    expect(tutor.get_by_test_id("tutor-question")).to_have_value("Why two layers?")
    assert page.console_errors == ["Failed to load resource: the server responded with a status of 502 (BAD GATEWAY)"]


def test_on_a_phone_in_portuguese(browser, demo_server, fake):
    app, base_url = demo_server
    with app.app_context():
        configuration.update(the_demo(app), language="pt")
        db.session.remove()
    context = browser.new_context(viewport=PHONE, locale="pt-BR", timezone_id="Europe/Lisbon")
    page = context.new_page()
    errors = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    try:
        ask_and_follow_the_citations(
            page, app, base_url, fake,
            question="O que a membrana plasmática faz?",
            text="Ela decide o que entra e o que sai da célula [2]. Suas notas dizem o mesmo [1, 9].",
            pending="Lendo sua página",
        )  # fmt: skip
        expect(page.get_by_role("heading", name="Pergunte ao tutor")).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        assert errors == []
    finally:
        context.close()
