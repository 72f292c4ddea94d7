"""axe-core finds no serious or critical violation on any page, in light and dark, at 1280 and 390,
and in Portuguese on a phone; WCAG 2.2's target size (24 px) is among the rules it runs, and on a
phone every page's primary actions are 44 px tall.

The pages are every argument-less GET route of the app's url_map that answers a whole document
(fragments, the health check and the live socket are left out by that test), plus the
pages behind an id reached from them (the notebook's pages, among them a study board, a study
cycle, a focus entry), all seen by the demo account (`flask seed-demo`: two months of data on every page) made an
admin, and the signed-out pages by nobody. Dark is the browser's preference (`color_scheme`) with
the account's theme left at "system", the way most people get it.

axe-core comes from `axe-playwright-python` (pinned in requirements.txt), which bundles it: nothing
is fetched at test time. Every violation found is printed with its page and element.
"""

import re
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from app import create_app
from app.extensions import db
from tests.browser.conftest import mistral_at, serve, sign_in
from tests.fakes import FakeProviders

pytestmark = pytest.mark.browser

SCREENS = {1280: {"width": 1280, "height": 900}, 390: {"width": 390, "height": 844}}
BLOCKING = {"serious", "critical"}
SIGNED_OUT = ("/login", "/register", "/forgot-password")
# Pages behind an id, from the links of the page before them: every notebook page (a study board,
# sources and a diagram are among them), every study cycle, and one focus entry (they are alike).
REACHED = (
    ("/notebook", r"^/notebook/pages/[^/]+$", None),
    ("/notebook/cycles", r"^/notebook/cycles/[0-9a-f-]{8,}$", None),
    ("/focus", r"^/focus/[^/]+$", 1),
)
AXE = Axe()
# On a phone a page's primary actions are thumb-sized (44 px, Apple's and Android's guidance), not
# only WCAG's 24: every visible `.button-primary` (the page's main action, styled as one).
PHONE_UNDER = 600
SMALL_PRIMARY_ACTIONS = """() => [...document.querySelectorAll('.button-primary')]
    .filter(element => element.offsetParent !== null && element.getBoundingClientRect().height > 0)
    .filter(element => element.getBoundingClientRect().height < 44)
    .map(element => `primary action under 44 px: "${element.textContent.trim().slice(0, 40)}" `
                    + `${Math.round(element.getBoundingClientRect().height)} px`)"""
# axe leaves WCAG 2.2's target size (24 px, or room around a smaller one) out unless asked: every
# control on every page is measured with it, at both widths.
AXE_OPTIONS = {"resultTypes": ["violations"], "rules": {"target-size": {"enabled": True}}}


@pytest.fixture(scope="module")
def fake():
    with FakeProviders() as providers:
        yield providers


@pytest.fixture(scope="module")
def demo(tmp_path_factory, fake):
    """The demo account's app, its chain at the wire fake (so the assistant is on and the chain's
    states show, as in production), served; yields (base URL, email, password, the pages)."""
    database = tmp_path_factory.mktemp("axe") / "demo.sqlite3"
    app = create_app(
        "test",
        SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}",
        RATELIMIT_STORAGE_URI="memory://",
        LLM_ENV=mistral_at(fake),
    )
    with app.app_context():
        db.create_all()
    email, password = app.config["DEMO_EMAIL"], app.config["DEMO_PASSWORD"]
    for command in (["seed-demo"], ["users", "make-admin", email]):
        result = app.test_cli_runner().invoke(args=command)
        assert result.exit_code == 0, result.output
    routes = sorted(
        rule.rule
        for rule in app.url_map.iter_rules()
        if "GET" in rule.methods and not rule.arguments and rule.endpoint != "static"
    )
    with serve(app) as base_url:
        yield base_url, email, password, [route for route in routes if route not in SIGNED_OUT]


def blocking_violations(page, within=None):
    """axe's serious and critical violations on the page as it is now (or in the element
    `within` selects), one line per element."""
    results = AXE.run(page, context=within, options=AXE_OPTIONS).response
    return [
        f"{violation['id']} ({violation['impact']}) {' '.join(map(str, node['target']))}: "
        + node.get("failureSummary", "").replace("\n", " ")
        for violation in results["violations"]
        if violation["impact"] in BLOCKING
        for node in violation["nodes"]
    ]


def is_a_page(page, url):
    """A whole document (with a title), not a fragment, a file, a socket or a refusal: asked
    without the browser's tab first, so a fragment's 404 outside htmx is no console error."""
    response = page.request.get(url)
    return response.ok and "text/html" in response.headers.get("content-type", "") and "<title>" in response.text()


def audit(page, base_url, paths, found, seen):
    for path in paths:
        if not is_a_page(page, f"{base_url}{path}"):
            continue
        page.goto(f"{base_url}{path}")
        if page.url in seen:
            continue
        seen.add(page.url)
        page.wait_for_load_state("networkidle")
        found.extend(f"{page.url.removeprefix(base_url)}: {line}" for line in blocking_violations(page))
        if page.viewport_size["width"] < PHONE_UNDER:
            found.extend(f"{page.url.removeprefix(base_url)}: {line}" for line in page.evaluate(SMALL_PRIMARY_ACTIONS))


def assert_clean(found, seen, where):
    """Every page was visited (more than 30) and none has a serious or critical finding."""
    assert len(seen) > 30, f"only {len(seen)} pages visited: {sorted(seen)}"
    assert not found, f"{len(found)} serious or critical axe violations ({where}):\n" + "\n".join(found)


def reached_paths(page, base_url):
    paths = []
    for start, pattern, how_many in REACHED:
        page.goto(f"{base_url}{start}")
        hrefs = page.locator("a[href]").evaluate_all("links => links.map(link => link.getAttribute('href'))")
        matching = sorted({href for href in hrefs if re.match(pattern, href)})
        assert matching, f"no link matching {pattern} on {start}"
        paths.extend(matching[:how_many])
    return paths


def test_the_profile_s_dark_theme_is_the_system_s_dark_theme():
    """The pages are checked in the system's dark (`color_scheme`); a profile set to "dark" gets the
    same tokens from its own block of app.css, so what axe passed holds for it too."""
    css = (Path(__file__).parents[2] / "static/css/app.css").read_text()
    system = re.search(r'@media \(prefers-color-scheme: dark\) \{\s*:root\[data-theme="system"\] \{([^}]*)\}', css)
    profile = re.search(r':root\[data-theme="dark"\] \{([^}]*)\}', css)

    def tokens(block):
        return sorted(declaration.strip() for declaration in block.group(1).split(";") if declaration.strip())

    assert system and profile and tokens(system) == tokens(profile)


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", sorted(SCREENS))
def test_no_serious_violation_on_any_page(browser, demo, scheme, width):
    base_url, email, password, routes = demo
    context = browser.new_context(
        viewport=SCREENS[width], color_scheme=scheme, locale="en-US", timezone_id="Europe/Lisbon"
    )
    page = context.new_page()
    found, seen = [], set()
    audit(page, base_url, SIGNED_OUT, found, seen)
    sign_in(page, base_url, email, password)
    expect(page.locator("html")).to_have_attribute("data-theme", "system")
    audit(page, base_url, [*routes, *reached_paths(page, base_url)], found, seen)
    context.close()
    assert_clean(found, seen, f"{scheme}, {width} px")


def set_language(page, base_url, language):
    """The account's language, changed on the configuration page as a person changes it."""
    page.goto(f"{base_url}/configuration")
    with page.expect_response(lambda response: "/configuration" in response.url and response.request.method == "POST"):
        page.locator("#language").select_option(language)
    expect(page.locator("html")).to_have_attribute("lang", language)


def test_no_serious_violation_on_any_page_in_portuguese_on_a_phone(browser, demo):
    """Longer words on the narrowest screen: nothing cut into a smaller target, nothing less legible."""
    base_url, email, password, routes = demo
    context = browser.new_context(viewport=SCREENS[390], locale="pt-BR", timezone_id="America/Sao_Paulo")
    page = context.new_page()
    found, seen = [], set()
    sign_in(page, base_url, email, password)
    set_language(page, base_url, "pt")
    try:
        audit(page, base_url, [*routes, *reached_paths(page, base_url)], found, seen)
    finally:
        set_language(page, base_url, "en")  # the other tests' pages are in English
        context.close()
    assert_clean(found, seen, "pt, 390 px")


# Where people open dialogs and menus: each kind of dialog (by the route it loads) and each kind
# of menu on these pages is opened, checked by axe while open, and closed; the assistant's panel
# is opened on the dashboard. The console watch (conftest) fails the test on any error meanwhile.
INTERACTIVE = ("/habits", "/tasks", "/goals", "/routines", "/categories", "/ideas", "/notebook", "/notebook/cycles")


def kinds(locator, attribute):
    """The first visible element of each kind (its `attribute` with the ids taken out)."""
    firsts = {}
    for element in locator.element_handles():
        kind = re.sub(r"[0-9a-f]{8}-[0-9a-f-]{27}", "<id>", element.get_attribute(attribute) or "")
        if kind not in firsts and element.is_visible():
            firsts[kind] = element
    return firsts


def open_each_dialog_and_menu(page, found):
    where = page.url
    for route, trigger in kinds(page.locator('[hx-target="#dialog-body"][hx-get]'), "hx-get").items():
        trigger.click()
        dialog = page.locator("#dialog")
        expect(dialog).to_have_attribute("open", "")
        page.wait_for_load_state("networkidle")
        found.extend(f"{where} dialog {route}: {line}" for line in blocking_violations(page, "#dialog"))
        page.keyboard.press("Escape")
        expect(dialog).not_to_have_attribute("open", "")
    for name, summary in kinds(page.locator("details:not([open]) > summary"), "class").items():
        summary.click()
        # The open menu itself: what it covers of the page while open is out of reach on purpose,
        # and the page test measured the page.
        summary.evaluate("summary => summary.parentElement.setAttribute('data-axe-open', '')")
        found.extend(
            f"{where} menu {name or 'details'}: {line}" for line in blocking_violations(page, "[data-axe-open]")
        )
        summary.evaluate("summary => summary.parentElement.removeAttribute('data-axe-open')")
        summary.click()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", sorted(SCREENS))
def test_dialogs_menus_and_the_assistant_open_without_errors_or_violations(browser, demo, scheme, width):
    base_url, email, password, _routes = demo
    context = browser.new_context(
        viewport=SCREENS[width], color_scheme=scheme, locale="en-US", timezone_id="Europe/Lisbon"
    )
    page = context.new_page()
    sign_in(page, base_url, email, password)
    found = []
    notebook_page = reached_paths(page, base_url)[0]
    for path in (*INTERACTIVE, notebook_page):
        page.goto(f"{base_url}{path}")
        page.wait_for_load_state("networkidle")
        open_each_dialog_and_menu(page, found)
    page.goto(f"{base_url}/dashboard")
    page.locator("[data-agent-open]:visible").first.click()
    expect(page.locator("#composer-input")).to_be_focused()
    page.wait_for_load_state("networkidle")
    found.extend(f"/dashboard assistant: {line}" for line in blocking_violations(page, "#agent-panel"))
    context.close()
    assert not found, f"{len(found)} serious or critical axe violations ({scheme}, {width} px):\n" + "\n".join(found)
