"""A newcomer's first hour in a real browser, on a desktop (1280 px) and a phone (390 px), in English
and in Portuguese: the welcome card, a toast after every create, edit and delete, a delete that
says up front why it cannot happen yet, a level-up celebrated, every page within the screen's
width, every area reachable from the phone's bottom bar, and not one console error (the
Content-Security-Policy refuses inline styles, so htmx must not inject its indicator style)."""

import re
from datetime import datetime
from zoneinfo import ZoneInfo

import pytest
from babel.dates import format_date
from playwright.sync_api import expect

from tests.browser.conftest import sign_up

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
PAGES = (
    "/dashboard",
    "/routines",
    "/habits",
    "/tasks",
    "/categories",
    "/goals",
    "/configuration",
    "/feedback",
    "/notebook",
    "/ideas",
    "/ideas/archive",
    "/mood",
    "/focus",
    "/habits/new",
    "/goals/new",
    "/routines/new",
)
SIGNED_OUT_PAGES = ("/login", "/register", "/forgot-password")
MORE_SHEET = {
    "en": {
        "Tasks": "/tasks",
        "Categories": "/categories",
        "Notebook": "/notebook",
        "Ideas": "/ideas",
        "Mood": "/mood",
        "Configuration": "/configuration",
        "Feedback": "/feedback",
    },
    "pt": {
        "Tarefas": "/tasks",
        "Categorias": "/categories",
        "Caderno": "/notebook",
        "Ideias": "/ideas",
        "Humor": "/mood",
        "Configurações": "/configuration",
        "Feedback": "/feedback",
    },
}
WIDGETS = (
    "dailyProgress",
    "levelProgress",
    "constance",
    "constanceHeatmap",
    "categoryBalance",
    "betterArea",
    "worstArea",
    "fastTips",
)
BOTTOM_BAR = {
    "en": {"Dashboard": "/dashboard", "Routines": "/routines", "Habits": "/habits", "Goals": "/goals"},
    "pt": {"Painel": "/dashboard", "Rotinas": "/routines", "Hábitos": "/habits", "Metas": "/goals"},
}


@pytest.fixture
def newcomer(browser):
    """A fresh browser context (its own cookies) with the console's errors collected."""
    contexts = []

    def open_context(locale):
        context = browser.new_context(viewport=DESKTOP, locale=locale, timezone_id="Europe/Lisbon")
        contexts.append(context)
        page = context.new_page()
        page.console_errors = []
        page.on("console", lambda message: message.type == "error" and page.console_errors.append(message.text))
        return page

    yield open_context
    for context in contexts:
        context.close()


def register(page, live_server, name):
    sign_up(page, live_server, name, "a first hour well spent")
    page.goto(f"{live_server}/dashboard")


def toast(page, text):
    """The confirmation, as a status message in the live region screen readers follow."""
    expect(page.locator("#toasts[aria-live=polite] [role=status]", has_text=text)).to_be_visible()


def assert_every_page_fits(page, live_server, paths):
    width = page.viewport_size["width"]
    for path in paths:
        page.goto(f"{live_server}{path}")
        page.wait_for_load_state("networkidle")  # widgets and the goals horizon load after the page
        scrolled = page.evaluate("document.documentElement.scrollWidth")
        assert scrolled <= width, f"{path} is {scrolled} px wide on a {width} px screen"


def reach_every_area_from_the_bottom_bar(page, live_server, language):
    page.goto(f"{live_server}/dashboard")
    bar = page.get_by_test_id("bottom-bar")
    expect(bar).to_be_visible()
    expect(page.locator(".sidebar")).to_be_hidden()
    cut = bar.locator(".bottom-link span").evaluate_all("spans => spans.filter(s => s.scrollWidth > s.clientWidth)")
    assert cut == [], "a bottom-bar label does not fit"
    for label, path in BOTTOM_BAR[language].items():
        bar.get_by_role("link", name=label, exact=True).click()
        expect(page).to_have_url(re.compile(re.escape(path) + "$"))
    for label, path in MORE_SHEET[language].items():
        bar.get_by_test_id("more-menu").click()
        bar.get_by_role("link", name=label).click()
        expect(page).to_have_url(re.compile(re.escape(path) + "$"))
    # The sheet closes on Escape, and the assistant opens above the bar without covering it.
    bar.get_by_test_id("more-menu").click()
    expect(bar.locator(".more-sheet")).to_be_visible()
    page.keyboard.press("Escape")
    expect(bar.locator(".more-sheet")).to_be_hidden()
    launcher = bar.locator("[data-agent-open]")
    launcher.click()
    expect(page.locator("#agent-panel")).to_be_visible()
    expect(launcher).to_have_attribute("aria-expanded", "true")
    launcher.click()
    expect(page.locator("#agent-panel")).to_be_hidden()


def finish_the_welcome(page):
    """ "Got it" loads the dashboard whole: one greeting, no card, the assistant's launcher."""
    page.get_by_test_id("finish-tour").click()
    expect(page.get_by_test_id("welcome")).to_have_count(0)
    expect(page.get_by_test_id("greeting")).to_have_count(1)
    expect(page.locator("[data-agent-open]:visible")).to_have_count(1)


def lay_out_all_widgets(page):
    """With all eight widgets, the wide dashboard uses its width: widgets beside today's card and
    in rows below it, not stacked in one narrow column."""
    page.evaluate(
        """async (ids) => {
            const body = new URLSearchParams();
            ids.forEach((id) => body.append("widgets", id));
            const token = document.querySelector('meta[name="csrf-token"]').content;
            await fetch("/configuration/widgets", {method: "POST", headers: {"X-CSRFToken": token}, body});
        }""",
        list(WIDGETS),
    )
    page.reload()
    expect(page.locator(".widget")).to_have_count(len(WIDGETS))
    boxes = [page.get_by_test_id(f"widget-{widget}").bounding_box() for widget in WIDGETS]
    today = page.get_by_test_id("today-card").bounding_box()
    assert len({round(box["x"]) for box in boxes}) >= 2, boxes
    assert any(box["y"] >= today["y"] + today["height"] for box in boxes)  # rows below today's card too
    assert page.evaluate("document.documentElement.scrollHeight") < 2000


@pytest.mark.console_errors_expected("status of 422 (UNPROCESSABLE ENTITY)")
def test_a_newcomers_first_hour_in_english(newcomer, live_server):
    page = newcomer("en-US")
    register(page, live_server, "Nia")
    finish_the_welcome(page)
    lay_out_all_widgets(page)
    dialog = page.locator("#dialog")

    # A category and a task that uses it; each write says it worked.
    page.goto(f"{live_server}/categories")
    page.get_by_role("link", name="Create category").click()
    dialog.get_by_label("Name").fill("Fitness")
    dialog.get_by_role("radio", name="Heart", exact=True).check()
    dialog.get_by_role("button", name="Save category").click()
    toast(page, "Category created.")

    page.goto(f"{live_server}/tasks")
    page.get_by_role("link", name="Create task").click()
    dialog.get_by_label("Name").fill("Book a physio")
    dialog.get_by_label("Fitness").check()
    dialog.get_by_role("button", name="Save task").click()
    toast(page, "Task created.")
    page.get_by_role("button", name="Edit Book a physio").click()
    dialog.get_by_label("Name").fill("Book the physio")
    dialog.get_by_role("button", name="Save task").click()
    toast(page, "Task saved.")

    # The category is in use: the dialog says where, and offers nothing the server would refuse.
    page.goto(f"{live_server}/categories")
    page.get_by_role("button", name="Delete Fitness").click()
    expect(dialog.get_by_role("heading", name="“Fitness” is still in use")).to_be_visible()
    expect(dialog.get_by_test_id("refusal")).to_contain_text("This category is used in: Book the physio")
    expect(dialog.get_by_role("button", name="Delete")).to_have_count(0)
    dialog.get_by_test_id("confirm-delete").get_by_role("button", name="Close").click()
    expect(dialog).to_be_hidden()

    page.goto(f"{live_server}/tasks")
    page.get_by_role("button", name="Delete Book the physio").click()
    expect(dialog).to_contain_text("“Book the physio” and its check history will be deleted.")
    dialog.get_by_role("button", name="Delete").click()
    toast(page, "Task deleted.")

    page.goto(f"{live_server}/categories")
    page.get_by_role("button", name="Delete Fitness").click()
    expect(dialog).to_contain_text("“Fitness” and its XP history will be deleted.")
    dialog.get_by_role("button", name="Delete").click()
    toast(page, "Category deleted.")

    # A goal reached and completed: its XP crosses a level, and the page celebrates it.
    page.goto(f"{live_server}/goals")
    page.get_by_role("link", name="Create goal").click()
    dialog.get_by_label("Name", exact=True).fill("First step")
    dialog.get_by_role("spinbutton", name="Target").fill("1")
    dialog.get_by_role("spinbutton", name="Current value").fill("1")
    dialog.get_by_role("button", name="Save goal").click()  # no unit yet: the dialog comes back refused
    expect(dialog.get_by_text("Enter a unit of 1 to 64 characters.")).to_be_visible()
    dialog.get_by_label("Unit").fill("step")
    dialog.get_by_role("button", name="Save goal").click()
    toast(page, "Goal created.")
    page.get_by_role("button", name="Complete", exact=True).click()
    celebration = page.get_by_test_id("celebration")
    expect(celebration.get_by_role("heading", name="Level up!")).to_be_visible()
    expect(celebration).to_contain_text(re.compile(r"You reached level \d+\. Keep going!"))
    celebration.get_by_role("button", name="Continue").click()
    expect(celebration).to_be_hidden()

    assert_every_page_fits(page, live_server, PAGES)
    page.set_viewport_size(PHONE)
    assert_every_page_fits(page, live_server, PAGES)
    reach_every_area_from_the_bottom_bar(page, live_server, "en")

    page.get_by_test_id("bottom-bar").get_by_test_id("more-menu").click()
    page.get_by_test_id("bottom-bar").get_by_role("button", name="Sign out").click()
    expect(page).to_have_url(re.compile(r"/login$"))
    assert_every_page_fits(page, live_server, SIGNED_OUT_PAGES)
    page.set_viewport_size(DESKTOP)
    assert_every_page_fits(page, live_server, SIGNED_OUT_PAGES)

    # The one line is Chromium noting the deliberate 422 of the refused goal; no policy violation.
    assert page.console_errors == [
        "Failed to load resource: the server responded with a status of 422 (UNPROCESSABLE ENTITY)"
    ]


def test_a_newcomers_first_hour_in_portuguese_on_a_phone(newcomer, live_server):
    page = newcomer("pt-BR")
    page.set_viewport_size(PHONE)
    register(page, live_server, "Rita")
    finish_the_welcome(page)

    # Dates read as Portuguese writes them: a capital first letter, nothing more.
    today = datetime.now(ZoneInfo("Europe/Lisbon")).date()
    written = format_date(today, "full", locale="pt")
    expect(page.locator(".dashboard-header")).to_contain_text(written[0].upper() + written[1:])

    # Plural words and the toast are Portuguese too.
    page.goto(f"{live_server}/categories")
    page.get_by_role("link", name="Criar categoria").click()
    dialog = page.locator("#dialog")
    dialog.get_by_label("Nome").fill("Saúde")
    dialog.get_by_role("radio", name="Coração", exact=True).check()
    dialog.get_by_role("button", name="Salvar categoria").click()
    toast(page, "Categoria criada.")

    reach_every_area_from_the_bottom_bar(page, live_server, "pt")
    assert_every_page_fits(page, live_server, PAGES)
    page.set_viewport_size(DESKTOP)
    assert_every_page_fits(page, live_server, PAGES)

    assert page.console_errors == []
