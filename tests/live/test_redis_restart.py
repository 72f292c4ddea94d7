"""The live channel through a Redis restart (issue #33, item 2): while Redis is away a write
still reaches this process's pages; when it is back the listener follows the channel again, and
since writes on other workers were missed meanwhile, every page here refreshes every domain."""

import json
import time

import pytest

from app import create_app, events
from app.extensions import db
from tests.assistant.own_redis import own_redis  # noqa: F401 - the fixture
from tests.browser.conftest import serve
from tests.live.conftest import Browser, register

ARRIVAL = 10  # seconds a message may take on a loaded machine (it takes milliseconds)


def heard(page, timeout=ARRIVAL):
    text = page.receive(timeout=timeout)
    return json.loads(text) if text is not None else None


@pytest.fixture
def redis_live_app(tmp_path, own_redis):  # noqa: F811
    app = create_app(
        "test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'live.sqlite3'}", REDIS_URL=own_redis.url,
        RATELIMIT_STORAGE_URI="memory://",
    )  # fmt: skip
    with app.app_context():
        db.create_all()
    yield app
    app.extensions["live"].close()  # before its Redis goes for good
    with app.app_context():
        db.engine.dispose()


def listening(channel, within=ARRIVAL):
    deadline = time.monotonic() + within
    while not channel.listening.is_set() and time.monotonic() < deadline:
        time.sleep(0.02)
    return channel.listening.is_set()


def test_live_updates_flow_again_after_a_redis_restart_and_the_pages_catch_up(redis_live_app, own_redis):  # noqa: F811
    channel = redis_live_app.extensions["live"]
    with serve(redis_live_app) as server:
        ana = Browser(server, register(redis_live_app, "Ana"))
        page = ana.open_page(tab="reader")
        assert listening(channel)
        ana.post("/ideas", tab="writer", text="Before the restart")
        assert heard(page) == {"domains": ["ideas"], "origin": "tab:writer"}

        own_redis.stop()
        ana.post("/ideas", tab="writer", text="While Redis is away")
        assert heard(page) == {"domains": ["ideas"], "origin": "tab:writer"}  # this process's pages still hear
        own_redis.start()

        # Back on the channel: what other workers wrote meanwhile never arrived, so all refresh.
        assert heard(page) == {"domains": sorted(events.DOMAINS), "origin": None}
        ana.post("/ideas", tab="writer", text="After the restart")
        assert heard(page) == {"domains": ["ideas"], "origin": "tab:writer"}
        assert own_redis.client().pubsub_numsub(channel.name) == [(channel.name.encode(), 1)]
