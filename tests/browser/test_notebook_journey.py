"""The notebook in a real browser: a topic and a page created, a note written, a diagram that
Mermaid draws and one whose error shows beside its source, a block moved with the keyboard, a
flashcard reviewed; the pages fit a phone in English and Portuguese, with no console errors."""

import re

import pytest
from playwright.sync_api import expect

from app import create_app
from app.extensions import db
from app.profile import accounts, configuration
from tests.browser.conftest import serve
from tests.browser.conftest import sign_in as signed_in_as

pytestmark = pytest.mark.browser

PASSWORD = "pages full of notes"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture(scope="module")
def notebook_server(tmp_path_factory):
    database = tmp_path_factory.mktemp("notebook-e2e") / "notebook.sqlite3"
    app = create_app("test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}", RATELIMIT_STORAGE_URI="memory://")
    with app.app_context():
        db.create_all()
        for email, language in (("lia@example.com", "en"), ("teo@example.com", "pt")):
            user = accounts.register(name="Lia", email=email, password=PASSWORD, language=language, timezone_name="UTC")
            configuration.update(user, tutorial_done=True)
    with serve(app) as base_url:
        yield base_url


def fits(page, width):
    page.wait_for_load_state("networkidle")
    scrolled = page.evaluate("document.documentElement.scrollWidth")
    assert scrolled <= width, f"{page.url} is {scrolled} px wide on a {width} px screen"


@pytest.mark.console_errors_expected("status of 422 (UNPROCESSABLE ENTITY)")
def test_a_topic_a_page_a_note_two_diagrams_and_a_reviewed_card(page, notebook_server):
    page.set_viewport_size(DESKTOP)
    signed_in_as(page, notebook_server, "lia@example.com", PASSWORD)
    page.goto(f"{notebook_server}/notebook")
    page.get_by_label("New topic").fill("Biology")
    page.get_by_role("button", name="Add topic").click()
    topic = page.get_by_test_id("topic").filter(has_text="Biology")
    expect(topic).to_be_visible()
    topic.get_by_label("New page").fill("Cells")
    topic.get_by_role("button", name="Add page").click()
    topic.get_by_role("link", name="Cells").click()
    expect(page.get_by_role("heading", name="Cells")).to_be_visible()

    page.get_by_text("A note", exact=True).click()
    page.get_by_label("Note (Markdown)").fill("**Cells** are the unit of life.")
    page.get_by_role("button", name="Add note").click()
    note = page.get_by_role("article", name="Note, block 1")
    expect(note.locator("strong")).to_have_text("Cells")

    page.get_by_text("A diagram", exact=True).click()
    page.get_by_label("Diagram (Mermaid source)").fill("flowchart TD\n  Cell --> Nucleus")
    page.get_by_role("button", name="Add diagram").click()
    drawn = page.get_by_role("article", name="Diagram, block 2")
    expect(drawn.locator("[data-mermaid]")).to_have_attribute("data-mermaid-state", "drawn", timeout=20_000)
    expect(drawn.locator("[data-mermaid-drawing] img")).to_be_visible()

    page.get_by_label("Diagram (Mermaid source)").fill("flowchart TD\n  Cell --> --> ]]")
    page.get_by_role("button", name="Add diagram").click()
    broken = page.get_by_role("article", name="Diagram, block 3")
    expect(broken.locator("[data-mermaid]")).to_have_attribute("data-mermaid-state", "error", timeout=20_000)
    expect(broken.get_by_role("alert")).to_contain_text("Mermaid could not draw this diagram")
    expect(broken.locator("[data-mermaid-source]")).to_be_visible()

    page.get_by_label("Diagram (Mermaid source)").fill("Cell --> Nucleus")
    page.get_by_role("button", name="Add diagram").click()
    expect(page.get_by_test_id("add-diagram")).to_contain_text("Start the diagram with its type")
    expect(page.get_by_label("Diagram (Mermaid source)")).to_have_value("Cell --> Nucleus")

    broken.focus()
    page.keyboard.press("Alt+ArrowUp")
    moved = page.get_by_role("article", name="Diagram, block 2")
    expect(moved.locator("[data-mermaid]")).to_have_attribute("data-mermaid-state", "error", timeout=20_000)
    expect(moved).to_be_focused()

    note.get_by_role("link", name="Edit note 1").click()
    page.locator("#text").fill("*Cells* divide.")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("article", name="Note, block 1").locator("em")).to_have_text("Cells")

    page.get_by_text("A flashcard", exact=True).click()
    page.get_by_label("Front").fill("Smallest unit of life?")
    page.get_by_label("Back").fill("The cell")
    page.get_by_role("button", name="Add flashcard").click()
    expect(page.get_by_role("article", name="Flashcard, block 4")).to_contain_text("Smallest unit of life?")

    page.goto(f"{notebook_server}/notebook/review")
    card = page.get_by_test_id("review-card")
    expect(card).to_contain_text("Smallest unit of life?")
    card.get_by_text("Show the back").click()
    expect(card).to_contain_text("The cell")
    card.get_by_role("button", name="Good").click()
    expect(page.get_by_test_id("review-done")).to_be_visible()
    fits(page, DESKTOP["width"])
    # the one refusal asked for above (the diagram with no type), and nothing else
    assert page.console_errors == [
        "Failed to load resource: the server responded with a status of 422 (UNPROCESSABLE ENTITY)"
    ]


def test_the_notebook_fits_a_phone_in_portuguese(page, notebook_server):
    page.set_viewport_size(PHONE)
    signed_in_as(page, notebook_server, "teo@example.com", PASSWORD)
    page.goto(f"{notebook_server}/notebook")
    page.get_by_label("Novo tópico").fill("Biologia celular e molecular")
    page.get_by_role("button", name="Adicionar tópico").click()
    topic = page.get_by_test_id("topic").filter(has_text="Biologia")
    topic.get_by_label("Nova página").fill("Células")
    topic.get_by_role("button", name="Adicionar página").click()
    expect(topic.get_by_role("link", name="Células")).to_be_visible()
    fits(page, PHONE["width"])
    topic.get_by_role("link", name="Células").click()
    page.get_by_text("Um diagrama", exact=True).click()
    page.get_by_label("Diagrama (código Mermaid)").fill("flowchart LR\n  A[Membrana] --> B[Citoplasma] --> C[Núcleo]")
    page.get_by_role("button", name="Adicionar diagrama").click()
    diagram = page.locator("[data-mermaid]")
    expect(diagram).to_have_attribute("data-mermaid-state", "drawn", timeout=20_000)
    fits(page, PHONE["width"])
    page.goto(f"{notebook_server}/notebook/review")
    expect(page.get_by_test_id("review-done")).to_contain_text("Nenhum cartão")
    fits(page, PHONE["width"])
    assert page.console_errors == []
    expect(page).to_have_url(re.compile(r"/notebook/review$"))
