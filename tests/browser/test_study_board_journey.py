"""The board of a study page in a real browser: concepts typed in place (a refusal keeps the text),
a status, an order, a connection, an edit and a removal, read as a list on a phone and in
Portuguese; and one answer of the assistant (the wire fake calls addStudyNode, then showDiagram)
adding a concept to the open page's board without a reload and drawing a diagram in the chat."""

import pytest
from playwright.sync_api import expect

from app import create_app
from app.extensions import db
from app.notebook import services as notebook
from app.profile import accounts, configuration
from tests.browser.conftest import mistral_at, serve
from tests.browser.conftest import sign_in as signed_in_as
from tests.fakes import FakeProviders, Reply
from tests.fakes.script import FakeCall

pytestmark = pytest.mark.browser

PASSWORD = "concepts lead to concepts"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture(scope="module")
def fake():
    with FakeProviders() as providers:
        yield providers


@pytest.fixture(scope="module")
def board_server(tmp_path_factory, fake):
    """A server with three students, each with the page "Cells" in the topic "Biology"."""
    database = tmp_path_factory.mktemp("board-e2e") / "board.sqlite3"
    env = mistral_at(fake, first_event_timeout=5)
    app = create_app("test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}", LLM_ENV=env)
    pages = {}
    with app.app_context():
        db.create_all()
        for email, language in (("lia@example.com", "en"), ("caio@example.com", "pt"), ("rita@example.com", "en")):
            user = accounts.register(name="Lia", email=email, password=PASSWORD, language=language,
                                     timezone_name="UTC")  # fmt: skip
            configuration.update(user, tutorial_done=True)
            pages[email] = str(notebook.create_page(user, notebook.create_topic(user, "Biology").id, "Cells").id)
    with serve(app) as base_url:
        yield base_url, pages


def open_page(page, server, email):
    base_url, pages = server
    signed_in_as(page, base_url, email, PASSWORD)
    page.goto(f"{base_url}/notebook/pages/{pages[email]}")
    return page.get_by_test_id("concept")


def add_concept(page, title):
    page.get_by_label("New concept").fill(title)
    page.get_by_label("New concept").press("Enter")
    expect(page.get_by_label("New concept")).to_have_value("")


@pytest.mark.console_errors_expected("status of 422 (UNPROCESSABLE ENTITY)", "status of 409 (CONFLICT)")
def test_a_small_board_is_built_in_place_and_reads_as_a_list_on_a_phone(page, board_server):
    page.set_viewport_size(DESKTOP)
    concepts = open_page(page, board_server, "lia@example.com")
    expect(page.get_by_test_id("board-empty")).to_be_visible()

    page.get_by_label("New concept").fill("x" * 201)
    page.get_by_label("Description (optional)").fill("Kept while refused")
    page.get_by_role("button", name="Add concept").click()
    expect(page.locator("#board-new .field-error")).to_have_text("Use at most 200 characters for a concept's title.")
    expect(page.get_by_label("Description (optional)")).to_have_value("Kept while refused")
    page.get_by_label("Description (optional)").fill("")

    for title in ("Cell", "Tissue", "Organ"):
        add_concept(page, title)
    expect(concepts).to_have_count(3)
    expect(page.locator("#toasts")).to_contain_text("Concept added to the board.")

    tissue = concepts.filter(has_text="Tissue")
    tissue.get_by_role("button", name="Learning").click()
    expect(tissue.get_by_test_id("concept-status")).to_have_text("Learning")
    expect(
        page.get_by_role("group", name="Status of “Tissue”").get_by_role("button", name="Learning")
    ).to_have_attribute("aria-pressed", "true")

    page.get_by_role("button", name="Move “Organ” up").click()
    expect(concepts.locator("h3")).to_have_text(["Cell", "Organ", "Tissue"])

    page.get_by_label("From", exact=True).select_option(label="Cell")
    page.get_by_label("leads to", exact=True).select_option(label="Tissue")
    page.get_by_role("button", name="Connect", exact=True).click()
    expect(concepts.filter(has_text="Cell").first.get_by_test_id("leads-to")).to_have_text("Tissue")
    page.get_by_label("From", exact=True).select_option(label="Cell")  # the same pair again
    page.get_by_label("leads to", exact=True).select_option(label="Tissue")
    page.get_by_role("button", name="Connect", exact=True).click()
    expect(page.locator("#toasts")).to_contain_text("“Cell” already leads to “Tissue”.")

    page.get_by_role("link", name="Edit “Organ”").click()
    dialog = page.get_by_role("dialog")
    dialog.get_by_label("Concept").fill("Organ system")
    dialog.get_by_label("Status").select_option("DONE")
    dialog.get_by_role("button", name="Save concept").click()
    expect(dialog).to_be_hidden()
    expect(concepts.locator("h3")).to_have_text(["Cell", "Organ system", "Tissue"])

    page.get_by_role("link", name="Remove “Tissue”…").click()
    expect(page.get_by_role("dialog")).to_contain_text("“Tissue” and its 1 connection leave the board of “Cells”.")
    page.get_by_role("dialog").get_by_role("button", name="Delete").click()
    expect(concepts.locator("h3")).to_have_text(["Cell", "Organ system"])
    expect(page.get_by_test_id("leads-to")).to_have_count(0)

    # The page's refreshes after the delete end before the reload (one cut short logs an error).
    page.wait_for_function("!document.querySelector('.htmx-request')")
    page.set_viewport_size(PHONE)
    page.reload()
    expect(concepts).to_have_count(2)
    page.wait_for_load_state("networkidle")
    scrolled = page.evaluate("document.documentElement.scrollWidth")
    assert scrolled <= PHONE["width"], f"the study page is {scrolled} px wide on a {PHONE['width']} px screen"
    # The browser logs the two refusals' statuses; nothing else went wrong.
    assert page.console_errors == [
        "Failed to load resource: the server responded with a status of 422 (UNPROCESSABLE ENTITY)",
        "Failed to load resource: the server responded with a status of 409 (CONFLICT)",
    ]


def test_the_board_is_keyboard_reachable_and_speaks_portuguese(page, board_server):
    page.set_viewport_size(PHONE)
    concepts = open_page(page, board_server, "caio@example.com")
    expect(page.get_by_text("Nenhum conceito ainda. Adicione o primeiro abaixo.")).to_be_visible()
    page.get_by_label("Novo conceito").focus()
    page.keyboard.type("Célula")
    page.keyboard.press("Enter")
    expect(concepts).to_have_count(1)
    expect(page.get_by_label("Novo conceito")).to_have_value("")
    page.get_by_label("Novo conceito").focus()
    page.keyboard.press("Tab")
    expect(page.get_by_label("Descrição (opcional)")).to_be_focused()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Shift+Tab")  # back up into the board: the last button of the concept
    expect(page.get_by_role("link", name="Remover “Célula”…")).to_be_focused()
    learning = page.get_by_role("group", name="Status de “Célula”").get_by_role("button", name="Aprendendo")
    learning.focus()
    page.keyboard.press("Enter")
    expect(learning).to_have_attribute("aria-pressed", "true")
    expect(learning).to_be_focused()  # the list came back and the keyboard stayed where it was
    for viewport in (PHONE, DESKTOP):
        page.set_viewport_size(viewport)
        page.reload()
        expect(concepts.get_by_test_id("concept-status")).to_have_text("Aprendendo")
        expect(page.get_by_role("group", name="Status de “Célula”")).to_be_visible()
        page.wait_for_load_state("networkidle")
        scrolled = page.evaluate("document.documentElement.scrollWidth")
        assert scrolled <= viewport["width"], f"{scrolled} px wide on a {viewport['width']} px screen"
    assert page.console_errors == []


def test_the_assistant_adds_a_concept_to_the_open_board_and_shows_a_diagram(page, board_server, fake):
    """Issue 12's second journey: one answer adds a node to the open page (it appears without a
    reload) and draws a diagram in the chat (saving nothing)."""
    concepts = open_page(page, board_server, "rita@example.com")
    page.evaluate("window.__stayed = true")  # survives only if nothing reloads the page
    expect(concepts).to_have_count(0)
    page.get_by_role("button", name="Assistant").click()
    composer = page.locator("#composer-input")
    expect(composer).to_be_focused()

    fake.reset()
    fake.script(
        "mistral",
        Reply.calls(FakeCall("addStudyNode", {"page": "Cells", "title": "Cell membrane", "status": "learning"})),
        Reply.calls(FakeCall("showDiagram", {"source": "flowchart LR\n  Membrane --> Cytoplasm --> Nucleus"})),
        Reply.says("Added **Cell membrane** to the board of Cells, and here is the way in."),
    )
    composer.fill("Add cell membrane to this page's board, I'm learning it")
    composer.press("Enter")

    expect(page.locator("a.tool-card")).to_contain_text("Added a concept to a study board")
    expect(concepts).to_have_count(1)
    expect(concepts.locator("h3")).to_have_text("Cell membrane")
    expect(concepts.get_by_test_id("concept-status")).to_have_text("Learning")
    answer = page.locator(".bubble-assistant").last
    expect(answer).to_contain_text("here is the way in")
    diagram = answer.locator("[data-mermaid]")
    expect(diagram).to_have_attribute("data-mermaid-state", "drawn", timeout=20_000)
    expect(diagram.locator("[data-mermaid-drawing] img")).to_be_visible()
    assert page.evaluate("window.__stayed") is True
    first_round = fake.requests("mistral")[0].body
    sent = {tool["function"]["name"] for tool in first_round["tools"]}
    assert {"getStudyBoard", "addStudyNode", "connectStudyNodes", "getStudyPlanForToday"} <= sent
    system = first_round["messages"][0]["content"]
    assert "Sources (pasted text, files) cannot be added or changed from the chat" in system
    assert page.console_errors == []
