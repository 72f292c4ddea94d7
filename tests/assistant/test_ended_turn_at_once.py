"""A fresh watcher of a turn that has ended, or whose worker was killed, hears the ending at once
(issue #33, item 3): the database is asked once before the first wait, not at the first silent
beat. At the production heartbeat, so that a heartbeat's wait would show."""

import time

from app.assistant import services as assistant
from app.extensions import db
from tests.assistant.conftest import AgentClient, make_user
from tests.assistant.test_durability import claimed_turn, lease_lapses

PRODUCTION_HEARTBEAT = 15
AT_ONCE = 5  # seconds: far below the heartbeat, far above a primary-key read on a loaded machine


def first_frames(ana, turn_id):
    """The stream's first two frames and how long they took, as a fresh page opens it (no Last-Event-ID)."""
    started = time.monotonic()
    response = ana.http.get(f"/ai/agent/turns/{turn_id}/stream", buffered=False)
    try:
        frames = iter(response.response)
        connected, second = next(frames), next(frames)
    finally:
        response.close()
    return connected, second, time.monotonic() - started


def assert_interrupted_at_once(ana, turn_id):
    """The watcher's first frame after `: connected` is the turn's ending, not a `: ping`."""
    connected, ending, took = first_frames(ana, turn_id)
    assert connected.startswith(b": connected")
    assert ending.startswith(b"event: failed") and b'data-error="TURN_INTERRUPTED"' in ending
    assert took < AT_ONCE


def test_a_fresh_watcher_of_a_turn_whose_worker_was_killed_hears_it_ended_at_once(make_agent_app, fake):
    app = make_agent_app(AGENT_HEARTBEAT_SECONDS=PRODUCTION_HEARTBEAT)
    make_user(app)
    ana = AgentClient(app)
    turn_id = claimed_turn(app, ana, "plan my week")  # RUNNING, its runner nowhere: a killed worker's
    lease_lapses(app, turn_id)

    assert_interrupted_at_once(ana, turn_id)


def test_a_fresh_watcher_of_a_turn_the_sweep_ended_hears_the_ending_at_once(make_agent_app, fake):
    app = make_agent_app(AGENT_HEARTBEAT_SECONDS=PRODUCTION_HEARTBEAT)
    make_user(app)
    ana = AgentClient(app)
    turn_id = claimed_turn(app, ana, "plan my week")
    lease_lapses(app, turn_id)
    with app.app_context():
        assert assistant.end_abandoned_turns() == 1
        db.session.remove()

    assert_interrupted_at_once(ana, turn_id)


def test_a_watcher_hears_what_the_dead_worker_had_said_and_then_the_ending_at_once(make_agent_app, fake):
    app = make_agent_app(AGENT_HEARTBEAT_SECONDS=PRODUCTION_HEARTBEAT)
    make_user(app)
    ana = AgentClient(app)
    turn_id = claimed_turn(app, ana, "plan my week")
    app.extensions["turn_log"].send(turn_id, "token", "Half a")  # said before its worker was killed
    lease_lapses(app, turn_id)

    started = time.monotonic()
    response = ana.http.get(f"/ai/agent/turns/{turn_id}/stream", buffered=False)
    try:
        frames = [frame for _, frame in zip(range(3), response.response, strict=False)]
    finally:
        response.close()
    assert frames[0].startswith(b": connected")
    assert frames[1].startswith(b"id: 1\nevent: token")
    assert frames[2].startswith(b"event: failed") and b'data-error="TURN_INTERRUPTED"' in frames[2]
    assert time.monotonic() - started < AT_ONCE
