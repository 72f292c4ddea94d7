"""Finding sources on the web with Gemini and its Google Search tool (BEYOU_SOURCE_SEARCH=gemini),
against the wire fake's `generateContent`, which answers with grounding metadata as Gemini does:
the same panel, the pages read from the grounding chunks (their redirect links followed to the
pages' own addresses) with what the supports say of each, only the typed words sent, and each
failure (quota, this server's key, time, the rest) said in its own words with the words kept.
The same failures from Tavily are told apart the same way."""

import html
import json
import re
import time
from datetime import timedelta

import pytest

from app import create_app
from app.config import ConfigError
from app.extensions import db
from app.notebook import services as notebook
from app.notebook import sources
from app.notebook.models.sources import SearchSuggestions
from app.shared.models import utcnow
from tests.builders import as_user
from tests.conftest import hx, settings_for_tests
from tests.fakes import Reply
from tests.fakes.search import search_suggestions_html
from tests.notebook.conftest import GEMINI_SEARCH, TAVILY

KEY_NOT_VALID = {
    "error": {
        "code": 400,
        "message": "API key not valid. Please pass a valid API key.",
        "status": "INVALID_ARGUMENT",
        "details": [
            {
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "API_KEY_INVALID",
                "domain": "googleapis.com",
                "metadata": {"service": "generativelanguage.googleapis.com"},
            }
        ],
    }
}
# Tavily's refusals as its API reference shows them (432: the plan's limit; 401: a missing or bad key).
PLAN_LIMIT = {"detail": {"error": "This request exceeds your plan's set usage limit. Please upgrade your plan."}}
INVALID_KEY = {"detail": {"error": "Unauthorized: missing or invalid API key."}}
QUOTA = "The web search has used up its searches for now."
KEY = "The web search refused this server's key"
TIMEOUT = "The web search took too long to answer."
FAILED = "The web search didn't answer."


def text_of(response):
    return html.unescape(response.get_data(as_text=True))


@pytest.fixture
def page_id(app, user_id):
    with as_user(app, user_id) as user:
        return notebook.create_page(user, notebook.create_topic(user, "Biology").id, "Plants").id


def search(client, page_id, words, *, htmx=True):
    return client.get(
        f"/notebook/pages/{page_id}/web-search", query_string={"q": words}, headers=hx(client) if htmx else {}
    )


def accept_form(body, index):
    item = body.split(f'id="web-candidate-{index}"', 1)[1].split("</li>", 1)[0]
    fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', item))
    return {name: html.unescape(value) for name, value in fields.items()}


def test_candidates_are_the_pages_gemini_grounded_its_answer_in(signed_in, page_id, gemini_search_on):
    panel = signed_in.get(f"/notebook/pages/{page_id}").get_data(as_text=True)
    assert 'id="web-search-q"' in panel and "web-search-off" not in panel
    response = search(signed_in, page_id, "  photosynthesis   basics ")
    body = text_of(response)
    assert response.status_code == 200 and body.count('data-testid="web-candidate"') == 2
    # the pages' own addresses, read from the grounding links' redirects, never the links
    assert 'href="https://en.wikipedia.org/wiki/photosynthesis_basics"' in body
    assert 'href="https://www.khanacademy.org/science/photosynthesis_basics"' in body
    assert "grounding-api-redirect" not in body
    # what the answer says of each page: its own sentence, and the one every page supports
    first = accept_form(response.get_data(as_text=True), 1)
    assert first["title"] == "wikipedia.org"
    assert first["text"] == (
        "The encyclopedia article on photosynthesis basics covers its history, its parts and how they work. "
        "Each of them explains the topic from the basics.\n\nhttps://en.wikipedia.org/wiki/photosynthesis_basics"
    )
    call, *redirects = gemini_search_on.requests(GEMINI_SEARCH)
    assert [request.protocol for request in redirects] == ["redirect", "redirect"]
    assert call.path == "/gemini-search/v1beta/models/gemini-2.5-flash:generateContent"
    assert call.headers["x-goog-api-key"] == "gemini-search-key" and call.problems == []
    assert call.body["tools"] == [{"googleSearch": {}}]
    assert call.body["contents"] == [{"role": "user", "parts": [{"text": "photosynthesis basics"}]}]
    assert "Search the web" in json.dumps(call.body["systemInstruction"])  # only the typed words are the student's


def suggestions_frame(body):
    """The address of the Search Suggestions' frame in a results panel."""
    found = re.search(r'<iframe class="search-suggestions" src="([^"]+)"\s+sandbox="([^"]+)"', body)
    assert found, "the results show no Search Suggestions"
    return found.group(1), found.group(2)


def test_google_s_search_suggestions_are_shown_as_gemini_gave_them_in_a_frame_of_their_own(
    app, signed_in, page_id, gemini_search_on
):
    body = search(signed_in, page_id, "photosynthesis basics").get_data(as_text=True)
    address, sandbox = suggestions_frame(body)
    assert sandbox == "allow-popups allow-popups-to-escape-sandbox"  # no script; its links open a tab
    frame = signed_in.get(address)
    assert frame.status_code == 200
    shown = frame.get_data(as_text=True)
    assert search_suggestions_html("photosynthesis basics") in shown  # as Gemini gave it, as Google's terms ask
    assert 'href="https://www.google.com/search?q=photosynthesis+basics' in shown and '<base target="_blank">' in shown
    policy = frame.headers["Content-Security-Policy"]
    assert "style-src 'unsafe-inline'" in policy and "script-src" not in policy and "default-src 'none'" in policy
    assert "frame-ancestors 'self'" in policy and frame.headers["X-Frame-Options"] == "SAMEORIGIN"
    # the app's own pages still allow no inline style
    assert "unsafe-inline" not in signed_in.get(f"/notebook/pages/{page_id}").headers["Content-Security-Policy"]


def test_another_user_s_search_suggestions_are_not_found(signed_in, other_signed_in, page_id, gemini_search_on):
    address, _sandbox = suggestions_frame(search(signed_in, page_id, "photosynthesis basics").get_data(as_text=True))
    assert other_signed_in.get(address).status_code == 404
    assert signed_in.get(address.rsplit("/", 1)[0] + "/not-an-id").status_code == 404


def test_tavily_results_have_no_search_suggestions(signed_in, page_id, web_search_on):
    body = search(signed_in, page_id, "photosynthesis basics").get_data(as_text=True)
    assert 'data-testid="web-candidate"' in body and "search-suggestions" not in body


def test_a_day_old_search_s_suggestions_are_let_go_at_the_next_search(app, signed_in, user_id, page_id,
                                                                     gemini_search_on):  # fmt: skip
    first, _sandbox = suggestions_frame(search(signed_in, page_id, "photosynthesis").get_data(as_text=True))
    with app.app_context():
        db.session.execute(db.update(SearchSuggestions).values(created_at=utcnow() - timedelta(days=1, minutes=1)))
        db.session.commit()
    second, _sandbox = suggestions_frame(search(signed_in, page_id, "chlorophyll").get_data(as_text=True))
    assert signed_in.get(first).status_code == 404 and signed_in.get(second).status_code == 200


def test_accepting_a_gemini_candidate_keeps_the_page_s_site(app, signed_in, user_id, page_id, gemini_search_on):
    body = search(signed_in, page_id, "osmosis").get_data(as_text=True)
    response = signed_in.post(
        f"/notebook/pages/{page_id}/web-search/accept", data=accept_form(body, 2), headers=hx(signed_in)
    )
    assert response.status_code == 200
    with as_user(app, user_id) as user:
        (source,) = sources.sources_of(user, notebook.get_page(user, page_id))
        assert (source.title, source.origin, source.filename) == ("khanacademy.org", "web", "www.khanacademy.org")
        assert source.text.endswith("\n\nhttps://www.khanacademy.org/science/osmosis")


def test_pages_without_words_of_their_own_or_an_address_are_not_proposed(signed_in, page_id, gemini_search_on):
    pages = [
        {"title": "kept.org", "url": "https://kept.org/cells", "said": "A page about cells."},
        {"title": "bad.example", "url": "javascript:alert(1)", "said": "A page with no address."},
    ]
    gemini_search_on.script(GEMINI_SEARCH, Reply(grounding=pages))
    body = text_of(search(signed_in, page_id, "cells"))
    assert body.count('data-testid="web-candidate"') == 1 and 'href="https://kept.org/cells"' in body
    assert "javascript:" not in body
    gemini_search_on.script(GEMINI_SEARCH, Reply(grounding=[]))
    assert "The web search found nothing for “cells”." in text_of(search(signed_in, page_id, "cells"))


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        pytest.param(Reply.fails(429), QUOTA, id="quota"),
        pytest.param(Reply.fails(400, KEY_NOT_VALID), KEY, id="key-not-valid"),
        pytest.param(Reply.fails(403), KEY, id="key-refused"),
        pytest.param(Reply.fails(500), FAILED, id="server-error"),
        pytest.param(Reply(first_byte_delay=3), TIMEOUT, id="too-slow"),
        pytest.param(Reply(tail="trickle"), TIMEOUT, id="trickling-for-ever"),
    ],
)
def test_a_failing_gemini_search_says_how_and_keeps_the_words(
    app, signed_in, page_id, gemini_search_on, monkeypatch, reply, said
):
    monkeypatch.setitem(app.config, "SOURCE_SEARCH_TIMEOUT", 1.0)
    gemini_search_on.script(GEMINI_SEARCH, reply)
    started = time.monotonic()
    response = search(signed_in, page_id, "cell membranes")
    assert time.monotonic() - started < 1.0 + 3, "the search outlived its time"
    assert response.status_code == 503 and said in text_of(response)
    gemini_search_on.script(GEMINI_SEARCH, reply)
    page = search(signed_in, page_id, "cell membranes", htmx=False)  # without JavaScript: the whole page
    assert said in text_of(page) and 'value="cell membranes"' in page.get_data(as_text=True)


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        pytest.param(Reply.fails(432, PLAN_LIMIT), QUOTA, id="plan-limit"),
        pytest.param(Reply.fails(429), QUOTA, id="rate-limit"),
        pytest.param(Reply.fails(401, INVALID_KEY), KEY, id="bad-key"),
        pytest.param(Reply(first_byte_delay=3), TIMEOUT, id="too-slow"),
        pytest.param(Reply(tail="trickle"), TIMEOUT, id="trickling-for-ever"),
    ],
)
def test_a_failing_tavily_search_says_how_too(app, signed_in, page_id, web_search_on, monkeypatch, reply, said):
    monkeypatch.setitem(app.config, "SOURCE_SEARCH_TIMEOUT", 1.0)
    web_search_on.script(TAVILY, reply)
    started = time.monotonic()
    response = search(signed_in, page_id, "cells")
    assert time.monotonic() - started < 1.0 + 3, "the search outlived its time"
    assert response.status_code == 503 and said in text_of(response)


def test_gemini_search_is_off_without_its_own_key(app, signed_in, page_id, fake_outside, monkeypatch):
    monkeypatch.setitem(app.config, "SOURCE_SEARCH", "gemini")
    monkeypatch.setitem(app.config, "SOURCE_SEARCH_API_KEY", "tvly-key")  # Tavily's key does not turn it on
    page = text_of(signed_in.get(f"/notebook/pages/{page_id}"))
    assert 'data-testid="web-search-off"' in page
    assert search(signed_in, page_id, "cells").status_code == 503 and fake_outside.requests() == []


def test_an_unknown_search_service_stops_the_boot():
    with pytest.raises(ConfigError, match="BEYOU_SOURCE_SEARCH must be tavily or gemini, not 'bing'"):
        create_app("test", **settings_for_tests(SOURCE_SEARCH="bing"))
