"""Pages and static files travel light: static files are named by their content and cached for a
year, responses are compressed for browsers that accept it, and the assistant's events never are."""

import gzip
import hashlib
import re
from pathlib import Path

import brotli
from flask import Response

from tests.conftest import standalone_app

ROOT = Path(__file__).resolve().parents[2]


def without_tokens(page):
    return re.sub(rb'(csrf-token" content|csrf_token" value)="[^"]+"', rb"\1", page)


def static_urls(html):
    return re.findall(r'(?:href|src)="(/static/[^"#]+)"', html)


def test_static_urls_carry_the_version_of_their_content(client):
    urls = static_urls(client.get("/login").get_data(as_text=True))
    stylesheet = next(url for url in urls if url.startswith("/static/css/app.css"))
    content = (ROOT / "static" / "css" / "app.css").read_bytes()
    assert stylesheet == f"/static/css/app.css?v={hashlib.sha256(content).hexdigest()[:12]}"
    assert all("?v=" in url for url in urls), urls


def test_a_versioned_static_file_is_cached_for_a_year_without_asking_again(client):
    script = next(url for url in static_urls(client.get("/login").get_data(as_text=True)) if "js/app.js" in url)
    response = client.get(script.replace("&amp;", "&"))
    assert response.status_code == 200
    assert response.cache_control.max_age == 365 * 24 * 60 * 60
    assert response.cache_control.immutable and response.cache_control.public
    assert not response.cache_control.no_cache


def test_a_domain_s_static_file_is_served_from_its_package_at_its_usual_url(client):
    """/static/css/mood.css is app/mood/static/css/mood.css, named by its content like the shell's."""
    content = (ROOT / "app" / "mood" / "static" / "css" / "mood.css").read_bytes()
    version = hashlib.sha256(content).hexdigest()[:12]
    response = client.get(f"/static/css/mood.css?v={version}")
    assert response.status_code == 200 and response.get_data() == content
    assert response.cache_control.immutable
    assert client.get("/static/css/no-such.css").status_code == 404
    assert client.get("/static/../app/mood/services.py").status_code == 404


def test_no_two_static_folders_hold_the_same_name():
    """One namespace, /static/...: a domain's file may not hide the shell's or another domain's."""
    folders = [ROOT / "static", *sorted((ROOT / "app").glob("**/static"))]
    names = [path.relative_to(folder) for folder in folders for path in folder.rglob("*") if path.is_file()]
    assert len(folders) > 8
    assert len(names) == len(set(names))


def test_an_unversioned_or_stale_static_file_is_revalidated(client):
    for url in ("/static/js/app.js", "/static/js/app.js?v=000000000000"):
        response = client.get(url)
        assert response.status_code == 200
        assert response.cache_control.max_age != 365 * 24 * 60 * 60 and not response.cache_control.immutable


def test_pages_are_compressed_for_browsers_that_accept_it(client):
    plain = client.get("/login")
    squeezed = client.get("/login", headers={"Accept-Encoding": "gzip"})
    assert "Content-Encoding" not in plain.headers
    assert squeezed.headers["Content-Encoding"] == "gzip"
    # The same page but for its CSRF token, which is signed with the second it was made in.
    assert without_tokens(gzip.decompress(squeezed.data)) == without_tokens(plain.data)
    assert len(squeezed.data) < len(plain.data) / 2
    assert "Accept-Encoding" in squeezed.headers["Vary"]


def test_static_files_are_compressed_too(client):
    """Files are streamed from disk, so they are compressed as a stream: brotli (or zstd), as every
    current browser accepts."""
    response = client.get("/static/vendor/htmx-2.0.11.min.js", headers={"Accept-Encoding": "gzip, br"})
    assert response.headers["Content-Encoding"] == "br"
    body = brotli.decompress(b"".join(response.response))
    assert body == (ROOT / "static" / "vendor" / "htmx-2.0.11.min.js").read_bytes()


def test_server_sent_events_are_never_compressed():
    """A compressor holds output back until its buffer fills: each token of an answer must leave now."""
    app = standalone_app()

    @app.get("/test-stream")
    def stream():
        return Response((f"data: {n}\n\n" for n in range(500)), mimetype="text/event-stream")

    response = app.test_client().get("/test-stream", headers={"Accept-Encoding": "gzip, br, zstd"})
    assert "Content-Encoding" not in response.headers
    assert response.get_data(as_text=True).startswith("data: 0\n\n")
