"""The dashboard in a real browser, every widget on: today's calendar shows a timed routine entry
and a study block and follows a check live; at 390 px the widgets stack, each whole on the
screen, nothing wider than it; at 1280 the sidebar's Assistant looks like its neighbours until
its panel opens; figures are in the page's face with tabular numerals. Light and dark, English
and Portuguese."""

import itertools
import re

import pytest
from playwright.sync_api import expect

from app import create_app
from app.extensions import db
from app.profile import accounts, configuration, widgets
from app.routines import schedules, today
from app.routines import services as routines
from app.study_cycles import services as study_cycles
from tests.browser.conftest import serve
from tests.browser.conftest import sign_in as signed_in_as
from tests.builders import a_habit, a_study_cycle

pytestmark = pytest.mark.browser

PASSWORD = "a day laid out in time"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
DONE = re.compile(r"(^|\s)is-done(\s|$)")


@pytest.fixture(scope="module")
def day_server(tmp_path_factory):
    """Two accounts (English, Portuguese) with every widget on, a routine every day whose morning
    section runs 07:00–08:00 and holds "Stretch", and a study cycle starting at 18:00 today."""
    database = tmp_path_factory.mktemp("day-e2e") / "day.sqlite3"
    app = create_app("test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}", RATELIMIT_STORAGE_URI="memory://")
    with app.app_context():
        db.create_all()
        for email, language in (("lia@example.com", "en"), ("ines@example.com", "pt")):
            user = accounts.register(name="Lia", email=email, password=PASSWORD, timezone_name="Europe/Lisbon")
            configuration.update(user, tutorial_done=True, language=language, widgets=list(widgets.CATALOGUE))
            morning = {"name": "Morning", "starts_at": "07:00", "ends_at": "08:00",
                       "entries": [{"habit_id": a_habit(user, "Stretch").id}]}  # fmt: skip
            routine = routines.create_timed(user, "Weekdays", "sun", [morning])
            schedules.set_days(user, routine.id, list(range(7)))
            cycle = a_study_cycle(user)["study_cycle"]
            week = study_cycles.configuration_of(cycle)
            week["days"] = {today.local_today(user)[1].weekday(): {"minutes": 40, "starts_at": "18:00"}}
            study_cycles.save_cycle(user, cycle.id, week)
    with serve(app) as base_url:
        yield base_url


def fits(page):
    return page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


def test_today_s_calendar_shows_the_timed_entry_and_the_study_block_and_follows_a_check(page, day_server):
    page.set_viewport_size(DESKTOP)
    signed_in_as(page, day_server, "lia@example.com", PASSWORD)
    calendar = page.get_by_test_id("widget-calendarToday")
    expect(calendar.get_by_role("heading", name="Today's calendar")).to_be_visible()
    slots = calendar.get_by_test_id("timeline-slot")
    stretch = slots.filter(has_text="Stretch")
    expect(stretch).to_contain_text("07:00")
    expect(stretch).to_contain_text("Morning")
    expect(slots.filter(has_text="Cells").first).to_contain_text("Study · Exams")
    expect(calendar.get_by_test_id("timeline-now")).to_have_count(1)
    expect(stretch).not_to_have_class(DONE)

    page.get_by_test_id("today-card").get_by_role("button", name="Check Stretch").click()
    expect(stretch).to_have_class(DONE)
    expect(stretch).to_contain_text("Done")
    assert page.console_errors == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_on_a_phone_the_widgets_stack_each_whole_on_the_screen(page, day_server, scheme):
    page.emulate_media(color_scheme=scheme)
    page.set_viewport_size(PHONE)
    signed_in_as(page, day_server, "lia@example.com", PASSWORD)
    page.wait_for_load_state("networkidle")
    assert fits(page)
    cards = page.locator(".widget-rail > .widget")
    expect(cards).to_have_count(len(widgets.CATALOGUE))
    boxes = [cards.nth(index).bounding_box() for index in range(cards.count())]
    for box in boxes:
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], f"a widget is cut: {box}"
    assert len({round(box["x"]) for box in boxes}) == 1, "the widgets are not one column"
    assert all(above["y"] + above["height"] <= below["y"] for above, below in itertools.pairwise(boxes))
    rail = page.locator(".widget-rail")
    assert rail.evaluate("rail => rail.scrollWidth <= rail.clientWidth")
    timeline = page.get_by_test_id("calendar-timeline")
    assert timeline.evaluate("list => list.scrollWidth <= list.clientWidth")
    assert page.console_errors == []


def test_the_portuguese_calendar_on_a_phone(page, day_server):
    page.set_viewport_size(PHONE)
    signed_in_as(page, day_server, "ines@example.com", PASSWORD)
    calendar = page.get_by_test_id("widget-calendarToday")
    expect(calendar.get_by_role("heading", name="Agenda de hoje")).to_be_visible()
    expect(calendar.get_by_test_id("timeline-now")).to_contain_text("Agora")
    expect(calendar.get_by_test_id("timeline-slot").filter(has_text="Cells").first).to_contain_text("Estudo · Exams")
    assert fits(page)
    assert page.console_errors == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_at_1280_the_assistant_looks_active_only_while_its_panel_is_open(page, day_server, scheme):
    page.emulate_media(color_scheme=scheme)
    page.set_viewport_size(DESKTOP)
    signed_in_as(page, day_server, "lia@example.com", PASSWORD)
    sidebar = page.locator(".sidebar")
    active = sidebar.locator(".nav-link.is-active")
    assistant = sidebar.get_by_role("button", name="Assistant")
    other = sidebar.get_by_role("link", name="Habits")

    def background(locator):
        return locator.evaluate("element => getComputedStyle(element).backgroundColor")

    assert background(assistant) == background(other) != background(active)
    assistant.click()
    expect(assistant).to_have_attribute("aria-expanded", "true")
    page.mouse.move(900, 600)  # away from the button: its look is its state's, not the pointer's
    expect(assistant).to_have_css("background-color", background(active))


def test_figures_use_the_page_s_face_with_tabular_numerals(page, day_server):
    page.set_viewport_size(DESKTOP)
    signed_in_as(page, day_server, "lia@example.com", PASSWORD)
    body_face = page.evaluate("getComputedStyle(document.body).fontFamily")
    for testid in ("user-level", "user-xp", "constance-days", "today-count"):
        figure = page.get_by_test_id(testid).first
        assert figure.evaluate("element => getComputedStyle(element).fontFamily") == body_face, testid
        assert "tabular-nums" in figure.evaluate("element => getComputedStyle(element).fontVariantNumeric"), testid
    page.goto(f"{day_server}/routines")  # the routines' levels and XP too: one face across the app
    faces = page.locator(".mono, .chip-xp, .chip-time").evaluate_all(
        "elements => elements.map(element => getComputedStyle(element).fontFamily)"
    )
    assert faces and set(faces) == {body_face}
