"""Focus mode in a real browser: opened from today's card, a step added and pinned, reordered by
keyboard, a (one-minute) timer cycle run to its end (on Playwright's clock and the server's,
moved on together) and counted in the day view — at 1280 px and at 390 px, in English and in
Portuguese, without console errors. The timer lives on the server: it outlives leaving the page
and a reload, a second device of the same person shows the same clock and follows a pause live,
and each cycle is recorded once."""

import re
import time

import pytest
from playwright.sync_api import expect

from app import create_app
from app.extensions import db
from app.focus.models import TimerCycle
from app.profile import accounts, configuration
from app.profile.models import User
from tests.browser.conftest import serve, wait_until_quiet
from tests.browser.conftest import sign_in as signed_in_as
from tests.builders import a_habit, a_task, an_everyday_routine
from tests.focus import server_clock

pytestmark = pytest.mark.browser

PASSWORD = "steps one at a time"
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
TIMER_PEOPLE = ("rosa@example.com", "rute@example.com", "raul@example.com", "rebeca@example.com", "renata@example.com")


@pytest.fixture(scope="module")
def focus_app(tmp_path_factory):
    """An app of its own whose database this module fills: people whose routine runs every day,
    with a one-minute focus and a one-minute break (the timer's tests each have their own)."""
    database = tmp_path_factory.mktemp("focus") / "focus.sqlite3"
    app = create_app("test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}", RATELIMIT_STORAGE_URI="memory://")
    people = ("rita@example.com", "en"), ("rui@example.com", "pt"), *((email, "en") for email in TIMER_PEOPLE)
    with app.app_context():
        db.create_all()
        for email, language in people:
            user = accounts.register(
                name="Rita", email=email, password=PASSWORD, language=language, timezone_name="Europe/Lisbon"
            )
            configuration.update(user, tutorial_done=True, focus_work_minutes=1, focus_break_minutes=1)
            an_everyday_routine(
                db.session.get(User, user.id), a_habit(user, "Write"), a_task(user, "Tidy desk"), since_yesterday=True
            )
        db.session.remove()
    return app


@pytest.fixture(scope="module")
def focus_server(focus_app):
    with serve(focus_app) as base_url:
        yield base_url


def sign_in(page, base_url, email):
    signed_in_as(page, base_url, email, PASSWORD)


def fits(page):
    """The page as loaded is no wider than the screen (a click's navigation finished first)."""
    page.wait_for_load_state("load")
    width = page.viewport_size["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= width, page.url


@pytest.fixture
def server(monkeypatch):
    """The server's clock for the timer, moved on by the test together with the page's."""
    return server_clock.installed(monkeypatch)


def run_for(server, page, milliseconds):
    """Time passes for the timer: first on the server, then on the page (whose countdown, at its
    end, asks the server, which must already be there). A refresh of the timer still on its way
    (the live update of the last change) lands first: answered before the jump and swapped in
    after it, it would start the countdown again from the time left before the jump."""
    wait_until_quiet(page)
    server.run_for(milliseconds)
    page.clock.run_for(milliseconds)


def on_focus(browser, base_url, email, entry="Write", clock=True):
    """A desktop browser (on Playwright's clock unless `clock` is False), signed in as `email`,
    with Focus mode opened on `entry` from today's card: (context, page, the console errors)."""
    context = browser.new_context(viewport=DESKTOP, locale="en-US", timezone_id="Europe/Lisbon")
    if clock:
        context.clock.install()
    page = context.new_page()
    errors = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    sign_in(page, base_url, email)
    page.get_by_test_id("today-card").get_by_role("link", name=f"Focus on {entry}").click()
    expect(page).to_have_url(re.compile(r"/focus/[0-9a-f-]{36}$"))
    page.wait_for_load_state("load")  # the step form is htmx's once the page's scripts have run
    return context, page, errors


def test_a_focus_session_from_today_s_card(browser, focus_server, server):
    context, page, errors = on_focus(browser, focus_server, "rita@example.com")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Write")

    steps = page.get_by_test_id("focus-steps")
    for text in ("Outline", "Draft"):
        page.get_by_label("New step").fill(text)
        page.get_by_label("New step").press("Enter")
        # The toast comes with the answer and lasts 5 s; the list may refresh later on a loaded machine.
        expect(page.locator("#toasts")).to_contain_text("Step added")
        expect(steps.get_by_test_id("step").filter(has_text=text)).to_be_visible()
    expect(page.get_by_label("New step")).to_be_focused()

    steps.get_by_role("button", name="Pin Outline: keep it every day").click()
    expect(steps.get_by_role("button", name="Pin Outline: keep it every day")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#toasts")).to_contain_text("Pinned: it comes back every day")
    expect(steps.get_by_role("button", name="Pin Outline: keep it every day")).to_be_focused()  # the keyboard stays

    steps.get_by_role("button", name="Mark Draft done").focus()
    page.keyboard.press("Alt+ArrowUp")
    expect(steps.get_by_test_id("step").first).to_contain_text("Draft")
    expect(steps.get_by_role("button", name="Move Draft down")).to_be_focused()  # "up" is disabled at the top
    steps.get_by_role("button", name="Mark Draft done").click()
    expect(steps.get_by_role("button", name="Mark Draft not done")).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_test_id("steps-count")).to_have_text("1 of 2")

    outline = steps.get_by_test_id("step").filter(has_text="Outline")
    outline.locator(".step-handle").drag_to(steps.get_by_test_id("step").first, target_position={"x": 5, "y": 2})
    expect(steps.get_by_test_id("step").first).to_contain_text("Outline")
    expect(page.locator("#toasts")).to_contain_text("Steps reordered")

    timer = page.locator("[data-focus-timer]")
    expect(page.get_by_test_id("timer-clock")).to_have_text("01:00")
    page.get_by_test_id("timer-toggle").click()
    expect(timer.locator("[data-timer-said]")).to_have_text("Focus started: 1 minute.")
    run_for(server, page, 61_000)
    expect(timer.locator("[data-timer-said]")).to_have_text("Focus cycle complete. Break: 1 minute.")
    expect(page.get_by_test_id("timer-count")).to_contain_text("1 cycle completed today")

    page.get_by_role("link", name="Focus mode").click()
    expect(page.get_by_test_id("focus-day-cycles")).to_contain_text("1 cycle completed")
    write = page.get_by_test_id("focus-day-entry").filter(has_text="Write")
    expect(write).to_contain_text("1 of 2 steps")
    expect(write.get_by_test_id("entry-cycles")).to_have_text(re.compile(r"1 cycle"))

    page.set_viewport_size(PHONE)
    for path in ("/dashboard", "/focus", page.url):
        page.goto(f"{focus_server}{path}" if path.startswith("/") else path)
        fits(page)
    page.goto(f"{focus_server}/dashboard")
    page.get_by_test_id("today-card").get_by_role("link", name="Focus on Write").click()
    page.wait_for_url(re.compile(r"/focus"))
    fits(page)
    assert errors == []
    context.close()


def test_focus_mode_in_portuguese_on_a_phone(browser, focus_server):
    context = browser.new_context(viewport=PHONE, locale="pt-BR", timezone_id="Europe/Lisbon")
    page = context.new_page()
    errors = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    sign_in(page, focus_server, "rui@example.com")

    page.get_by_test_id("today-card").get_by_role("link", name="Focar em Tidy desk").click()
    page.get_by_label("Novo passo").fill("Limpar a mesa")
    page.get_by_role("button", name="Adicionar").click()
    expect(page.get_by_test_id("step")).to_contain_text("Limpar a mesa")
    expect(page.locator("#toasts")).to_contain_text("Passo adicionado")
    expect(page.get_by_test_id("timer-toggle")).to_contain_text("Iniciar")
    fits(page)
    assert errors == []
    context.close()


def test_a_form_swapped_in_takes_keys_at_once(browser, focus_server):
    """The step form comes back with every answer; a step typed the instant it lands is still sent
    by htmx (a toast, no page load) — not by the browser, as in htmx's default 20 ms settle."""
    context, page, errors = on_focus(browser, focus_server, "rosa@example.com", entry="Tidy desk")
    page.evaluate(
        """() => document.body.addEventListener("htmx:afterSwap", (event) => {
            if (event.detail.target.id !== "focus-step-list" || window.typedAgain) return;
            window.typedAgain = true;
            Promise.resolve().then(() => {
                document.getElementById("text").value = "Sort cables";
                document.getElementById("step-add").requestSubmit();
            });
        })"""
    )
    page.get_by_label("New step").fill("Clear the desk")
    page.get_by_label("New step").press("Enter")
    steps = page.get_by_test_id("focus-steps")
    expect(steps.get_by_test_id("step").filter(has_text="Sort cables")).to_be_visible()
    expect(page.locator("#toasts")).to_contain_text("Step added")
    assert page.evaluate("window.typedAgain") is True  # the same document: nothing reloaded it
    assert errors == []
    context.close()


def recorded_cycles(app, email, expected):
    """The kinds of the cycles recorded for `email`, once `expected` of them are there or after a
    few seconds; a cycle recorded twice shows as two."""
    deadline = time.monotonic() + 5
    while True:
        with app.app_context():
            user = db.session.scalar(db.select(User).where(User.email == email))
            kinds = sorted(
                kind.value
                for kind in db.session.scalars(db.select(TimerCycle.kind).where(TimerCycle.user_id == user.id))
            )
            db.session.remove()
        if len(kinds) >= expected or time.monotonic() > deadline:
            time.sleep(0.5)  # a duplicate would arrive now
            return kinds
        time.sleep(0.1)


def running_from(shown, slack=5):
    """A running clock's text: `shown` when looked at at once, or up to `slack` seconds less.
    Real time passes too, and a loaded machine takes seconds between a page's load and the look."""
    minutes, seconds = map(int, shown.split(":"))
    total = minutes * 60 + seconds
    return re.compile(
        "^(" + "|".join(f"{left // 60:02d}:{left % 60:02d}" for left in range(total - slack, total + 1)) + ")$"
    )


def seconds_on(page):
    minutes, seconds = map(int, page.get_by_test_id("timer-clock").inner_text().split(":"))
    return minutes * 60 + seconds


def test_a_running_timer_outlives_leaving_the_page(browser, focus_app, focus_server, server):
    context, page, errors = on_focus(browser, focus_server, "rosa@example.com")
    entry_url = page.url
    timer = page.locator("[data-focus-timer]")
    clock, said = page.get_by_test_id("timer-clock"), timer.locator("[data-timer-said]")

    page.get_by_test_id("timer-toggle").click()
    expect(said).to_have_text("Focus started: 1 minute.")
    run_for(server, page, 20_000)
    expect(clock).to_have_text(running_from("00:40"))

    page.goto(f"{focus_server}/dashboard")  # a glance at the dashboard
    run_for(server, page, 15_000)
    page.goto(entry_url)
    expect(clock).to_have_text(running_from("00:25"))
    expect(said).to_have_text("Timer resumed.")
    expect(page.get_by_test_id("timer-toggle")).to_contain_text("Pause")
    run_for(server, page, 5_000)
    expect(clock).to_have_text(running_from("00:20"))  # still running

    page.goto(f"{focus_server}/dashboard")  # away past the focus's end: the break has begun meanwhile
    run_for(server, page, 35_000)
    page.goto(entry_url)
    expect(page.get_by_test_id("timer-count")).to_contain_text("1 cycle completed today")
    expect(timer.locator("[data-timer-phase]")).to_have_text("Break")
    expect(clock).to_have_text(running_from("00:45"))

    page.reload()
    expect(timer.locator("[data-timer-phase]")).to_have_text("Break")
    expect(page.get_by_test_id("timer-count")).to_contain_text("1 cycle completed today")
    page.get_by_role("link", name="Focus mode").click()
    expect(page.get_by_test_id("focus-day-entry").filter(has_text="Write").get_by_test_id("entry-cycles")).to_have_text(
        re.compile(r"^\s*1 cycle")
    )
    assert recorded_cycles(focus_app, "rosa@example.com", 1) == ["WORK"]
    assert errors == []
    context.close()


def test_two_devices_of_one_person_show_one_clock(browser, focus_app, focus_server):
    """Rebeca's laptop and phone, each signed in on its own: a start on one runs on the other
    within a second at the same time left, a pause on one stands the other still, and a reload
    (or a new sign-in) shows the timer as it is. Real time: nothing moves the clocks here."""
    laptop, first, errors = on_focus(browser, focus_server, "rebeca@example.com", "Tidy desk", clock=False)
    phone, second, phone_errors = on_focus(browser, focus_server, "rebeca@example.com", "Tidy desk", clock=False)
    expect(second.get_by_test_id("timer-toggle")).to_contain_text("Start")
    expect(second.get_by_test_id("timer-clock")).to_have_text("01:00")
    expect(second.locator("body")).to_have_attribute("data-live", "open")

    first.get_by_test_id("timer-toggle").click()
    expect(first.get_by_test_id("timer-toggle")).to_contain_text("Pause")
    expect(second.get_by_test_id("timer-toggle")).to_contain_text("Pause", timeout=1500)
    expect(second.get_by_test_id("timer-clock")).not_to_have_text("01:00", timeout=2500)  # it counts down
    assert abs(seconds_on(first) - seconds_on(second)) <= 2
    expect(second.locator("[data-timer-said]")).to_have_text("Focus started: 1 minute.")

    second.get_by_test_id("timer-toggle").click()  # paused on the phone
    expect(second.get_by_test_id("timer-toggle")).to_contain_text("Resume")
    expect(first.get_by_test_id("timer-toggle")).to_contain_text("Resume", timeout=1500)
    expect(first.locator("[data-timer-said]")).to_have_text("Timer paused.")
    paused_at = second.get_by_test_id("timer-clock").inner_text()
    expect(first.get_by_test_id("timer-clock")).to_have_text(paused_at)
    time.sleep(1.5)
    expect(first.get_by_test_id("timer-clock")).to_have_text(paused_at)  # it stands still

    first.reload()
    expect(first.get_by_test_id("timer-toggle")).to_contain_text("Resume")
    expect(first.get_by_test_id("timer-clock")).to_have_text(paused_at)
    again = browser.new_context(viewport=PHONE, locale="en-US", timezone_id="Europe/Lisbon").new_page()
    sign_in(again, focus_server, "rebeca@example.com")  # a new session sees it too
    again.goto(first.url)
    expect(again.get_by_test_id("timer-clock")).to_have_text(paused_at)

    first.get_by_test_id("timer-toggle").click()  # resumed on the laptop
    expect(second.get_by_test_id("timer-toggle")).to_contain_text("Pause", timeout=1500)
    expect(second.locator("[data-timer-said]")).to_have_text("Timer resumed.")
    first.get_by_test_id("timer-reset").click()
    expect(second.get_by_test_id("timer-clock")).to_have_text("01:00", timeout=1500)
    expect(second.get_by_test_id("timer-toggle")).to_contain_text("Start")
    assert recorded_cycles(focus_app, "rebeca@example.com", 0) == []  # reset before its end: no cycle
    assert errors == [] and phone_errors == []
    again.context.close()
    laptop.close()
    phone.close()


def test_an_answer_older_than_the_timer_shown_is_not_swapped_in(browser, focus_server):
    """On a slow network, the refresh a start asks for can be answered after the pause that
    followed it. The page keeps the pause: the older answer would start the countdown again and
    say the timer resumed. Every refresh of the timer is held here until the test lets it go."""
    context, page, errors = on_focus(browser, focus_server, "renata@example.com", "Tidy desk", clock=False)
    toggle, said = page.get_by_test_id("timer-toggle"), page.locator("[data-timer-said]")
    held = []

    def hold(route):
        if route.request.method != "GET":
            route.continue_()
        elif not held:
            held.append((route, route.fetch()))  # answered now, while the timer runs; delivered later
        else:
            held.append((route, None))

    page.route(re.compile(r"/focus/[0-9a-f-]{36}/timer$"), hold)
    page.evaluate("""() => {
        window.timerAnswers = 0;
        document.getElementById("focus-timer-live").addEventListener("htmx:afterRequest", (event) => {
            if (event.detail.elt.id === "focus-timer-live") window.timerAnswers += 1;
        });
    }""")
    toggle.click()
    expect(toggle).to_contain_text("Pause")
    for _ in range(100):  # the start's refresh, answered before the pause below
        if held:
            break
        page.wait_for_timeout(50)
    toggle.click()  # paused, and answered at once
    expect(toggle).to_contain_text("Resume")
    expect(said).to_have_text("Timer paused.")
    paused_at = page.get_by_test_id("timer-clock").inner_text()

    stale, answer = held[0]
    assert 'data-state="RUNNING"' in answer.text()
    stale.fulfill(response=answer)
    page.wait_for_function("() => window.timerAnswers >= 1")
    expect(page.get_by_test_id("timer-now")).to_have_attribute("data-state", "PAUSED")
    expect(toggle).to_contain_text("Resume")
    expect(said).to_have_text("Timer paused.")
    page.wait_for_timeout(1500)
    expect(page.get_by_test_id("timer-clock")).to_have_text(paused_at)  # it stands still

    for route, _answer in held[1:]:
        route.continue_()  # the refreshes asked after the pause: the timer as it is now
    page.unroute(re.compile(r"/focus/[0-9a-f-]{36}/timer$"))
    wait_until_quiet(page)
    expect(page.get_by_test_id("timer-now")).to_have_attribute("data-state", "PAUSED")
    page.get_by_test_id("timer-reset").click()
    expect(said).to_have_text("Timer reset.")
    assert errors == []
    context.close()


def test_both_devices_see_the_focus_and_the_break_end_and_each_is_recorded_once(
    browser, focus_app, focus_server, server
):
    context, first, errors = on_focus(browser, focus_server, "rute@example.com", "Tidy desk")
    other = browser.new_context(viewport=PHONE, locale="en-US", timezone_id="Europe/Lisbon")
    other.clock.install()
    second = other.new_page()
    sign_in(second, focus_server, "rute@example.com")
    second.goto(first.url)
    expect(second.get_by_test_id("timer-toggle")).to_contain_text("Start")

    first.get_by_test_id("timer-toggle").click()
    expect(second.get_by_test_id("timer-toggle")).to_contain_text("Pause")
    wait_until_quiet(first, second)  # each device's last refresh has landed (run_for)
    server.run_for(61_000)
    for page in (first, second):
        page.clock.run_for(61_000)
    for page in (first, second):
        expect(page.locator("[data-timer-phase]")).to_have_text("Break")
        expect(page.get_by_test_id("timer-count")).to_contain_text("1 cycle completed today")
    wait_until_quiet(first, second)
    server.run_for(60_000)
    for page in (first, second):
        page.clock.run_for(60_000)
    for page in (first, second):
        expect(page.get_by_test_id("timer-toggle")).to_contain_text("Start")
        expect(page.get_by_test_id("timer-clock")).to_have_text("01:00")
    expect(first.locator("[data-timer-said]")).to_have_text("Break over. Start the next focus when you are ready.")
    second.reload()
    expect(second.get_by_test_id("timer-count")).to_contain_text("1 cycle completed today")
    assert recorded_cycles(focus_app, "rute@example.com", 2) == ["BREAK", "WORK"]  # once each
    assert errors == []
    other.close()
    context.close()


def test_a_paused_timer_stays_paused_and_a_reset_or_another_day_forgets_it(browser, focus_app, focus_server, server):
    context, page, errors = on_focus(browser, focus_server, "raul@example.com")
    clock, toggle = page.get_by_test_id("timer-clock"), page.get_by_test_id("timer-toggle")
    said = page.locator("[data-timer-said]")

    toggle.click()
    expect(toggle).to_contain_text("Pause")
    run_for(server, page, 10_000)
    toggle.click()
    expect(said).to_have_text("Timer paused.")
    paused_at = clock.inner_text()
    assert running_from("00:50", slack=3).match(paused_at)
    page.reload()
    expect(clock).to_have_text(paused_at)
    expect(toggle).to_contain_text("Resume")
    expect(said).to_have_text("")  # nothing resumed: it is still paused
    run_for(server, page, 5_000)
    expect(clock).to_have_text(paused_at)

    toggle.click()
    expect(toggle).to_contain_text("Pause")
    run_for(server, page, 51_000)  # past the very end, then reloads: the focus is recorded once
    page.reload()
    expect(page.locator("[data-timer-phase]")).to_have_text("Break")
    page.reload()
    expect(page.locator("[data-timer-phase]")).to_have_text("Break")
    expect(page.get_by_test_id("timer-count")).to_contain_text("1 cycle completed today")
    assert recorded_cycles(focus_app, "raul@example.com", 1) == ["WORK"]

    page.get_by_role("button", name="Reset").click()
    expect(said).to_have_text("Timer reset.")
    page.reload()
    expect(clock).to_have_text("01:00")
    expect(toggle).to_contain_text("Start")
    expect(page.get_by_role("button", name="Reset")).to_be_disabled()

    toggle.click()
    expect(toggle).to_contain_text("Pause")
    toggle.click()
    expect(toggle).to_contain_text("Resume")
    server.run_for(24 * 3600 * 1000)  # the next day, on the server: a paused timer is forgotten
    page.reload()
    expect(clock).to_have_text("01:00")
    expect(toggle).to_contain_text("Start")
    assert errors == []
    context.close()
