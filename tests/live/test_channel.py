"""The live channel in one process: who hears what, and when a socket is refused or closed."""

import json
import time

import pytest
from simple_websocket import Client, ConnectionClosed, ConnectionError

from tests.live.conftest import QUIET, Browser, register

ARRIVAL = 5  # seconds a message may take on a loaded machine (it takes milliseconds)


def heard(page, timeout=ARRIVAL):
    text = page.receive(timeout=timeout)
    return json.loads(text) if text is not None else None


def open_pages(live_app, count, deadline=ARRIVAL):
    """Wait until the process holds `count` sockets (a socket joins just after its handshake)."""
    hub = live_app.extensions["live"].hub
    ends = time.monotonic() + deadline
    while hub.count() != count and time.monotonic() < ends:
        time.sleep(0.02)
    return hub.count()


def closed_with(page, timeout=ARRIVAL):
    """The close code a page's socket ended with (None: still open after `timeout`)."""
    ends = time.monotonic() + timeout
    while time.monotonic() < ends:
        try:
            page.receive(timeout=0.1)
        except ConnectionClosed:
            return page.close_reason
    return None


def test_a_write_reaches_the_users_other_pages_and_not_the_page_that_made_it(live_app, server):
    ana = Browser(server, register(live_app, "Ana"))
    writer, other = ana.open_page(tab="writer"), ana.open_page(tab="other")
    assert open_pages(live_app, 2) == 2
    ana.post("/ideas", tab="writer", text="Learn to juggle")
    assert heard(other) == {"domains": ["ideas"], "origin": "tab:writer"}
    assert heard(writer, timeout=QUIET) is None


def test_another_users_writes_never_arrive(live_app, server):
    ana, bruno = Browser(server, register(live_app, "Ana")), Browser(server, register(live_app, "Bruno"))
    anas_page, brunos_page = ana.open_page(tab="a"), bruno.open_page(tab="b")
    assert open_pages(live_app, 2) == 2
    ana.post("/ideas", tab="elsewhere", text="Ana's secret plan")
    assert heard(anas_page)["domains"] == ["ideas"]
    assert heard(brunos_page, timeout=QUIET) is None
    bruno.post("/ideas", text="Bruno's note")
    assert heard(brunos_page) == {"domains": ["ideas"], "origin": None}
    assert heard(anas_page, timeout=QUIET) is None


def test_one_write_is_one_message_even_when_it_announces_twice(live_app, server):
    ana = Browser(server, register(live_app, "Ana"))
    page = ana.open_page()
    assert open_pages(live_app, 1) == 1
    note = ana.post("/ideas", text="Paint the door")
    assert heard(page)["domains"] == ["ideas"]
    assert note.headers["HX-Trigger"].count("domain:ideas") == 1
    assert heard(page, timeout=QUIET) is None


def test_a_signed_out_socket_is_refused_before_the_handshake(live_app, server):
    with pytest.raises(ConnectionError):
        Client.connect(server.replace("http://", "ws://") + "/live", headers={"Origin": "http://127.0.0.1"})
    upgrade = {"Upgrade": "websocket", "Connection": "Upgrade"}
    assert live_app.test_client().get("/live", headers=upgrade).status_code == 401
    assert open_pages(live_app, 0) == 0


def test_a_socket_opened_from_another_site_is_refused(live_app, server):
    ana = Browser(server, register(live_app, "Ana"))
    with pytest.raises(ConnectionError):
        ana.open_page(origin="https://evil.example")
    assert open_pages(live_app, 0) == 0


def test_signing_out_closes_that_sign_ins_pages_only(live_app, server):
    email = register(live_app, "Ana")
    laptop, phone = Browser(server, email), Browser(server, email)
    on_laptop, on_phone = laptop.open_page(), phone.open_page()
    assert open_pages(live_app, 2) == 2
    laptop.post("/logout")
    assert closed_with(on_laptop) == 4401
    assert open_pages(live_app, 1) == 1
    Browser(server, email).post("/ideas", text="Still here")
    assert heard(on_phone)["domains"] == ["ideas"]


def test_signing_out_everywhere_closes_every_page_of_the_user(live_app, server):
    email = register(live_app, "Ana")
    laptop, phone = Browser(server, email), Browser(server, email)
    pages = [laptop.open_page(), laptop.open_page(), phone.open_page()]
    assert open_pages(live_app, 3) == 3
    phone.post("/configuration/sign-out-everywhere")
    assert [closed_with(page) for page in pages] == [4401, 4401, 4401]
    assert open_pages(live_app, 0) == 0
    with pytest.raises(ConnectionError):
        laptop.open_page()  # the sign-in is over: a reconnect is refused too


def test_a_page_that_comes_back_hears_the_next_write(live_app, server):
    """A dropped socket leaves the channel; the page's new socket (live.js reconnects with
    backoff, then refreshes everything) joins it again and hears what follows."""
    ana = Browser(server, register(live_app, "Ana"))
    page = ana.open_page()
    assert open_pages(live_app, 1) == 1
    page.close()
    assert open_pages(live_app, 0) == 0
    ana.post("/ideas", text="While the page was away")
    again = ana.open_page()
    assert open_pages(live_app, 1) == 1
    ana.post("/ideas", text="After it came back")
    assert heard(again)["domains"] == ["ideas"]
