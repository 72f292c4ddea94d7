"""The Ideas board on a phone (390 × 844) and a computer (1280 × 800): a phone shows the notes in
reading order without a row of free places, adds a note to the first free place or to one the
person picks, and offers colour swatches a thumb can hit; every action says one human thing, and
a newer toast replaces the last instead of stacking under it."""

import re

import pytest
from playwright.sync_api import expect

from app import create_app
from app.extensions import db
from app.ideas import services as ideas
from app.ideas.models import CELLS
from app.profile import accounts, configuration
from tests.browser.conftest import serve
from tests.browser.conftest import sign_in as signed_in_as

pytestmark = pytest.mark.browser

PASSWORD = "eight notes on a phone"
PHONE = {"width": 390, "height": 844}
COMPUTER = {"width": 1280, "height": 800}
COLOURS = ("yellow", "pink", "green", "blue", "purple", "orange", "yellow", "pink")
USERS = ("board", "adds", "picker", "swatches", "toasts", "targets")


@pytest.fixture(scope="module")
def ideas_server(tmp_path_factory):
    """Six people, each with eight notes in the first eight places (rows 1 and 2)."""
    database = tmp_path_factory.mktemp("ideas-phone") / "ideas.sqlite3"
    app = create_app("test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}", RATELIMIT_STORAGE_URI="memory://")
    with app.app_context():
        db.create_all()
        for name in USERS:
            user = accounts.register(name="Iris", email=f"{name}@example.com", password=PASSWORD, timezone_name="UTC")
            configuration.update(user, tutorial_done=True)
            for number, colour in enumerate(COLOURS, start=1):
                ideas.create(user, f"Thought number {number}, worth keeping", colour)
    with serve(app) as base_url:
        yield base_url


def open_board(page, base_url, who, screen):
    page.set_viewport_size(screen)
    signed_in_as(page, base_url, f"{who}@example.com", PASSWORD)
    page.goto(f"{base_url}/ideas")
    page.wait_for_load_state("networkidle")


def shown_cells(page):
    return page.evaluate("[...document.querySelectorAll('.idea-cell')].filter(cell => cell.offsetParent).length")


def test_a_phone_shows_the_eight_notes_and_no_rows_of_free_places(page, ideas_server):
    open_board(page, ideas_server, "board", PHONE)
    expect(page.get_by_test_id("note")).to_have_count(8)
    assert shown_cells(page) == 8  # 40 free places are kept, not drawn
    board = page.get_by_test_id("idea-board").bounding_box()
    assert board["height"] < 700, f"8 notes make a board {board['height']} px tall on a phone"
    height = page.evaluate("document.documentElement.scrollHeight")
    assert height < 1500, f"/ideas with 8 notes is {height} px tall on a phone"
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    # Each note still has its place: the last is at row 2, column 2.
    expect(page.get_by_role("article", name="Note at row 2, column 2")).to_contain_text("Thought number 8")

    page.set_viewport_size(COMPUTER)
    expect(page.locator(".idea-cell").nth(CELLS - 1)).to_be_visible()
    assert shown_cells(page) == CELLS  # the computer keeps the whole 6 × 8 grid to drop onto
    assert page.console_errors == []


def test_a_phone_turned_sideways_draws_no_free_place_either(browser, ideas_server):
    """844 px wide, but a finger cannot drag a note onto a free place: a touch screen up to a
    tablet's width lists the notes as a phone does."""
    context = browser.new_context(viewport={"width": 844, "height": 390}, has_touch=True, locale="en-US")
    page = context.new_page()
    try:
        signed_in_as(page, ideas_server, "board@example.com", PASSWORD)
        page.goto(f"{ideas_server}/ideas")
        expect(page.get_by_test_id("note")).to_have_count(8)
        assert shown_cells(page) == 8
        assert page.evaluate("document.documentElement.scrollWidth") <= 844
    finally:
        context.close()


def test_a_note_added_on_a_phone_goes_to_the_first_free_place_or_the_one_picked(page, ideas_server):
    open_board(page, ideas_server, "adds", PHONE)
    page.get_by_label("New note").fill("Call the bank about the card")
    add = page.get_by_role("button", name="Add note")
    assert add.bounding_box()["height"] >= 44
    add.click()
    expect(page.get_by_role("article", name="Note at row 2, column 3")).to_contain_text("Call the bank")

    page.get_by_label("New note").fill("Plan the trip to Porto")
    place = page.get_by_label("Place")
    expect(place.locator("option", has_text="Row 2, column 3")).to_have_count(0)  # just taken
    place.select_option(label="Row 5, column 4")
    page.get_by_role("button", name="Add note").click()
    expect(page.get_by_role("article", name="Note at row 5, column 4")).to_contain_text("Plan the trip to Porto")
    expect(page.get_by_label("Place")).to_have_value("")  # the next note goes to the first free place again
    expect(page.get_by_test_id("note")).to_have_count(10)
    assert shown_cells(page) == 10
    assert page.console_errors == []


def test_the_place_picker_follows_the_board_and_keeps_a_free_choice(page, ideas_server):
    open_board(page, ideas_server, "picker", PHONE)
    place = page.get_by_label("Place")
    expect(place.locator("option", has_text="Row 1, column 1")).to_have_count(0)
    place.select_option(label="Row 4, column 6")
    first = page.get_by_role("article", name="Note at row 1, column 1")
    first.get_by_label("More for the note at row 1, column 1").click()
    first.get_by_role("button", name="Archive").click()
    expect(place.locator("option", has_text="Row 1, column 1")).to_have_count(1)  # freed by the archive
    expect(place).to_have_value("23")  # row 4, column 6: still chosen, still free
    page.get_by_label("New note").fill("Back to the start")
    page.get_by_role("button", name="Add note").click()
    expect(page.get_by_role("article", name="Note at row 4, column 6")).to_contain_text("Back to the start")
    assert page.console_errors == []


def swatch_sizes(locator):
    return [(round(box["width"]), round(box["height"])) for box in (swatch.bounding_box() for swatch in locator.all())]


@pytest.mark.parametrize(("screen", "least"), [(PHONE, 44), (COMPUTER, 24)])
def test_colour_swatches_are_44_px_on_a_phone_and_never_under_24(page, ideas_server, screen, least):
    open_board(page, ideas_server, "swatches", screen)
    in_the_form = swatch_sizes(page.get_by_test_id("new-note").locator(".idea-swatch"))
    note = page.get_by_role("article", name="Note at row 1, column 1")
    note.get_by_label("More for the note at row 1, column 1").click()
    in_the_menu = swatch_sizes(note.locator(".idea-menu-body .idea-swatch"))
    assert len(in_the_form) == len(in_the_menu) == 6
    assert all(min(size) >= least for size in in_the_form + in_the_menu), (in_the_form, in_the_menu)
    menu = note.locator(".idea-menu-body").bounding_box()
    assert menu["x"] >= 0 and menu["x"] + menu["width"] <= screen["width"]  # the menu stays on the screen
    assert page.console_errors == []


def test_each_action_says_one_human_thing_and_replaces_the_last_toast(page, ideas_server):
    open_board(page, ideas_server, "toasts", PHONE)
    toasts = page.locator("#toasts .toast")

    def said(text):
        expect(toasts).to_have_count(1)
        expect(toasts).to_have_text(text)

    page.get_by_label("New note").fill("Buy a birthday present for Rui")
    page.get_by_role("button", name="Add note").click()
    said("Note added to the board.")
    expect(page.get_by_test_id("note")).to_have_count(9)  # the board has redrawn: the next menu is its own

    first = page.get_by_role("article", name="Note at row 1, column 1")
    first.get_by_label("More for the note at row 1, column 1").click()
    first.get_by_role("button", name="Green").click()
    said("Colour changed.")
    expect(page.get_by_role("article", name="Note at row 1, column 1")).to_have_class(re.compile("idea-green"))

    first = page.get_by_role("article", name="Note at row 1, column 1")
    first.get_by_label("More for the note at row 1, column 1").click()
    first.get_by_test_id("move-right").click()
    said("“Thought number 1, worth keeping” moved to row 1, column 2.")

    moved = page.get_by_role("article", name="Note at row 1, column 2")
    expect(moved).to_contain_text("Thought number 1")
    moved.get_by_label("More for the note at row 1, column 2").click()
    moved.get_by_role("button", name="Archive").click()
    said("Note archived.")
    expect(page.get_by_test_id("archive-link")).to_contain_text("Archive (1 note)")
    assert not page.get_by_text(re.compile(r"^Note at row")).count()
    assert page.console_errors == []


PAGES = ("/ideas", "/ideas/archive", "/mood", "/privacy", "/configuration", "/feedback")
TAP_TARGETS = """(root) => {
  const shown = (e) => e.offsetParent && getComputedStyle(e).visibility !== 'hidden';
  const box = (e) => e.getBoundingClientRect();
  const name = (e) => (e.getAttribute('aria-label') || e.textContent || e.name || '').trim().slice(0, 40);
  // A radio or checkbox inside its label is hit through the label: the label is the target.
  const target = (e) => (e.matches('input[type=radio], input[type=checkbox]') && e.closest('label')) || e;
  const kinds = ['a', 'button', 'summary', 'select', 'input:not([type=hidden])', 'textarea'];
  const targets = kinds.map((kind) => `${root} ${kind}`);
  const small = [...document.querySelectorAll(targets.join(', '))].filter(shown).map(target)
    .filter((e) => box(e).width < 24 || box(e).height < 24)
    .map((e) => [name(e), Math.round(box(e).width), Math.round(box(e).height)]);
  const primary = [...document.querySelectorAll(`${root} .button-primary`)].filter(shown)
    .filter((e) => box(e).height < 44).map((e) => [name(e), Math.round(box(e).height)]);
  return {small, primary};
}"""


@pytest.mark.parametrize("path", PAGES)
def test_every_tap_target_on_a_phone_is_24_px_and_each_primary_action_44(page, ideas_server, path):
    open_board(page, ideas_server, "targets", PHONE)
    page.goto(f"{ideas_server}{path}")
    page.wait_for_load_state("networkidle")
    if path == "/ideas":  # the note's menu, open
        page.get_by_label("More for the note at row 1, column 1").click()
    found = page.evaluate(TAP_TARGETS, "main")
    assert found["small"] == [], f"{path}: targets under 24 px at 390: {found['small']}"
    assert found["primary"] == [], f"{path}: primary actions under 44 px at 390: {found['primary']}"
    assert page.console_errors == []


@pytest.mark.parametrize("path", ["/login", "/register", "/forgot-password"])
def test_the_signed_out_pages_tap_targets_are_24_px_and_their_primary_action_44(page, ideas_server, path):
    page.set_viewport_size(PHONE)
    page.goto(f"{ideas_server}{path}")
    found = page.evaluate(TAP_TARGETS, "body")
    assert found == {"small": [], "primary": []}, f"{path} at 390: {found}"
    assert page.console_errors == []
