"""Two pages a person may open straight from a link, at 390 × 844 and 1280 × 800: /privacy names
what the export holds in words of their language (never the file's keys), and /mood/month opened
directly (a bookmark, a new tab) is the whole styled mood page at that month, not a bare fragment."""

import re
from datetime import date, timedelta

import pytest
from playwright.sync_api import expect

from app import create_app
from app.extensions import db
from app.profile import accounts, configuration
from tests.browser.conftest import serve, sign_in

pytestmark = pytest.mark.browser

PASSWORD = "pages opened from a link"
SCREENS = {"phone": {"width": 390, "height": 844}, "computer": {"width": 1280, "height": 800}}
WORDS = {
    "en": {"sessions": "Study sessions", "mood": "Mood levels and your private journal"},
    "pt": {"sessions": "Sessões de estudo", "mood": "Níveis de humor e seu diário privado"},
}
KEYS = ("study_sessions", "xp_days", "entry_checks", "notebook_blocks")


@pytest.fixture(scope="module")
def pages_server(tmp_path_factory):
    """Lia reads English, Rita Portuguese; both are past the first-run tutorial."""
    database = tmp_path_factory.mktemp("links") / "links.sqlite3"
    app = create_app("test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}", RATELIMIT_STORAGE_URI="memory://")
    with app.app_context():
        db.create_all()
        for language in WORDS:
            user = accounts.register(
                name="Lia", email=f"{language}@example.com", password=PASSWORD, language=language, timezone_name="UTC"
            )
            configuration.update(user, tutorial_done=True)
    with serve(app) as base_url:
        yield base_url


@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("language", WORDS)
def test_privacy_names_the_export_s_sections_in_the_reader_s_language(page, pages_server, language, screen):
    page.set_viewport_size(SCREENS[screen])
    sign_in(page, pages_server, f"{language}@example.com", PASSWORD)
    page.goto(f"{pages_server}/privacy")
    sections = page.get_by_test_id("privacy-export-sections")
    expect(sections).to_be_visible()
    expect(sections.get_by_role("listitem").filter(has_text=WORDS[language]["sessions"])).to_have_count(1)
    expect(sections).to_contain_text(WORDS[language]["mood"])
    text = page.get_by_test_id("privacy-yours").inner_text()
    assert not [key for key in KEYS if key in text], text
    assert page.evaluate("document.documentElement.scrollWidth") <= SCREENS[screen]["width"]
    assert page.console_errors == []


@pytest.mark.parametrize("screen", SCREENS)
def test_the_month_opened_directly_is_the_whole_styled_mood_page(page, pages_server, screen):
    page.set_viewport_size(SCREENS[screen])
    sign_in(page, pages_server, "en@example.com", PASSWORD)
    last_month = (date.today().replace(day=1) - timedelta(days=1)).replace(day=1)
    page.goto(f"{pages_server}/mood/month?month={last_month:%Y-%m}")
    expect(page.get_by_role("heading", level=1, name="Mood")).to_be_visible()
    expect(page.get_by_test_id("mood-entry")).to_be_visible()
    month = page.get_by_test_id("mood-month")
    expect(month.get_by_role("heading", level=2)).to_have_text(f"{last_month:%B %Y}")
    # Styled: the month is a card on the app's surface, inside the shell's navigation.
    assert month.evaluate("e => getComputedStyle(e).borderRadius") not in ("", "0px")
    expect(page.locator("nav").first).to_be_attached()
    assert page.evaluate("document.documentElement.scrollWidth") <= SCREENS[screen]["width"]
    assert page.console_errors == []


def test_two_saves_in_a_row_leave_one_toast_not_two(page, pages_server):
    """The mood page's toast comes out of band with the form; a newer one replaces the older
    (static/js/app.js), as the "toast" events do on the Ideas board."""
    page.set_viewport_size(SCREENS["phone"])
    sign_in(page, pages_server, "en@example.com", PASSWORD)
    page.goto(f"{pages_server}/mood")
    levels = page.get_by_role("group", name="Your mood")
    levels.get_by_label("Okay").check()
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#toasts .toast")).to_have_text("Mood saved for today.")
    page.get_by_role("group", name="Your mood").get_by_label("Good").check()
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#mood-month a.is-today")).to_have_class(re.compile(r"mood-level-4"))
    expect(page.locator("#toasts .toast")).to_have_count(1)
    assert page.console_errors == []
