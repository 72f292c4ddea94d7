"""Two web processes (the Procfile's gunicorn, one gevent worker each) sharing one Redis: a write
served by one reaches the pages open on the other, and a sign-out on one closes them there."""

import json
import os
import queue
import uuid
from urllib.parse import urlsplit, urlunsplit

import pytest

from app import create_app
from app.extensions import db
from app.live import RedisChannel
from tests.assistant.test_worker_restarts import ROOT, WebProcess
from tests.conftest import TEST_REDIS_URL
from tests.live.conftest import QUIET, Browser, register
from tests.live.test_channel import closed_with

pytestmark = pytest.mark.skipif(not TEST_REDIS_URL, reason="needs BEYOU_TEST_REDIS_URL (a real Redis)")

ARRIVAL = 10  # seconds: two gunicorn processes on a loaded two-core machine


def heard(page, timeout=ARRIVAL):
    text = page.receive(timeout=timeout)
    return json.loads(text) if text is not None else None


@pytest.fixture
def two_processes(tmp_path):
    database_url = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    app = create_app("test", SQLALCHEMY_DATABASE_URI=database_url, REDIS_URL=None, RATELIMIT_STORAGE_URI="memory://")
    with app.app_context():
        db.create_all()
        db.engine.dispose()
    env = {name: value for name, value in os.environ.items() if not name.startswith("BEYOU_")}
    env.update(
        PATH=f"{ROOT / '.venv' / 'bin'}:{os.environ['PATH']}",
        WEB_CONCURRENCY="1",
        BEYOU_ENV="development",
        BEYOU_SECRET_KEY=f"live-{uuid.uuid4().hex}",  # both processes sign the same cookies
        BEYOU_DATABASE_URL=database_url,
        BEYOU_REDIS_URL=TEST_REDIS_URL,
    )
    with WebProcess(env) as first, WebProcess(env) as second:
        yield app, first.url, second.url


def test_a_write_on_one_process_reaches_the_pages_open_on_the_other_and_only_its_users(two_processes):
    app, first, second = two_processes
    ana_email, bruno_email = register(app, "Ana"), register(app, "Bruno")
    anas_page = Browser(first, ana_email).open_page(tab="on-first")
    brunos_page = Browser(first, bruno_email).open_page()
    Browser(second, ana_email).post("/ideas", tab="on-second", text="Written on the other process")
    assert heard(anas_page) == {"domains": ["ideas"], "origin": "tab:on-second"}
    assert heard(brunos_page, timeout=QUIET) is None


def test_signing_out_on_one_process_closes_the_sign_ins_pages_on_the_other(two_processes):
    app, first, second = two_processes
    email = register(app, "Ana")
    laptop, phone = Browser(first, email), Browser(first, email)
    laptop_page, phone_page = laptop.open_page(), phone.open_page()
    laptop.base_url = second  # the same sign-in (its cookie), now served by the other process
    laptop.post("/logout")
    assert closed_with(laptop_page, timeout=ARRIVAL) == 4401
    Browser(second, email).post("/ideas", text="The phone still hears")
    assert heard(phone_page)["domains"] == ["ideas"]


class Page:
    """What a channel's hub hands a message to: a stand-in for one open socket."""

    def __init__(self, user_id):
        self.user_id, self.sign_in, self.tab = user_id, "sign-in", None
        self.heard = queue.Queue()

    def send(self, text):
        self.heard.put(text)

    def close(self):
        pass


def test_apps_on_different_databases_of_one_redis_do_not_hear_each_other():
    """Pub/sub ignores Redis's database number; the channel's name carries it."""
    url = urlsplit(TEST_REDIS_URL)
    other_database = urlunsplit(url._replace(path=f"/{(int(url.path.strip('/') or 0) + 1) % 16}"))
    here, there = RedisChannel(TEST_REDIS_URL), RedisChannel(other_database)
    user = str(uuid.uuid4())
    mine, theirs = Page(user), Page(user)
    here.hub.join(mine)
    there.hub.join(theirs)
    here.listen()
    there.listen()
    here.publish({"user": user, "domains": ["ideas"]})
    assert json.loads(mine.heard.get(timeout=ARRIVAL))["domains"] == ["ideas"]
    with pytest.raises(queue.Empty):
        theirs.heard.get(timeout=QUIET)
