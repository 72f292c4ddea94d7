"""The briefing's door over the wire fake: GET /daily-briefing always answers 200 with the facts;
the text comes when the one generation of the day stores it, and never carries the model's numbers."""

import json
import re
import threading
import uuid
from datetime import UTC, datetime

import pytest
from prometheus_client import REGISTRY

from app import daemons
from app.dashboard import briefing
from app.dashboard.models import DailyBriefing
from app.extensions import db
from app.routines import day_close
from tests.assistant.conftest import AgentClient, Reply
from tests.briefing.conftest import outcomes, the_user
from tests.builders import a_habit
from tests.conftest import make_user


def answer(*picks):
    return Reply.says(json.dumps({"picks": [{"signal": s, "meaning": m} for s, m in picks]}))


GOOD = answer(
    ("completion", "You kept going more often than the week before."),
    ("left_open", "Flossing keeps slipping; tonight is a good time to try."),
)


def a_fortnight(app):
    """Ana, with two weeks of a habit checked and another left open."""
    make_user(app)
    with app.app_context():
        user = the_user(app)
        run, floss = a_habit(user, "Run"), a_habit(user, "Floss")
        outcomes(user, run, (2, "DONE"), (3, "DONE"), (4, "DONE"), (9, "MISSED"))
        outcomes(user, floss, (2, "MISSED"), (3, "MISSED"), (4, "DONE"))
        db.session.remove()
    return AgentClient(app)


def door_calls(outcome):
    return REGISTRY.get_sample_value("beyou_llm_door_calls_total", {"door": "briefing", "outcome": outcome}) or 0


def status_of(html):
    return re.search(r'data-briefing-status="([A-Z]+)"', html).group(1)


def briefing_id_in(html):
    return re.search(r"briefing=([0-9a-f-]{36})", html).group(1)


def test_the_briefing_shows_the_facts_and_the_model_s_lines(make_agent_app, fake):
    client = a_fortnight(make_agent_app())
    fake.script("mistral", GOOD)
    before = door_calls("ok")
    page = client.http.get("/daily-briefing", headers={"HX-Request": "true"})
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and status_of(html) == "READY"
    assert "67% done" in html and "Floss" in html  # the facts, computed here
    assert "You kept going more often than the week before." in html
    (request,) = fake.requests("mistral")
    assert request.streamed is False and "already_on_screen_do_not_repeat" in json.dumps(request.body)
    assert door_calls("ok") == before + 1


def test_a_malformed_answer_is_asked_for_once_more_with_a_json_only_warning(make_agent_app, fake):
    client = a_fortnight(make_agent_app())
    fake.script("mistral", Reply.says("Here you go: completion looks fine"), GOOD)
    html = client.http.get("/daily-briefing").get_data(as_text=True)
    assert status_of(html) == "READY"
    first, second = fake.requests("mistral")
    assert "ONLY the JSON object" in json.dumps(second.body) and "ONLY the JSON object" not in json.dumps(first.body)


@pytest.mark.parametrize(
    ("mistral", "gemini", "status", "line"),
    [
        pytest.param(
            [Reply.says("not json"), Reply.says("still not json")],
            [],
            "UNUSABLE",
            "The AI answered, but its words for today's briefing could not be used",
            id="malformed-twice",
        ),
        pytest.param(
            [Reply.fails(500)], [Reply.fails(503)], "FAILED", "No words for today's briefing", id="chain-down"
        ),
    ],
)
def test_without_text_the_briefing_is_still_the_facts_and_a_line_that_says_why(
    make_agent_app, fake, mistral, gemini, status, line
):
    client = a_fortnight(make_agent_app())
    fake.script("mistral", *mistral)
    if gemini:
        fake.script("gemini", *gemini)
    page = client.http.get("/daily-briefing")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and status_of(html) == status
    assert "67% done" in html and 'data-testid="briefing-fallback"' in html and line in html


def test_a_failed_briefing_is_not_retried_on_the_next_opening(make_agent_app, fake):
    client = a_fortnight(make_agent_app())
    fake.script("mistral", Reply.fails(500))
    fake.script("gemini", Reply.fails(500))
    client.http.get("/daily-briefing")
    again = client.http.get("/daily-briefing").get_data(as_text=True)
    assert status_of(again) == "FAILED"
    assert len(fake.requests("mistral")) == 1 and len(fake.requests("gemini")) == 1


def test_an_empty_bucket_leaves_the_facts_and_asks_no_model(make_agent_app, fake):
    app = make_agent_app(BRIEFING_RATE_LIMIT="1 per day")
    client = a_fortnight(app)
    fake.script("mistral", GOOD)
    client.http.get("/daily-briefing")
    with app.app_context():
        db.session.execute(db.delete(DailyBriefing))  # as if another day had begun
        db.session.commit()
    html = client.http.get("/daily-briefing").get_data(as_text=True)
    assert status_of(html) == "FAILED" and "67% done" in html
    assert len(fake.requests("mistral")) == 1


def test_an_outage_is_not_billed_to_the_bucket_but_a_text_is(make_agent_app, fake):
    app = make_agent_app(order="mistral", BRIEFING_RATE_LIMIT="1 per day")
    client = a_fortnight(app)

    def a_new_day():
        with app.app_context():
            db.session.execute(db.delete(DailyBriefing))
            db.session.commit()
            db.session.remove()

    fake.script("mistral", Reply.fails(503))
    assert status_of(client.http.get("/daily-briefing").get_data(as_text=True)) == "FAILED"
    a_new_day()
    fake.script("mistral", GOOD)
    assert status_of(client.http.get("/daily-briefing").get_data(as_text=True)) == "READY"  # the unit came back
    a_new_day()
    assert status_of(client.http.get("/daily-briefing").get_data(as_text=True)) == "FAILED"  # the text spent it
    assert len(fake.requests("mistral")) == 2


def test_numbers_are_never_taken_from_the_model(make_agent_app, fake):
    client = a_fortnight(make_agent_app())
    fake.script(
        "mistral",
        answer(
            ("completion", "You finished 99% of your items, 12 more than before."),
            ("left_open", "Flossing keeps slipping."),
            ("goals", "Your goal is close."),  # no goal exists: no such signal
            ("mood", "Your mood rose."),
        ),
    )  # no mood was logged
    html = client.http.get("/daily-briefing").get_data(as_text=True)
    assert "99%" not in html and "12 more" not in html  # (asset fingerprints in the page may hold "99")
    assert "Flossing keeps slipping." in html and "Your goal is close." not in html and "Your mood rose." not in html
    assert "67% done" in html


def test_a_slow_model_answers_pending_and_the_poll_reads_the_stored_text(make_agent_app, fake):
    app = make_agent_app(BRIEFING_WAIT_SECONDS=0.2)
    client = a_fortnight(app)
    fake.script("mistral", Reply(text=GOOD.text, first_byte_delay=1.5))
    page = client.http.get("/daily-briefing", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert status_of(page) == "PENDING" and "67% done" in page  # the facts at once
    assert 'hx-get="/daily-briefing/narrative?briefing=' in page
    url = f"/daily-briefing/narrative?briefing={briefing_id_in(page)}&attempt=1"
    for _ in range(100):
        polled = client.http.get(url).get_data(as_text=True)
        if status_of(polled) != "PENDING":
            break
        threading.Event().wait(0.1)
    assert status_of(polled) == "READY" and "You kept going" in polled
    assert len(fake.requests("mistral")) == 1  # the polls started nothing


def test_a_generation_outliving_its_request_can_be_waited_for(make_agent_app, fake):
    """The thread writing the text is tracked: a test's cleanup (or a CLI) waits for it before the
    rows go, instead of emptying the tables under a thread still writing to them."""
    app = make_agent_app(BRIEFING_WAIT_SECONDS=0)
    client = a_fortnight(app)
    fake.script("mistral", Reply(text=GOOD.text, first_byte_delay=0.5))
    page = client.http.get("/daily-briefing").get_data(as_text=True)
    assert status_of(page) == "PENDING"
    daemons.wait_for_tracked()
    with app.app_context():
        assert db.session.get(DailyBriefing, uuid.UUID(briefing_id_in(page))).status == "READY"


def test_the_poll_gives_up_after_its_last_attempt_with_the_fallback_line(make_agent_app, fake):
    app = make_agent_app(BRIEFING_WAIT_SECONDS=0)
    client = a_fortnight(app)
    fake.script("mistral", Reply(text=GOOD.text, first_byte_delay=1))
    page = client.http.get("/daily-briefing").get_data(as_text=True)
    last = client.http.get(f"/daily-briefing/narrative?briefing={briefing_id_in(page)}&attempt=10")
    assert 'data-testid="briefing-fallback"' in last.get_data(as_text=True)


def test_another_user_s_briefing_is_not_found_like_an_unknown_one(make_agent_app, fake):
    app = make_agent_app(BRIEFING_WAIT_SECONDS=0)
    client = a_fortnight(app)
    fake.script("mistral", GOOD)
    theirs = briefing_id_in(client.http.get("/daily-briefing").get_data(as_text=True))
    make_user(app, email="bruno@example.com", name="Bruno")
    bruno = AgentClient(app, email="bruno@example.com")
    foreign = bruno.http.get(f"/daily-briefing/narrative?briefing={theirs}")
    unknown = bruno.http.get("/daily-briefing/narrative?briefing=00000000-0000-0000-0000-000000000000")
    assert foreign.status_code == unknown.status_code == 404


def test_concurrent_openings_join_one_generation(make_agent_app, fake):
    app = make_agent_app()
    a_fortnight(app)
    clients = [AgentClient(app), AgentClient(app)]
    fake.script("mistral", Reply(text=GOOD.text, first_byte_delay=1))
    pages = [None, None]

    def open_it(index):
        pages[index] = clients[index].http.get("/daily-briefing").get_data(as_text=True)

    threads = [threading.Thread(target=open_it, args=(index,)) for index in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [status_of(page) for page in pages] == ["READY", "READY"]
    assert len(fake.requests("mistral")) == 1


def test_two_worker_processes_claim_the_day_s_briefing_once(make_agent_app, fake):
    """Two apps on one database stand for two workers: the claim is on the row, not in memory."""
    first, second = make_agent_app(), make_agent_app()
    a_fortnight(first)
    fake.script("mistral", Reply(text=GOOD.text, first_byte_delay=1))
    pages = {}

    def open_in(app):
        pages[app] = AgentClient(app).http.get("/daily-briefing").get_data(as_text=True)

    threads = [threading.Thread(target=open_in, args=(app,)) for app in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert {status_of(page) for page in pages.values()} == {"READY"}
    assert len(fake.requests("mistral")) == 1


def test_a_claim_whose_worker_died_reads_as_failed_and_is_not_retried(make_agent_app, fake):
    app = make_agent_app(BRIEFING_CLAIM_SECONDS=0)
    client = a_fortnight(app)
    with app.app_context():
        user = the_user(app)
        db.session.add(
            DailyBriefing(
                user_id=user.id,
                day=briefing.today_for(user),
                facts=briefing.facts(user),
                status="GENERATING",
                claimed_at=datetime(2026, 1, 1, tzinfo=UTC),
            )
        )
        db.session.commit()
        db.session.remove()
    html = client.http.get("/daily-briefing").get_data(as_text=True)
    assert status_of(html) == "FAILED" and fake.requests("mistral") == []


def test_the_nightly_day_close_never_generates_a_briefing(make_agent_app, fake):
    app = make_agent_app()
    a_fortnight(app)
    with app.app_context():
        day_close.close_days()
        assert db.session.scalar(db.select(db.func.count()).select_from(DailyBriefing)) == 0
    assert fake.requests("mistral") == []
