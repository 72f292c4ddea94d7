"""A Redis that restarts, or stays away a while, costs no word and no turn (issue #33, item 2).

Each test runs a redis-server of its own and kills it mid-turn; it comes back empty (nothing is
saved), as a restarted Redis without persistence does. The runner never waits on Redis (the turn
log keeps this process's copy and relays it), watchers here read that copy, a watcher that reads
Redis (as one on another worker does) waits the outage out and goes on from its last id once the
relay has rebuilt the stream, and the rate limits and stream slots count in the process meanwhile.
"""

import threading
import time
import uuid
from html import unescape

from app.assistant import stream_slots
from app.assistant.models.chats import ChatMessage
from app.assistant.turn_log import RedisTurnLog
from app.extensions import RedisOrHere, db
from tests.assistant.conftest import AgentClient, LiveStream, make_user, wait_for_turn
from tests.assistant.own_redis import own_redis  # noqa: F401 - the fixture
from tests.conftest import sign_in
from tests.fakes import Reply

WORDS = [f"word{n} " for n in range(1, 42)]  # 41 words, as in the issue
PRODUCTION_HEARTBEAT = 15


def redis_app(make_agent_app, server, **config):
    return make_agent_app(REDIS_URL=server.url, RATELIMIT_STORAGE_URI=server.url, **config)


class Watcher(threading.Thread):
    """A browser's stream read on a thread of its own, so that it is waiting in the log (a
    blocked XREAD, for a watcher that reads Redis) when Redis goes away."""

    def __init__(self, live_stream, first_word=True):
        super().__init__(daemon=True)
        self.stream = live_stream
        if first_word:
            live_stream.until("token")

    def run(self):
        self.stream.rest()

    def events(self, within=60):
        self.join(within)
        assert not self.is_alive(), "the stream never ended"
        return self.stream.events


def assert_whole(events):
    """Every event once, in order, from the first, ending with `done`; the tokens are the answer
    (words that came together may share one)."""
    assert [e["id"] for e in events] == list(range(1, len(events) + 1))
    assert [e["name"] for e in events] == ["token"] * (len(events) - 1) + ["done"]
    assert "".join(unescape(e["data"]) for e in events[:-1]) == "".join(WORDS)


def words_in(events):
    """How many words the stream's `token` events carried so far."""
    return sum(len(unescape(e["data"]).split()) for e in events if e["name"] == "token")


def saved_answer(app):
    with app.app_context():
        answer = db.session.scalars(db.select(ChatMessage).order_by(ChatMessage.seq.desc())).first()
        return "".join(segment["text"] for segment in answer.segments if segment["type"] == "text")


def test_a_redis_restart_mid_answer_loses_no_word_and_no_turn(own_redis, make_agent_app, fake):  # noqa: F811
    here = redis_app(make_agent_app, own_redis)  # the worker that runs the turn
    there = redis_app(make_agent_app, own_redis)  # another worker: its log is Redis alone
    make_user(here)
    ana, ana_elsewhere = AgentClient(here), AgentClient(there)
    # Two seconds of words, then a pause in which Redis comes back: the turn is still running.
    fake.script("mistral", Reply.says(*WORDS, pace=0.08, stall_after=30, stall_for=3))
    turn_id = ana.send_ok(ana.new_chat(), "tell me forty-one words")
    local = ana.open_stream(turn_id)  # claims the turn: it runs here
    local.until("token")
    remote = Watcher(ana_elsewhere.open_stream(turn_id))
    remote.start()

    own_redis.stop()
    while words_in(local.events) < 30:  # the words the runner sends while Redis is away
        local.until("token")
    own_redis.start()  # empty: the relay rebuilds the turn's stream from its first event

    local.rest()
    assert_whole(local.events)
    assert_whole(remote.events())
    assert wait_for_turn(here, turn_id).value == "DONE"
    assert saved_answer(here) == "".join(WORDS)


def test_a_watcher_that_comes_back_from_its_last_id_gets_nothing_twice_after_a_restart(
    own_redis,  # noqa: F811
    make_agent_app,
    fake,
):
    here, there = redis_app(make_agent_app, own_redis), redis_app(make_agent_app, own_redis)
    make_user(here)
    ana, ana_elsewhere = AgentClient(here), AgentClient(there)
    fake.script("mistral", Reply.says(*WORDS, pace=0.05, stall_after=25, stall_for=3))
    turn_id = ana.send_ok(ana.new_chat(), "tell me forty-one words")
    local = ana.open_stream(turn_id)
    while words_in(local.events) < 10:
        local.until("token")
    own_redis.stop()
    seen = local.events[-1]["id"]
    # The browser lost its connection after the event it last saw and comes back through another
    # worker, whose log is Redis alone, while Redis is away.
    url = f"/ai/agent/turns/{turn_id}/stream"
    back = LiveStream(ana_elsewhere.http.get(url, headers={"Last-Event-ID": str(seen)}, buffered=False))
    resumed = Watcher(back, first_word=False)
    resumed.start()
    while words_in(local.events) < 25:
        local.until("token")
    own_redis.start()

    events = resumed.events()
    local.rest()
    assert [e["id"] for e in events] == list(range(seen + 1, local.events[-1]["id"] + 1))
    assert_whole(local.events[:seen] + events)


def test_a_redis_away_for_the_whole_turn_ends_it_whole_and_the_app_recovers_when_it_returns(
    own_redis,  # noqa: F811
    make_agent_app,
    fake,
    monkeypatch,
):
    """At the production heartbeat: a watcher reading Redis waits out its beats in the outage and
    hears the ending from the database; nothing waits on Redis for longer than a pause."""
    monkeypatch.setattr(RedisOrHere, "AWAY_SECONDS", 0.5)
    monkeypatch.setattr(stream_slots.RedisStreamSlots, "AWAY_SECONDS", 0.5)
    here = redis_app(make_agent_app, own_redis, AGENT_HEARTBEAT_SECONDS=PRODUCTION_HEARTBEAT)
    there = redis_app(make_agent_app, own_redis, AGENT_HEARTBEAT_SECONDS=PRODUCTION_HEARTBEAT)
    make_user(here)
    ana, ana_elsewhere = AgentClient(here), AgentClient(there)
    chat_id = ana.new_chat()
    own_redis.stop()

    fake.script("mistral", Reply.says(*WORDS, pace=0.05))
    turn_id = ana.send_ok(chat_id, "tell me forty-one words")  # the budget is checked and spent here
    local = ana.open_stream(turn_id)  # its stream slot is taken in this process
    remote = Watcher(ana_elsewhere.open_stream(turn_id), first_word=False)
    remote.start()
    local.rest()
    assert_whole(local.events)
    assert wait_for_turn(here, turn_id).value == "DONE"
    (ending,) = remote.events()  # a beat of silence (Redis is away), then the database
    assert ending["name"] == "done" and ending["id"] is None
    assert all(word.strip() in ending["data"] for word in WORDS)
    assert saved_answer(here) == "".join(WORDS)

    own_redis.start()
    fake.script("mistral", Reply.says(*WORDS, pace=0.01))
    time.sleep(0.6)  # past the pause after which the limits and slots ask Redis again
    again = ana.send_ok(chat_id, "once more")
    again_events = ana.stream(again)
    assert_whole(again_events)
    counted = own_redis.client()
    assert counted.keys("*agent-turns*")  # the budget counts in Redis again
    # The turn log is relayed again, the outage's turn too: every event its watchers had.
    for turn, events in ((turn_id, local.events), (again, again_events)):
        assert _eventually(lambda turn=turn, events=events: counted.xlen(f"beyou:turn:{turn}") == len(events))


def _eventually(check, within=10):
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return False


def test_while_redis_is_away_every_limit_still_holds_in_the_process(own_redis, make_agent_app, fake):  # noqa: F811
    """Not fail-closed (signing in and chatting go on) and not fail-open (wrong passwords are
    still counted, the hour's budget and the two-stream cap still refuse): each worker counts."""
    app = redis_app(make_agent_app, own_redis, AGENT_RATE_LIMIT="3 per hour", LOGIN_LOCKOUT_ATTEMPTS=2)
    make_user(app)
    make_user(app, email="bruno@example.com", name="Bruno")
    own_redis.stop()

    guesser = app.test_client()
    for _ in range(2):
        assert sign_in(guesser, email="bruno@example.com", password="a guess").status_code == 422  # refused, not a 500
    locked = sign_in(guesser, email="bruno@example.com")  # the right password, too late
    assert locked.status_code < 500 and "paused" in locked.get_data(as_text=True)

    ana = AgentClient(app)  # signs in: the lockout of another email is not hers
    fake.script("mistral", Reply.says("a", " b", pace=0.5), Reply.says("c", " d", pace=0.5))
    turns = [ana.send_ok(ana.new_chat(), f"message {n}") for n in range(4)]
    streams = [ana.open_stream(turn) for turn in turns[:2]]
    for stream in streams:
        stream.until("token")
    (refused,) = ana.stream(turns[2])  # a third live answer on this worker
    assert 'data-error="TOO_MANY_STREAMS"' in refused["data"]
    for stream in streams:
        assert stream.rest()[-1]["name"] == "done"
    assert ana.stream(turns[3])[-1]["name"] == "done"  # the third message of the hour
    assert ana.send(ana.new_chat(), "a fourth").status_code == 429


def test_a_turn_log_that_redis_lost_is_rebuilt_with_the_ids_its_watchers_know(own_redis):  # noqa: F811
    prefix = f"beyou:test:{uuid.uuid4().hex}:"
    runner_side, elsewhere = RedisTurnLog(own_redis.url, prefix), RedisTurnLog(own_redis.url, prefix)
    runner_side.begin("turn")
    runner_side.send("turn", "token", "one")
    assert [e.id for e in elsewhere.read("turn", 0, wait=10)] == [1]

    own_redis.stop()
    for word in ("two", "three"):
        runner_side.send("turn", "token", word)  # never raises, never waits on Redis
    runner_side.send("turn", "done", "the end")
    assert elsewhere.read("turn", 1, wait=0.3) == []  # away: a silent wait, not an error
    assert [e.data for e in runner_side.read("turn", 1, wait=0)] == ["two", "three", "the end"]
    own_redis.start()  # empty

    followed, after, give_up = [], 1, time.monotonic() + 30
    while (not followed or not followed[-1].terminal) and time.monotonic() < give_up:
        followed += elsewhere.read("turn", after, wait=10)
        after = followed[-1].id if followed else after
    assert [(e.id, e.data) for e in followed] == [(2, "two"), (3, "three"), (4, "the end")]
    assert [e.id for e in elsewhere.read("turn", 0, wait=1)] == [1, 2, 3, 4]
