"""Tap targets on the habits, goals, categories and routines pages (and their dialogs), on the
demo account: every visible control is at least 24 × 24 px (WCAG 2.2 AA, 2.5.8) and inside the
screen at 390 and 1280 px, each page's primary actions at least 44 px tall on a phone, and nothing
a person must read is cut: habit names wrap instead of ending in "…", and no word of the importance and difficulty
choices sits alone on a second line."""

import pytest
from playwright.sync_api import expect

from app import create_app
from app.extensions import db
from app.habits import services as habits
from app.profile import configuration
from app.profile.models import User
from tests.browser.conftest import serve, sign_in

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
LONG_NAME = "Drink a full glass of water before every single meal of the day"
PAGES = ("/habits", "/goals", "/categories", "/routines")
DIALOGS = (  # (page, what opens the dialog)
    ("/habits", '[hx-get$="/habits/new"]'),
    ("/habits", '.card-actions [hx-get$="/edit"]'),
    ("/goals", '[hx-get$="/goals/new"]'),
    ("/goals", "[data-testid=goal-counter]"),
    ("/categories", '[hx-get$="/categories/new"]'),
    ("/routines", '[hx-get$="/routines/new"]'),
    ("/routines", '#routine-list [hx-get$="/edit"]'),
    ("/routines", '#routine-list [hx-get$="/schedule"]'),
)
MINIMUM, PRIMARY = 24, 44

# Every control a finger can hit, drawn on the screen. A box or radio button hidden inside its
# label (segments, chips, icon tiles) is measured as its label, which is what takes the tap.
MEASURE = """(scope) => {
  const PRIMARY_ACTIONS = '.button-primary, .ring';  // a page's main buttons, and checking an entry of today
  const root = document.querySelector(scope);
  const selector = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], '
    + '[tabindex]:not([tabindex="-1"])';
  const seen = new Set();
  const found = [];
  for (const element of root.querySelectorAll(selector)) {
    let target = element;
    const style = getComputedStyle(element);
    if (element.matches('input[type=checkbox], input[type=radio]') && element.closest('label')
        && (style.opacity === '0' || element.getBoundingClientRect().width < 24)) {
      target = element.closest('label');
    }
    if (seen.has(target)) continue;
    seen.add(target);
    const box = target.getBoundingClientRect();
    const shown = getComputedStyle(target);
    if (box.width === 0 || box.height === 0 || shown.visibility === 'hidden') continue;
    // WCAG's inline exception: a link inside a sentence is sized by the sentence's line.
    if (target.matches('a') && shown.display === 'inline' && target.closest('p')) continue;
    const name = (target.getAttribute('aria-label') || target.innerText || target.value || target.name
                  || target.tagName).trim().slice(0, 40);
    found.push({name, tag: target.tagName, width: box.width, height: box.height,
                primary: target.matches(PRIMARY_ACTIONS), cut: box.left < -1 || box.right > innerWidth + 1});
  }
  return found;
}"""


@pytest.fixture(scope="module")
def demo_server(tmp_path_factory):
    """The demo account's full life, plus a habit with a long name and none without a category."""
    database = tmp_path_factory.mktemp("tap-targets") / "demo.sqlite3"
    app = create_app("test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}", RATELIMIT_STORAGE_URI="memory://")
    with app.app_context():
        db.create_all()
    assert app.test_cli_runner().invoke(args=["seed-demo"]).exit_code == 0
    with app.app_context():
        demo = db.session.scalar(db.select(User).where(User.email == app.config["DEMO_EMAIL"]))
        habits.create(demo, name=LONG_NAME, importance=5, difficulty=4)
        db.session.remove()
    with serve(app) as base_url:
        yield app, base_url


@pytest.fixture(params=[PHONE, DESKTOP], ids=["390px", "1280px"])
def screen(request, browser, demo_server):
    app, base_url = demo_server
    context = browser.new_context(viewport=request.param, locale="en-US", timezone_id="Europe/Lisbon")
    page = context.new_page()
    sign_in(page, base_url, app.config["DEMO_EMAIL"], app.config["DEMO_PASSWORD"])
    yield page, base_url
    context.close()


@pytest.fixture
def in_portuguese(demo_server):
    """The demo account reads Portuguese (its longer words) for one test, then English again."""
    app, _ = demo_server

    def speak(language):
        with app.app_context():
            demo = db.session.scalar(db.select(User).where(User.email == app.config["DEMO_EMAIL"]))
            configuration.update(demo, language=language)
            db.session.remove()

    speak("pt")
    yield
    speak("en")


def open_every_fold(page):
    """The cards' "More" and "Using in" folds open, so what they hold is measured too."""
    page.locator("main details:not([open]) > summary").evaluate_all("summaries => summaries.forEach(s => s.click())")


def too_small(controls, phone):
    """What is under 24 px either way, a primary action under 44 px tall on a phone, or a control
    cut by the screen's edge, as "TAG “name” width×height"."""
    small = [c for c in controls if c["width"] < MINIMUM - 0.5 or c["height"] < MINIMUM - 0.5 or c["cut"]]
    if phone:
        small += [c for c in controls if c["primary"] and c["height"] < PRIMARY - 0.5]
    return sorted({f"{c['tag']} “{c['name']}” {c['width']:.0f}×{c['height']:.0f}" for c in small})


@pytest.mark.parametrize("language", ["en", "pt"])
def test_every_control_on_the_pages_is_big_enough_to_tap(screen, request, language):
    if language == "pt":
        request.getfixturevalue("in_portuguese")
    page, base_url = screen
    phone = page.viewport_size["width"] < 500
    problems = {}
    for path in PAGES:
        page.goto(f"{base_url}{path}")
        page.wait_for_load_state("networkidle")
        open_every_fold(page)
        controls = page.evaluate(MEASURE, "main")
        assert len(controls) > 5, f"{path}: nothing measured"
        if small := too_small(controls, phone):
            problems[path] = small
    assert problems == {}


@pytest.mark.parametrize("language", ["en", "pt"])
def test_every_control_in_the_dialogs_is_big_enough_to_tap(screen, request, language):
    if language == "pt":
        request.getfixturevalue("in_portuguese")
    page, base_url = screen
    phone = page.viewport_size["width"] < 500
    problems = {}
    for path, opener in DIALOGS:
        page.goto(f"{base_url}{path}")
        page.wait_for_load_state("networkidle")
        page.locator(f"main {opener}").first.click()
        dialog = page.locator("#dialog")
        expect(dialog.locator("form").first).to_be_visible()
        dialog.locator("details:not([open]) > summary").evaluate_all("summaries => summaries.forEach(s => s.click())")
        if small := too_small(page.evaluate(MEASURE, "#dialog"), phone):
            problems[f"{path} {opener}"] = small
        page.keyboard.press("Escape")
        expect(dialog).to_be_hidden()
    assert problems == {}


def test_habit_names_are_never_cut(screen):
    page, base_url = screen
    page.goto(f"{base_url}/habits?q=glass")
    name = page.locator(".entity-card .entity-name", has_text=LONG_NAME)
    expect(name).to_be_visible()
    assert name.evaluate("n => n.scrollWidth <= n.clientWidth && n.scrollHeight <= n.clientHeight + 1")


@pytest.mark.parametrize("language", ["en", "pt"])
def test_every_scale_choice_fits_on_one_row_whole(screen, request, language):
    """Importance, difficulty and experience: no choice alone on a second row ("Max" used to be),
    and no word wider than its choice, in English and in Portuguese ("Terrível", "Intermediário")."""
    if language == "pt":
        request.getfixturevalue("in_portuguese")
    page, base_url = screen
    page.goto(f"{base_url}/habits")
    page.locator('main [hx-get$="/habits/new"]').first.click()
    segments = page.locator("#dialog fieldset.segmented .segments")
    expect(segments.first).to_be_visible()
    assert segments.count() == 3
    for index in range(segments.count()):
        choices = segments.nth(index).locator(".segment")
        tops = choices.evaluate_all("labels => labels.map(l => Math.round(l.getBoundingClientRect().top))")
        assert len(set(tops)) == 1, f"the choices of scale {index} take {len(set(tops))} rows"
        spilled = choices.evaluate_all(
            "labels => labels.filter(l => l.scrollWidth > l.clientWidth + 1).map(l => l.innerText)"
        )
        assert spilled == [], f"cut: {spilled}"
