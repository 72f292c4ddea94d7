"""The notebook and the study cycles on a phone (390 × 844) and a wide screen (1280 × 800): a study
page's sections are one tap away from anywhere on it, every control is a target a finger can hit
(24 px at least, 44 px for a phone's main actions), a small diagram is drawn at its own size, a
flashcard's next review is written as the other pages write dates, in English and Portuguese, and a
cycle's queue speaks of blocks a student can count."""

from datetime import date

import pytest
from playwright.sync_api import expect

from app import create_app
from app.extensions import db
from app.notebook import boards, sources
from app.notebook import services as notebook
from app.profile import accounts, configuration
from app.study_cycles import services as study_cycles
from tests.browser.conftest import serve
from tests.browser.conftest import sign_in as signed_in_as

pytestmark = pytest.mark.browser

PASSWORD = "pages a thumb can reach"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
SECTIONS = ["page-blocks", "new-block", "board", "sources", "tutor", "studio"]
NEXT_REVIEW = date(2027, 3, 9)

# Every visible control in the page's main column smaller than `least` px either way, by its box;
# a link inside a sentence is exempt (WCAG 2.5.8's inline exception), and a checkbox or radio
# inside its label is measured by the label (the whole label is the target).
SMALL_TARGETS = """(least) => {
  const kinds = ["a[href]", "button", "summary", "input:not([type=hidden])", "select", "textarea"];
  const controls = document.querySelectorAll(
    ["main", "dialog[open]"].flatMap((within) => kinds.map((kind) => `${within} ${kind}`)).join(", "));
  const small = [];
  for (const control of controls) {
    const shown = control.getBoundingClientRect();
    if (!shown.width || !shown.height || getComputedStyle(control).visibility === "hidden") continue;
    const target = control.matches("input[type=checkbox], input[type=radio]") && control.closest("label") || control;
    const box = target.getBoundingClientRect();
    if (control.matches("a") && control.closest("p, li, blockquote, td") && !control.matches(".button, .icon-button")
        && control.closest("p, li, blockquote, td").textContent.trim() !== control.textContent.trim()) continue;
    if (box.width < least || box.height < least) {
      const name = (control.textContent || control.getAttribute("aria-label") || control.name || "").trim();
      const size = `${Math.round(box.width)}×${Math.round(box.height)}`;
      small.push(`${control.tagName.toLowerCase()} "${name.slice(0, 40)}" ${size}`);
    }
  }
  return small;
}"""


@pytest.fixture(scope="module")
def study_server(tmp_path_factory):
    """Ana (English) and Bia (Portuguese), each with a page of Cells holding a note, a three-node
    flowchart, two flashcards (one next reviewed on 9 March 2027, one due today), two concepts and
    a source; and a cycle of an hour a day of Cells alone in blocks of 30 minutes, 10 minutes of it
    studied."""
    database = tmp_path_factory.mktemp("notebook-phone") / "phone.sqlite3"
    app = create_app("test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}", RATELIMIT_STORAGE_URI="memory://")
    urls = {}
    with app.app_context():
        db.create_all()
        for email, language in (("ana@example.com", "en"), ("bia@example.com", "pt")):
            user = accounts.register(name="Ana", email=email, password=PASSWORD, language=language, timezone_name="UTC")
            configuration.update(user, tutorial_done=True)
            topic = notebook.create_topic(user, "Biology")
            cells = notebook.create_page(user, topic.id, "Cells")
            notebook.create_page(user, topic.id, "Mitosis", parent_id=cells.id)
            notebook.add_note(user, cells.id, "**Cells** are the unit of life.\n\nEvery living thing is made of them.")
            notebook.add_diagram(user, cells.id, "flowchart TD\n  Cell --> Nucleus --> DNA")
            card = notebook.add_card(user, cells.id, "What holds the DNA?", "The nucleus")
            card.due_on = NEXT_REVIEW
            notebook.add_card(user, cells.id, "What keeps the cell together?", "The membrane")  # due today
            boards.add_node(user, cells.id, "Membrane")
            boards.add_node(user, cells.id, "Organelles")
            sources.paste(user, cells.id, "Cell biology\n\nThe membrane keeps the cell together.")
            week = {"name": "Exams", "days": {day: {"minutes": 60} for day in range(7)},
                    "subjects": [{"page": str(cells.id)}], "largest_block": 30}  # fmt: skip
            cycle = study_cycles.create_cycle(user, week)
            study_cycles.log_session(user, cells.id, 10)
            db.session.commit()
            urls[language] = {"page": f"/notebook/pages/{cells.id}", "cycle": f"/notebook/cycles/{cycle.id}"}
    with serve(app) as base_url:
        yield base_url, urls


def signed_in(page, study_server, language="en", viewport=PHONE):
    base_url, urls = study_server
    page.set_viewport_size(viewport)
    signed_in_as(page, base_url, {"en": "ana@example.com", "pt": "bia@example.com"}[language], PASSWORD)
    return base_url, urls[language]


def box(locator):
    return locator.bounding_box()


def test_a_study_page_sections_are_one_tap_away_on_a_phone(page, study_server):
    base_url, urls = signed_in(page, study_server)
    page.goto(base_url + urls["page"])
    bar = page.get_by_role("navigation", name="Sections of this page")
    links = bar.get_by_role("link")
    expect(links).to_have_text(["Content", "Add", "Board", "Sources", "Tutor", "Studio"])
    bottom_bar = box(page.get_by_test_id("bottom-bar"))
    assert page.evaluate("document.documentElement.scrollHeight") > 2 * PHONE["height"]  # a long page...
    for index, section in reversed(list(enumerate(SECTIONS))):
        # ...whose bar stays on screen, above the app's bottom bar, wherever the reader is.
        held = box(bar)
        assert held["y"] + held["height"] <= bottom_bar["y"] + 1 and held["y"] > PHONE["height"] / 2, held
        link = links.nth(index)
        reach = box(link)
        assert reach["height"] >= 44 and reach["x"] >= 0 and reach["x"] + reach["width"] <= PHONE["width"], section
        link.click()
        expect(link).to_have_attribute("aria-current", "true")
        top = page.evaluate(f"document.getElementById('{section}').getBoundingClientRect().top")
        assert 0 <= top < held["y"], (section, top)
        expect(page.locator(f"#{section}")).to_be_focused()
    # The keyboard goes the same way: a link followed moves the focus into its section.
    links.nth(3).focus()
    page.keyboard.press("Enter")
    expect(page.locator("#sources")).to_be_focused()
    # Typing, the phone's keyboard takes the bottom of the screen: the bar steps aside meanwhile.
    # (Once the source is indexed: its row's refreshes and the announcement at its end leave the
    # field alone, but on a loaded machine they still land while the test types.)
    expect(page.get_by_test_id("source").first).to_contain_text("searchable")
    search = page.get_by_label("Search this page's sources")
    search.focus()
    expect(search).to_be_focused()
    expect(bar).to_be_hidden()
    page.get_by_role("heading", name="Cells", level=1).click()
    expect(bar).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert page.console_errors == []


def test_the_section_bar_fits_a_phone_in_portuguese(page, study_server):
    base_url, urls = signed_in(page, study_server, "pt")
    page.goto(base_url + urls["page"])
    links = page.get_by_role("navigation", name="Seções desta página").get_by_role("link")
    expect(links).to_have_text(["Conteúdo", "Adicionar", "Quadro", "Fontes", "Tutor", "Estúdio"])
    for index in range(6):
        reach = box(links.nth(index))
        assert reach["x"] >= 0 and reach["x"] + reach["width"] <= PHONE["width"], reach
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_on_a_wide_screen_the_sections_are_a_row_that_stays_at_the_top(page, study_server):
    base_url, urls = signed_in(page, study_server, viewport=DESKTOP)
    page.goto(base_url + urls["page"])
    bar = page.get_by_role("navigation", name="Sections of this page")
    at_rest = box(bar)
    assert at_rest["height"] < 70 and at_rest["width"] > 800  # one row, across the column
    page.get_by_role("link", name="Studio").click()
    held = box(bar)
    assert abs(held["y"]) <= 1, held  # stuck along the top while the page scrolled under it
    heading = box(page.get_by_role("heading", name="Studio"))
    assert heading["y"] >= held["y"] + held["height"]  # not under the bar
    assert box(page.get_by_test_id("blocks"))["width"] > 800  # the column is as wide as before
    assert page.console_errors == []


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1280px"])
def test_every_control_of_the_notebook_and_the_cycles_is_a_target_a_finger_can_hit(page, study_server, viewport):
    base_url, urls = signed_in(page, study_server, viewport=viewport)
    paths = [urls["page"], "/notebook", "/notebook/review", "/notebook/cycles", urls["cycle"],
             "/notebook/cycles/new", "/notebook/cycles/sessions"]  # fmt: skip
    for path in paths:
        page.goto(base_url + path)
        page.wait_for_load_state("networkidle")
        for opened in page.locator("main details:not([open]) > summary").all():
            if opened.is_visible():
                opened.click()  # what the page holds folded counts too
        assert page.evaluate(SMALL_TARGETS, 24) == [], path
    if viewport is PHONE:
        # A phone's main actions: 44 px tall.
        page.goto(base_url + urls["page"])
        main = [page.get_by_text(name, exact=True) for name in ("A note", "A diagram", "A flashcard", "Show the back")]
        page.goto(base_url + urls["cycle"])
        page.get_by_text("Blocks 1 to 14 of 14").click()
        main.append(page.get_by_role("link", name="Edit block 1 of 14"))
        assert box(page.get_by_text("Blocks 1 to 14 of 14"))["height"] >= 44
        assert box(main[-1])["height"] >= 44
        main[-1].click()  # the block's dialog: its choices and buttons too
        expect(page.get_by_test_id("block-form")).to_be_visible()
        assert page.evaluate(SMALL_TARGETS, 24) == []
        for choice in ("When its minutes are studied", "When you reach a concept", "Save block"):
            assert box(page.get_by_test_id("block-form").get_by_text(choice))["height"] >= 44, choice
        page.goto(base_url + urls["page"])
        for control in main[:4]:
            assert box(control.first)["height"] >= 44, control
    assert page.console_errors == []


def test_a_three_node_flowchart_is_drawn_at_its_own_size(page, study_server):
    base_url, urls = signed_in(page, study_server, viewport=DESKTOP)
    page.goto(base_url + urls["page"])
    diagram = page.get_by_test_id("diagram")
    expect(diagram).to_have_attribute("data-mermaid-state", "drawn", timeout=20_000)
    picture = diagram.locator("[data-mermaid-drawing] img")
    drawn = box(picture)
    assert 100 < drawn["height"] < 400 and drawn["width"] < 400, drawn
    assert box(diagram)["height"] < 400
    page.set_viewport_size(PHONE)  # on a phone too: the column's width at most, the ratio kept
    narrow = box(picture)
    assert narrow["height"] < 400 and narrow["width"] <= box(diagram)["width"] + 1
    assert abs(narrow["width"] / narrow["height"] - drawn["width"] / drawn["height"]) < 0.05
    assert page.console_errors == []


@pytest.mark.parametrize(("language", "written"), [("en", "Next review: Mar 9, 2027"), ("pt", "9 de mar. de 2027")])
def test_a_flashcard_says_its_next_review_as_the_other_pages_write_dates(page, study_server, language, written):
    base_url, urls = signed_in(page, study_server, language)
    page.goto(base_url + urls["page"])
    due = page.get_by_test_id("card").first.locator(".study-card-due")
    expect(due).to_contain_text(written)
    expect(due).not_to_contain_text("2027-03-09")


def test_a_cycle_queue_reads_as_blocks_a_student_counts_and_each_is_edited_from_its_row(page, study_server):
    base_url, urls = signed_in(page, study_server)
    page.goto(base_url + urls["cycle"])
    runs = page.get_by_test_id("block-run")
    expect(runs).to_have_count(1)
    expect(runs.first).to_contain_text("Cells")
    expect(runs.first).to_contain_text("14 blocks of 30 min each, 0 done")
    expect(runs.first).to_contain_text("For the time set")
    queue = page.get_by_test_id("block-queue")
    expect(queue).not_to_contain_text("Time ·")
    expect(page.get_by_test_id("block").first).to_be_hidden()  # folded: one line, not fourteen
    expect(page.get_by_text("Block number")).to_have_count(0)

    page.get_by_text("Blocks 1 to 14 of 14").click()
    expect(page.get_by_test_id("block").nth(2)).to_contain_text("Block 3 of 14")
    expect(page.get_by_test_id("block").first).to_contain_text("Now: 10 of 30 min")
    page.get_by_role("link", name="Edit block 3 of 14").click()
    dialog = page.get_by_test_id("block-form")
    expect(page.get_by_role("heading", name="Block 3 of 14 · Cells")).to_be_visible()
    expect(dialog.get_by_role("spinbutton", name="Minutes")).to_have_value("30")
    dialog.get_by_label("When you reach a concept").check()
    dialog.get_by_label("Concept to reach").select_option(label="Mitosis")
    dialog.get_by_role("button", name="Save block").click()
    expect(page.locator("#toasts")).to_contain_text("Block 3 of 14 saved.")
    expect(runs).to_have_count(3)  # refreshed in place: blocks 1–2, block 3, blocks 4–14
    expect(runs.nth(1)).to_contain_text("Until you reach Mitosis")
    expect(runs.nth(2)).to_contain_text("11 blocks of 30 min each, 0 done")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert page.console_errors == []


def test_the_queue_speaks_portuguese(page, study_server):
    base_url, urls = signed_in(page, study_server, "pt", DESKTOP)
    page.goto(base_url + urls["cycle"])
    run = page.get_by_test_id("block-run").first
    expect(run).to_contain_text("14 blocos de 30 min cada, concluídos: 0")
    expect(run).to_contain_text("Pelo tempo definido")
    page.get_by_text("Blocos 1 a 14 de 14").click()
    expect(page.get_by_test_id("block").nth(2)).to_contain_text("Bloco 3 de 14")
    page.get_by_role("link", name="Editar o bloco 2 de 14").click()
    expect(page.get_by_role("heading", name="Bloco 2 de 14 · Cells")).to_be_visible()
    expect(page.get_by_text("O bloco termina", exact=True)).to_be_visible()
    assert page.console_errors == []
