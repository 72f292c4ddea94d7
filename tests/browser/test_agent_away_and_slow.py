"""The assistant when the person does not sit and watch, and when the model is slow to start, in
a real browser against the real server and the wire fake (issue 46 item 7):

- a chat left mid-answer (another page, or a reload) and opened again once the answer finished
  shows it whole: every word once, the question once, at 390 px;
- opened again while the answer still runs, it shows the turn answering (the sign, Stop,
  aria-busy), never the cut-off words as a finished answer: its stream replays from the first
  word, so the words so far appear once and the rest streams in until `done`, at 1280 and 390 px;
- a stream a proxy cut mid-answer is picked up by the browser's EventSource with Last-Event-ID,
  and the live bubble goes on from where it was: no word missing, none twice;
- at production values (a 15 s heartbeat, a 60 s first-event budget), a model that says nothing
  for 22 s keeps one EventSource open: the browser receives the `: ping` comment during the
  silence while the bubble says the assistant is answering, then the answer, and the turn ends done.
"""

import base64
import re
import socket
import time
from types import SimpleNamespace

import pytest
from playwright.sync_api import expect

from app import create_app
from app.assistant.models.chats import Turn, TurnStatus
from app.extensions import db
from app.llm import current_chain
from app.profile import accounts, configuration
from app.profile.models import User
from tests.browser.conftest import serve
from tests.browser.conftest import sign_in as signed_in_as
from tests.fakes import FakeProviders, Reply

pytestmark = pytest.mark.browser

PASSWORD = "a long morning walk"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
NOOR, RUI, HANA, INES = "noor@example.com", "rui@example.com", "hana@example.com", "ines@example.com"
STREAM = re.compile(r"/ai/agent/turns/([0-9a-f-]{36})/stream$")


def pieces(word, count=40):
    """An answer of `count` distinct words, one text piece each: a word lost or said twice shows."""
    return [f"{word}{number:02d} " for number in range(count)]


def words(answer_pieces):
    return [piece.strip() for piece in answer_pieces]


@pytest.fixture(scope="module")
def fake():
    with FakeProviders() as providers:
        yield providers


@pytest.fixture(scope="module")
def agent(tmp_path_factory, fake):
    """The app at production timings (no BEYOU_AGENT_HEARTBEAT_SECONDS, no first-event timeout
    given), one Mistral link at the fake, a person per test. Each answer stream's request is noted
    with its Last-Event-ID and its socket, which a test may cut as a proxy would."""
    database = tmp_path_factory.mktemp("agent-away-e2e") / "agent.sqlite3"
    env = {
        "BEYOU_LLM_ORDER": "mistral",
        "BEYOU_LLM_MISTRAL_API_KEY": "test",
        "BEYOU_LLM_MISTRAL_BASE_URL": fake.base_url("mistral", "openai"),
    }
    app = create_app("test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}", LLM_ENV=env)
    streams = []
    application = app.wsgi_app

    def noting_streams(environ, start_response):
        found = STREAM.search(environ.get("PATH_INFO", ""))
        if found:
            streams.append(SimpleNamespace(turn=found.group(1), last_event_id=environ.get("HTTP_LAST_EVENT_ID"),
                                           socket=environ.get("werkzeug.socket")))  # fmt: skip
        return application(environ, start_response)

    app.wsgi_app = noting_streams
    with app.app_context():
        assert app.config["AGENT_HEARTBEAT_SECONDS"] == 15  # production's
        assert current_chain().settings.timeouts.first_event == 60  # production's, above the 22 s wait
        db.create_all()
        for name, email in (("Noor", NOOR), ("Rui", RUI), ("Hana", HANA), ("Inês", INES)):
            user = accounts.register(name=name, email=email, password=PASSWORD, timezone_name="UTC")
            configuration.update(user, tutorial_done=True)
    with serve(app) as base_url:
        yield SimpleNamespace(url=base_url, app=app, streams=streams)


def turns_of(agent, email):
    """The person's turns, oldest first, as the database has them now."""
    with agent.app.app_context():
        user_id = db.session.scalar(db.select(User.id).where(User.email == email))
        return db.session.scalars(db.select(Turn).where(Turn.user_id == user_id).order_by(Turn.created_at)).all()


def wait_for_the_last_turn_to_end(agent, email, timeout=90):
    deadline = time.monotonic() + timeout
    while (last := turns_of(agent, email)[-1]).status in (TurnStatus.PENDING, TurnStatus.RUNNING):
        assert time.monotonic() < deadline, f"the turn still {last.status} after {timeout} s"
        time.sleep(0.2)
    return last


def open_the_assistant(page):
    page.get_by_role("button", name="Assistant").click()  # the one shown: the sidebar's, or the phone's bottom bar's
    expect(page.locator("#composer-input")).to_be_focused()


def send(page, text):
    composer = page.locator("#composer-input")
    composer.fill(text)
    composer.press("Enter")


def test_a_chat_left_mid_answer_for_another_page_or_a_reload_shows_the_whole_answer_once_opened_again(
    page, agent, fake
):
    fake.reset()
    page.set_viewport_size(PHONE)
    signed_in_as(page, agent.url, NOOR, PASSWORD)
    open_the_assistant(page)
    first, second = pieces("week"), pieces("next")
    live = page.locator(".bubble-assistant.is-live .live-segments")

    fake.script("mistral", Reply.says(*first, pace=0.35))  # 14 s of answer
    send(page, "Walk me through my week")
    expect(live).to_contain_text("week03")
    expect(live).not_to_contain_text("week39")
    page.goto(f"{agent.url}/habits")  # away, mid-answer
    expect(page).to_have_url(re.compile(r"/habits$"))
    assert turns_of(agent, NOOR)[-1].status == TurnStatus.RUNNING  # left before the answer ended
    assert wait_for_the_last_turn_to_end(agent, NOOR).status == TurnStatus.DONE  # it went on without a watcher

    open_the_assistant(page)  # back, on another page: the panel opens the latest chat
    chat = page.locator("#chat-messages")
    expect(chat.locator(".bubble-user")).to_have_text(["Walk me through my week"])
    expect(chat.locator(".bubble-assistant")).to_have_count(1)
    expect(chat.locator(".bubble-assistant .bubble-meta")).to_have_text("answered by mistral")
    assert chat.locator(".bubble-assistant .bubble-text").inner_text().split() == words(first)

    fake.script("mistral", Reply.says(*second, pace=0.35))
    send(page, "And the week after?")
    expect(live).to_contain_text("next03")
    expect(live).not_to_contain_text("next39")
    page.reload()  # the same page again, mid-answer
    page.wait_for_load_state("load")
    assert turns_of(agent, NOOR)[-1].status == TurnStatus.RUNNING
    assert wait_for_the_last_turn_to_end(agent, NOOR).status == TurnStatus.DONE

    open_the_assistant(page)
    expect(chat.locator(".bubble-user")).to_have_text(["Walk me through my week", "And the week after?"])
    answers = chat.locator(".bubble-assistant")
    expect(answers).to_have_count(2)
    expect(chat.locator(".bubble-assistant.is-live")).to_have_count(0)
    assert answers.nth(0).locator(".bubble-text").inner_text().split() == words(first)
    assert answers.nth(1).locator(".bubble-text").inner_text().split() == words(second)
    expect(answers.nth(1).locator(".bubble-meta")).to_have_text("answered by mistral")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    panel = page.locator("#agent-panel").bounding_box()
    assert panel["x"] >= 0 and panel["x"] + panel["width"] <= PHONE["width"]
    assert len(fake.requests("mistral")) == 2  # one model call per message: no answer was asked for twice
    assert page.console_errors == []


def test_a_chat_opened_again_while_its_answer_still_runs_shows_it_answering_and_every_word_once(page, agent, fake):
    fake.reset()
    page.set_viewport_size(DESKTOP)
    # What the live bubble holds as `done` arrives, before the official answer replaces it: on
    # every page this tab opens, so after leaving and after the reload too.
    page.add_init_script("""document.addEventListener("htmx:sseBeforeMessage", (event) => {
        const live = document.querySelector(".bubble-assistant.is-live .live-segments");
        if (event.detail.type === "done" && live) window.__liveAtDone = live.textContent;
    })""")
    signed_in_as(page, agent.url, INES, PASSWORD)
    open_the_assistant(page)
    chat = page.locator("#chat-messages")
    bubble = chat.locator(".bubble-assistant.is-live")
    live = bubble.locator(".live-segments")
    first, second = pieces("away"), pieces("back")

    def reopened_while_it_answers(answer, questions, answered_before):
        """The panel, opened again mid-answer, shows the turn answering and streams it to its end."""
        open_the_assistant(page)
        expect(bubble).to_have_count(1)
        expect(bubble).to_have_attribute("aria-busy", "true")
        expect(bubble.get_by_label("The assistant is answering")).to_be_visible()
        stop = bubble.get_by_role("button", name="Stop")
        expect(stop).to_be_visible()
        stop.focus()
        expect(stop).to_be_focused()  # reachable from the keyboard
        expect(chat.locator(".bubble-user")).to_have_text(questions)  # each question once
        finished = chat.locator(".bubble-assistant:not(.is-live)")
        expect(finished).to_have_count(answered_before)  # the cut-off words are not a finished answer
        expect(live).to_contain_text(words(answer)[5])  # the replay brought the words said while away
        assert turns_of(agent, INES)[-1].status == TurnStatus.RUNNING  # and all of it while the turn ran
        so_far = live.inner_text().split()
        assert so_far == words(answer)[: len(so_far)]  # once each, in order, so far
        expect(bubble).to_have_count(0, timeout=60_000)  # `done` ended it
        assert page.evaluate("window.__liveAtDone").split() == words(answer)  # every word once, in order
        answers = chat.locator(".bubble-assistant")
        expect(answers).to_have_count(answered_before + 1)
        assert answers.last.locator(".bubble-text").inner_text().split() == words(answer)
        expect(answers.last.locator(".bubble-meta")).to_have_text("answered by mistral")
        turn = wait_for_the_last_turn_to_end(agent, INES)
        assert turn.status == TurnStatus.DONE
        # The first EventSource, and the reopened bubble's own: from the first event, not a Last-Event-ID.
        assert [stream.last_event_id for stream in agent.streams if stream.turn == str(turn.id)] == [None, None]

    fake.script("mistral", Reply.says(*first, pace=0.35))  # 14 s of answer
    send(page, "Walk me through my month")
    expect(live).to_contain_text("away03")
    page.goto(f"{agent.url}/habits")  # away, mid-answer
    expect(page).to_have_url(re.compile(r"/habits$"))
    reopened_while_it_answers(first, ["Walk me through my month"], answered_before=0)

    page.set_viewport_size(PHONE)
    fake.script("mistral", Reply.says(*second, pace=0.35))
    send(page, "And the month after?")
    expect(live).to_contain_text("back03")
    page.reload()  # the same page again, mid-answer; the panel opens closed
    page.wait_for_load_state("load")
    reopened_while_it_answers(second, ["Walk me through my month", "And the month after?"], answered_before=1)
    assert chat.locator(".bubble-assistant").first.locator(".bubble-text").inner_text().split() == words(first)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    panel = page.locator("#agent-panel").bounding_box()
    assert panel["x"] >= 0 and panel["x"] + panel["width"] <= PHONE["width"]
    assert len(fake.requests("mistral")) == 2  # one model call per message: watching again asked for none
    assert page.console_errors == []


# A stream cut by the server's side: the browser notes the broken response and htmx's SSE
# extension logs the EventSource's error event; both are the cut itself, made on purpose.
@pytest.mark.console_errors_expected("[object Event]", "net::ERR_INCOMPLETE_CHUNKED_ENCODING")
def test_a_stream_cut_mid_answer_goes_on_from_its_last_event_with_no_word_missing_or_twice(page, agent, fake):
    fake.reset()
    signed_in_as(page, agent.url, RUI, PASSWORD)
    page.evaluate("window.__stayed = true")  # survives only if nothing reloads the page
    # What the live bubble holds as `done` arrives, before the official answer replaces it.
    page.evaluate("""() => document.addEventListener("htmx:sseBeforeMessage", (event) => {
        const live = document.querySelector(".bubble-assistant.is-live .live-segments");
        if (event.detail.type === "done" && live) window.__liveAtDone = live.textContent;
    })""")
    open_the_assistant(page)
    answer = pieces("step")
    fake.script("mistral", Reply.says(*answer, pace=0.35))
    send(page, "Explain my plan step by step")
    live = page.locator(".bubble-assistant.is-live .live-segments")
    expect(live).to_contain_text("step05")
    expect(live).not_to_contain_text("step39")
    first_stream = agent.streams[-1]
    first_stream.socket.shutdown(socket.SHUT_RDWR)  # as a proxy or a restarting worker would

    expect(page.locator(".bubble-assistant.is-live")).to_have_count(0, timeout=60_000)
    assert page.evaluate("window.__liveAtDone").split() == words(answer)  # streamed on, from where it was
    final = page.locator(".bubble-assistant").last
    assert final.locator(".bubble-text").inner_text().split() == words(answer)
    expect(final.locator(".bubble-meta")).to_have_text("answered by mistral")
    expect(page.locator(".bubble-user")).to_have_text(["Explain my plan step by step"])

    opened = [stream.last_event_id for stream in agent.streams if stream.turn == first_stream.turn]
    assert len(opened) == 2 and opened[0] is None and int(opened[1]) > 0  # the EventSource's own retry
    assert wait_for_the_last_turn_to_end(agent, RUI).status == TurnStatus.DONE
    assert len(fake.requests("mistral")) == 1  # the reconnect replayed the log: no second model call
    assert page.evaluate("window.__stayed") is True


def test_a_slow_first_token_keeps_one_stream_open_on_the_15_s_heartbeat_until_the_answer_comes(page, agent, fake):
    fake.reset()
    signed_in_as(page, agent.url, HANA, PASSWORD)
    open_the_assistant(page)
    stream_requests = []
    page.on("request", lambda request: STREAM.search(request.url) and stream_requests.append(request.url))

    # What the browser receives on the stream, byte for byte, with the browser's own clock.
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    watched, received, opened_at = set(), [], []

    def will_be_sent(event):
        if STREAM.search(event["request"]["url"]):
            watched.add(event["requestId"])

    def response(event):
        if event["requestId"] in watched:
            opened_at.append(event["timestamp"])
            buffered = cdp.send("Network.streamResourceContent", {"requestId": event["requestId"]})
            received.append((event["timestamp"], base64.b64decode(buffered["bufferedData"])))

    def data(event):
        if event["requestId"] in watched and event.get("data"):
            received.append((event["timestamp"], base64.b64decode(event["data"])))

    cdp.on("Network.requestWillBeSent", will_be_sent)
    cdp.on("Network.responseReceived", response)
    cdp.on("Network.dataReceived", data)

    answer = ["Here is ", "a plan ", "worth the wait."]
    fake.script("mistral", Reply.says(*answer, first_byte_delay=22))  # not a byte for 22 s: over one beat
    send(page, "Think about my whole month")
    bubble = page.locator(".bubble-assistant.is-live")
    expect(bubble).to_have_attribute("aria-busy", "true")
    expect(bubble.get_by_label("The assistant is answering")).to_be_visible()

    deadline = time.monotonic() + 60
    while not any(b": ping" in chunk or b"event:" in chunk for _at, chunk in received):
        assert time.monotonic() < deadline, f"nothing but {received!r} reached the browser in 60 s"
        page.wait_for_timeout(200)  # lets Playwright deliver the events meanwhile
    first = next(chunk for _at, chunk in received if b": ping" in chunk or b"event:" in chunk)
    assert first.startswith(b": ping"), f"the answer came before any heartbeat: {received!r}"
    pinged_at = next(at for at, chunk in received if b": ping" in chunk)
    expect(bubble.get_by_label("The assistant is answering")).to_be_visible()  # still working, in the same bubble
    expect(bubble.get_by_role("button", name="Stop")).to_be_visible()

    expect(page.locator(".bubble-assistant.is-live")).to_have_count(0, timeout=60_000)
    final = page.locator(".bubble-assistant").last
    expect(final.locator(".bubble-text")).to_have_text("Here is a plan worth the wait.")
    expect(final.locator(".bubble-meta")).to_have_text("answered by mistral")
    assert wait_for_the_last_turn_to_end(agent, HANA).status == TurnStatus.DONE

    body = b"".join(chunk for _at, chunk in received)
    silence = body[: body.index(b"id: ")]  # all that came before the first event
    assert silence.startswith(b": connected\n\n") and b": ping\n\n" in silence
    assert all(line.startswith(b":") for line in silence.split(b"\n") if line)  # comments only
    assert b"event: token" in body and b"event: done" in body
    assert pinged_at - opened_at[0] >= 14  # the production beat, not a shorter one (late is fine)
    assert len(stream_requests) == 1  # the EventSource was never dropped and reopened
    turn = STREAM.search(stream_requests[0]).group(1)
    assert [stream.last_event_id for stream in agent.streams if stream.turn == turn] == [None]  # nor on the server
    assert len(fake.requests("mistral")) == 1  # the 60 s first-event budget held: no second call
    assert page.console_errors == []
