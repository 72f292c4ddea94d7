"""The live socket opens only for the app's own pages: the Origin must be the app's in scheme, host
and port — the request's own origin (as ProxyFix rebuilds it behind BEYOU_PROXY_COUNT proxies) or
BEYOU_PUBLIC_URL's. The host alone is not enough: an `https://` page was once let in while the app
served `http://`, and so was another port of the same host. A handshake without an Origin is no
browser's (browsers always send one) and keeps being let in."""

from urllib.parse import urlsplit

import pytest
from simple_websocket import Client, ConnectionError

from app import create_app
from app.extensions import db
from tests.browser.conftest import serve
from tests.live.conftest import OPEN_PAGES, Browser, live_app, pages_closed, register, server
from tests.live.test_channel import open_pages

__all__ = ["live_app", "pages_closed", "server"]  # the live tests' fixtures, used here


@pytest.mark.parametrize(
    "origin",
    ["https://127.0.0.1", "http://127.0.0.1:8443", "http://127.0.0.2", "http://evil.example", "null",
     "ws://127.0.0.1", "http://127.0.0.1.evil.example"],
)  # fmt: skip
def test_a_page_of_another_scheme_port_or_host_is_refused(live_app, server, origin):
    ana = Browser(server, register(live_app, "Ana"))
    with pytest.raises(ConnectionError):
        ana.open_page(origin=origin)
    assert open_pages(live_app, 0) == 0


def test_the_app_s_own_origin_opens_and_so_does_a_handshake_without_origin(live_app, server):
    ana = Browser(server, register(live_app, "Ana"))
    ana.open_page(origin="http://127.0.0.1")  # the Host simple_websocket sends, without a port
    ana.open_page(origin="HTTP://127.0.0.1:80/")  # the same origin, spelt otherwise
    cookie = "; ".join(f"{name}={value}" for name, value in ana.http.cookies.items())
    OPEN_PAGES.append(Client.connect(server.replace("http://", "ws://") + "/live", headers={"Cookie": cookie}))
    assert open_pages(live_app, 3) == 3


@pytest.fixture
def behind_a_proxy(tmp_path):
    """The app as deployed: one proxy in front (BEYOU_PROXY_COUNT=1) and its public address."""
    app = create_app(
        "test", SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'proxied.sqlite3'}", REDIS_URL=None,
        RATELIMIT_STORAGE_URI="memory://", PROXY_COUNT=1, PUBLIC_URL="https://beyou.example",
    )  # fmt: skip
    with app.app_context():
        db.create_all()
    with serve(app) as base_url:
        yield app, base_url
    with app.app_context():
        db.engine.dispose()


def test_behind_a_proxy_the_forwarded_scheme_and_the_public_url_are_the_app_s_origin(behind_a_proxy):
    app, base_url = behind_a_proxy
    ana = Browser(base_url, register(app, "Ana"))
    url = base_url.replace("http://", "ws://") + "/live"
    cookie = "; ".join(f"{name}={value}" for name, value in ana.http.cookies.items())
    host = urlsplit(base_url).hostname

    def opens(origin, proto):
        headers = {"Cookie": cookie, "Origin": origin, "X-Forwarded-Proto": proto, "X-Forwarded-Host": host}
        try:
            OPEN_PAGES.append(Client.connect(url, headers=headers))
        except ConnectionError:
            return False
        return True

    assert opens(f"https://{host}", "https")  # the proxy speaks https for the app
    assert opens("https://beyou.example", "http")  # BEYOU_PUBLIC_URL
    assert not opens(f"http://{host}", "https")  # the page's scheme is not the app's
    assert not opens(f"https://{host}", "http")
    assert not opens("http://beyou.example", "https")
    assert open_pages(app, 2) == 2
