"""Watchers on Redis: a blocked `XREAD` and the client's socket timeout must never meet.

redis-py's socket timeout (5 s) is shorter than the production heartbeat (15 s), so these tests
run with the real heartbeat, or a client timeout shorter than the heartbeat they use.
"""

import time
import uuid

import pytest

from app.assistant.turn_log import RedisTurnLog
from tests.assistant.conftest import AgentClient, Reply, chain_env, make_user, read_events, wait_for_turn
from tests.conftest import TEST_REDIS_URL

pytestmark = pytest.mark.skipif(not TEST_REDIS_URL, reason="needs BEYOU_TEST_REDIS_URL (a real Redis)")

PRODUCTION_HEARTBEAT = 15


def with_socket_timeout(url, seconds):
    return f"{url}{'&' if '?' in url else '?'}socket_timeout={seconds}"


def test_a_read_waits_out_a_wait_longer_than_the_socket_timeout():
    log = RedisTurnLog(with_socket_timeout(TEST_REDIS_URL, 0.5), prefix=f"beyou:test:{uuid.uuid4().hex}:")
    started = time.monotonic()
    assert log.read("silent-turn", 0, wait=2) == []
    assert time.monotonic() - started >= 2


def test_a_read_returns_an_event_sent_while_it_waits():
    log = RedisTurnLog(with_socket_timeout(TEST_REDIS_URL, 0.5), prefix=f"beyou:test:{uuid.uuid4().hex}:")
    log.send("turn", "token", "one")
    (first,) = log.read("turn", 0, wait=2)
    assert (first.id, first.name, first.data) == (1, "token", "one")
    assert log.read("turn", 1, wait=0.3) == []


def test_a_silent_turn_is_pinged_at_the_production_heartbeat_and_its_watcher_stays_open(make_agent_app, fake):
    llm_env = {**chain_env(fake, "mistral"), "BEYOU_LLM_FIRST_EVENT_TIMEOUT": "40", "BEYOU_LLM_TOTAL_TIMEOUT": "60"}
    app = make_agent_app(AGENT_HEARTBEAT_SECONDS=PRODUCTION_HEARTBEAT, REDIS_URL=TEST_REDIS_URL, LLM_ENV=llm_env)
    make_user(app)
    ana = AgentClient(app)
    fake.script("mistral", Reply.says("Still", " here", first_byte_delay=PRODUCTION_HEARTBEAT + 3))
    turn_id = ana.send_ok(ana.new_chat(), "think it over")
    response = ana.http.get(f"/ai/agent/turns/{turn_id}/stream", buffered=False)
    frames = iter(response.response)
    started = time.monotonic()
    assert next(frames).startswith(b": connected")
    assert next(frames).startswith(b": ping")  # the silent stretch, not a Redis TimeoutError
    assert time.monotonic() - started >= PRODUCTION_HEARTBEAT - 1
    events = read_events(_Rest(frames, response))
    assert [e["name"] for e in events][-1] == "done"
    assert "".join(e["data"] for e in events if e["name"] == "token") == "Still here"  # the two, together or not
    assert wait_for_turn(app, turn_id).value == "DONE"


def test_an_ended_turn_watched_from_its_last_id_is_answered_from_the_database(make_agent_app, fake):
    app = make_agent_app(AGENT_HEARTBEAT_SECONDS=2, REDIS_URL=with_socket_timeout(TEST_REDIS_URL, 0.5))
    make_user(app)
    ana = AgentClient(app)
    fake.script("mistral", Reply.fails(429))
    fake.script("gemini", Reply.fails(500))
    turn_id = ana.send_ok(ana.new_chat(), "plan my week")
    (refused,) = ana.stream(turn_id)
    assert wait_for_turn(app, turn_id).value == "ENDED"
    (again,) = ana.stream(turn_id, last_event_id=refused["id"])
    assert again["name"] == "failed" and 'data-error="AI_UNAVAILABLE"' in again["data"]


class _Rest:
    """The rest of a streamed response, shaped like one for `read_events`."""

    def __init__(self, frames, response):
        self.response, self._close = frames, response.close

    def close(self):
        self._close()
