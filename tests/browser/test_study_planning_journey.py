"""The board's roadmap and "Explain this" in a real browser, over the wire fake: a roadmap drafted,
two of its concepts picked and added (they appear on the board without a reload, the rest of the
draft stays), a note explained with a citation that leads to its passage; at 1280 px and 390 px,
and in Portuguese with the keyboard."""

import json

import pytest
from playwright.sync_api import expect

from app import create_app
from app.extensions import db
from app.notebook import services as notebook
from app.profile import accounts, configuration
from tests.browser.conftest import mistral_at, serve
from tests.browser.conftest import sign_in as signed_in_as
from tests.fakes import FakeProviders, Reply

pytestmark = pytest.mark.browser

PASSWORD = "a roadmap of concepts"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
NOTE = "Mitochondria make most of the cell's ATP through respiration."
SECOND_NOTE = "Cells split the work between organelles."


def roadmap(*titles):
    concepts = [{"title": title, "description": f"What {title} is.", "leads_to": []} for title in titles]
    concepts[0]["leads_to"] = [titles[1]]
    return Reply.says(json.dumps({"concepts": concepts}))


@pytest.fixture(scope="module")
def fake():
    with FakeProviders() as providers:
        yield providers


@pytest.fixture(scope="module")
def planning_server(tmp_path_factory, fake):
    """A server with two students, each with the page "Cells" (two notes) in the topic "Biology"."""
    database = tmp_path_factory.mktemp("planning-e2e") / "planning.sqlite3"
    env = mistral_at(fake, first_event_timeout=5)
    app = create_app("test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}", LLM_ENV=env)
    pages = {}
    with app.app_context():
        db.create_all()
        for email, language in (("lia@example.com", "en"), ("caio@example.com", "pt")):
            user = accounts.register(name="Lia", email=email, password=PASSWORD, language=language,
                                     timezone_name="UTC")  # fmt: skip
            configuration.update(user, tutorial_done=True)
            page = notebook.create_page(user, notebook.create_topic(user, "Biology").id, "Cells")
            notebook.add_note(user, page.id, NOTE)
            notebook.add_note(user, page.id, SECOND_NOTE)
            pages[email] = str(page.id)
    with serve(app) as base_url:
        yield base_url, pages


def open_page(page, server, email):
    base_url, pages = server
    signed_in_as(page, base_url, email, PASSWORD)
    page.goto(f"{base_url}/notebook/pages/{pages[email]}")
    return page.get_by_test_id("concept")


def fits(page, viewport):
    page.set_viewport_size(viewport)
    page.wait_for_load_state("networkidle")
    scrolled = page.evaluate("document.documentElement.scrollWidth")
    assert scrolled <= viewport["width"], f"the study page is {scrolled} px wide on a {viewport['width']} px screen"


def test_a_drafted_roadmap_puts_the_two_concepts_picked_on_the_board_and_a_note_is_explained(
    page, planning_server, fake
):
    page.set_viewport_size(DESKTOP)
    concepts = open_page(page, planning_server, "lia@example.com")
    page.evaluate("window.__stayed = true")  # survives only if nothing reloads the page
    fake.reset()
    fake.script("mistral", roadmap("Organelles", "Mitochondria", "Ribosomes"))
    page.get_by_role("button", name="Draft a roadmap").click()
    suggestions = page.get_by_test_id("suggested-concept")
    expect(suggestions).to_have_count(3)
    expect(suggestions.first).to_contain_text("Leads to Mitochondria")
    assert "Mode: PLANNING" in json.dumps(fake.requests("mistral")[0].body)

    page.get_by_role("button", name="Select none").click()
    expect(page.get_by_role("checkbox", checked=True)).to_have_count(0)
    page.get_by_label("Organelles").check()
    page.get_by_label("Mitochondria").check()
    page.get_by_role("button", name="Add the selected concepts").click()
    expect(page.locator("#toasts")).to_contain_text("2 concepts added to the board.")
    expect(page.get_by_test_id("roadmap-added")).to_contain_text("1 connection drawn.")
    expect(concepts.locator("h3")).to_have_text(["Organelles", "Mitochondria"])
    expect(concepts.first.get_by_test_id("leads-to")).to_have_text("Mitochondria")
    expect(suggestions).to_have_count(1)  # what was not picked stays to add later
    expect(suggestions).to_contain_text("Ribosomes")

    fake.script("mistral", Reply.says(json.dumps({"explanation": "Organelles share the work [1]. Made up [7]."})))
    note = page.get_by_test_id("block").first
    note.get_by_role("button", name="Explain “Note 1”").click()
    explanation = note.get_by_test_id("explanation")
    expect(explanation).to_contain_text("Organelles share the work")
    expect(explanation).not_to_contain_text("[7]")
    explanation.locator("a.citation").click()
    expect(explanation.get_by_test_id("explanation-passage")).to_contain_text(SECOND_NOTE)
    assert page.evaluate("window.location.hash").endswith("-passage-1")

    # A write elsewhere (another tab, the assistant) redraws the blocks: the explanation being read stays.
    page.evaluate("document.querySelectorAll('[data-testid=block]').forEach((b) => { b.dataset.before = '1'; })")
    page.evaluate("htmx.trigger(document.body, 'domain:notebook')")
    expect(page.locator("[data-testid=block][data-before]")).to_have_count(0)  # the list was drawn again
    expect(page.get_by_test_id("block").first.get_by_test_id("explanation")).to_contain_text("Organelles share")

    for viewport in (PHONE, DESKTOP):
        fits(page, viewport)
    assert page.evaluate("window.__stayed") is True
    assert page.console_errors == []


@pytest.mark.console_errors_expected("status of 503 (SERVICE UNAVAILABLE)")
def test_the_roadmap_speaks_portuguese_and_works_from_the_keyboard_on_a_phone(page, planning_server, fake):
    page.set_viewport_size(PHONE)
    concepts = open_page(page, planning_server, "caio@example.com")
    fake.reset()
    fake.script("mistral", roadmap("Organelas", "Mitocôndrias", "Ribossomos"))
    draft = page.get_by_role("button", name="Sugerir um roteiro")
    draft.focus()
    page.keyboard.press("Enter")
    suggestions = page.get_by_test_id("suggested-concept")
    expect(suggestions).to_have_count(3)
    expect(page.get_by_role("checkbox", checked=True)).to_have_count(3)
    page.get_by_label("Ribossomos").focus()
    page.keyboard.press("Space")
    expect(page.get_by_label("Ribossomos")).not_to_be_checked()
    page.get_by_role("button", name="Adicionar os conceitos marcados").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#toasts")).to_contain_text("2 conceitos adicionados ao quadro.")
    expect(concepts.locator("h3")).to_have_text(["Organelas", "Mitocôndrias"])
    expect(page.get_by_test_id("roadmap-added")).to_contain_text("1 ligação criada.")
    fits(page, PHONE)

    fake.script("mistral", Reply.fails(500))  # no model answers: the board and the draft stay
    page.get_by_role("button", name="Sugerir de novo").click()
    expect(page.get_by_test_id("roadmap-error")).to_contain_text("A IA do caderno")
    expect(suggestions).to_have_count(1)
    expect(concepts).to_have_count(2)
    fits(page, DESKTOP)
    assert page.console_errors == [
        "Failed to load resource: the server responded with a status of 503 (SERVICE UNAVAILABLE)"
    ]
