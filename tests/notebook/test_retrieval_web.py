"""Finding sources on the web from a page's sources panel, against the wire fake's Tavily
`/search`: off without a key (and the panel says so, and nothing is sent), candidates proposed
with htmx and without JavaScript, one accepted into the page as a ready source (the paste
service), refusals that say why, a failing search service, and another user's page unknown."""

import html
import json
import re

import pytest

from app.notebook import services as notebook
from app.notebook import sources, web_sources
from app.shared.errors import NotFound
from tests.builders import as_user
from tests.conftest import hx, make_user, sign_in
from tests.fakes import Reply
from tests.notebook.conftest import TAVILY


def text_of(response):
    return html.unescape(response.get_data(as_text=True))


@pytest.fixture
def page_id(app, user_id):
    with as_user(app, user_id) as user:
        return notebook.create_page(user, notebook.create_topic(user, "Biology").id, "Plants").id


def sources_of(app, user_id, page_id):
    with as_user(app, user_id) as user:
        page = notebook.get_page(user, page_id)
        return [(s.title, s.status, s.text) for s in sources.sources_of(user, page)]


def accept_form(body, index=1):
    """The hidden fields of the candidate's accept form, as the browser would post them."""
    item = body.split(f'id="web-candidate-{index}"', 1)[1].split("</li>", 1)[0]
    fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', item))
    return {
        name: value.replace("&#39;", "'").replace("&amp;", "&").replace("&#34;", '"') for name, value in fields.items()
    }


def test_off_without_a_key_the_panel_says_so_and_nothing_is_sent(signed_in, page_id, fake_outside):
    page = text_of(signed_in.get(f"/notebook/pages/{page_id}"))
    assert 'data-testid="web-search-off"' in page and "isn't set up on this server" in page
    assert 'id="web-search-q"' not in page  # no form that could not work
    response = signed_in.get(f"/notebook/pages/{page_id}/web-search?q=photosynthesis", headers=hx(signed_in))
    assert response.status_code == 503
    assert "Searching the web for sources isn't set up on this server." in text_of(response)
    assert fake_outside.requests() == []


def test_off_in_portuguese(app):
    with as_user(app, make_user(app, email="rui@example.com", name="Rui", language="pt")) as rui:
        rui_page = notebook.create_page(rui, notebook.create_topic(rui, "Biologia").id, "Plantas").id
    reader = app.test_client()
    sign_in(reader, email="rui@example.com")
    page = text_of(reader.get(f"/notebook/pages/{rui_page}"))
    assert "Procurar fontes na web" in page and "não está configurada neste servidor" in page


def test_candidates_come_from_the_search_service_with_only_the_typed_words(signed_in, page_id, web_search_on):
    panel = signed_in.get(f"/notebook/pages/{page_id}").get_data(as_text=True)
    assert 'id="web-search-q"' in panel and "web-search-off" not in panel
    response = signed_in.get(
        f"/notebook/pages/{page_id}/web-search?q=  photosynthesis   basics ", headers=hx(signed_in)
    )
    body = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "2 sources found" in body and body.count('data-testid="web-candidate"') == 2
    assert "Photosynthesis Basics — an introduction" in body
    assert (
        'href="https://example.org/1/photosynthesis-basics" target="_blank" rel="noopener noreferrer nofollow"' in body
    )
    (call,) = web_search_on.requests(TAVILY)
    assert call.path == "/tavily/search" and call.headers["authorization"] == "Bearer tvly-key"
    assert call.body["query"] == "photosynthesis basics" and call.body["include_raw_content"] is True


def test_accepting_a_candidate_adds_a_ready_source_with_its_address(app, signed_in, user_id, page_id, web_search_on):
    body = signed_in.get(f"/notebook/pages/{page_id}/web-search?q=photosynthesis", headers=hx(signed_in)).get_data(
        as_text=True
    )
    response = signed_in.post(f"/notebook/pages/{page_id}/web-search/accept", data=accept_form(body, 2),
                              headers=hx(signed_in))  # fmt: skip
    assert response.status_code == 200
    triggers = json.loads(response.headers["HX-Trigger"])
    assert "domain:notebook" in triggers
    assert triggers["toast"]["message"] == "“Photosynthesis — a study guide” added to this page's sources."
    answer = response.get_data(as_text=True)
    assert 'id="web-candidate-2"' in answer and 'data-testid="web-added"' in answer and "<form" not in answer
    ((title, status, text),) = sources_of(app, user_id, page_id)
    assert (title, status) == ("Photosynthesis — a study guide", "ready")
    assert (
        text
        == "Photosynthesis\n\nA longer text about photosynthesis, paragraph 2.\n\nhttps://example.org/2/photosynthesis"
    )
    with as_user(app, user_id) as user:
        assert [hit.source.title for hit in sources.search(user, page_id, "paragraph")] == [title]
        (source,) = sources.sources_of(user, notebook.get_page(user, page_id))
        assert (source.origin, source.filename) == ("web", "example.org")
    page = signed_in.get(f"/notebook/pages/{page_id}").get_data(as_text=True)
    assert "· from example.org" in page and "· pasted text" not in page  # the row says where it came from


def test_a_result_without_a_web_address_or_text_is_not_proposed(signed_in, page_id, web_search_on):
    results = [
        {"title": "Kept", "url": "https://example.org/kept", "content": "Snippet only."},
        {"title": "No address", "url": "", "content": "Text."},
        {"title": "Not the web", "url": "javascript:alert(1)", "content": "Text."},
        {"title": "No text", "url": "https://example.org/empty", "content": "", "raw_content": None},
    ]
    web_search_on.script(TAVILY, Reply(body={"query": "x", "results": results}))
    body = signed_in.get(f"/notebook/pages/{page_id}/web-search?q=x", headers=hx(signed_in)).get_data(as_text=True)
    assert body.count('data-testid="web-candidate"') == 1 and "Kept" in body and "javascript:" not in body
    assert accept_form(body)["text"] == "Snippet only.\n\nhttps://example.org/kept"  # no page text: the snippet


def test_refusals_say_why_and_keep_the_candidate(app, signed_in, user_id, page_id, web_search_on):
    empty = signed_in.get(f"/notebook/pages/{page_id}/web-search?q=%20", headers=hx(signed_in))
    assert empty.status_code == 422 and "Type what the sources should be about." in empty.get_data(as_text=True)
    bad = {"index": "1", "title": "Evil", "url": "javascript:alert(1)", "snippet": "", "text": "Some text."}
    refused = signed_in.post(f"/notebook/pages/{page_id}/web-search/accept", data=bad, headers=hx(signed_in))
    body = refused.get_data(as_text=True)
    assert refused.status_code == 422 and "This result has no web address to keep with it." in body
    assert 'href="javascript' not in body and "<form" in body  # the candidate stays, to choose again
    no_text = {"index": "1", "title": "Empty", "url": "https://example.org/e", "snippet": "", "text": "  "}
    refused = signed_in.post(f"/notebook/pages/{page_id}/web-search/accept", data=no_text, headers=hx(signed_in))
    assert refused.status_code == 422 and "This source has no text." in refused.get_data(as_text=True)
    assert sources_of(app, user_id, page_id) == []


def test_a_failing_search_service_says_to_try_again(signed_in, page_id, web_search_on):
    web_search_on.script(TAVILY, Reply.fails(500))
    response = signed_in.get(f"/notebook/pages/{page_id}/web-search?q=cells", headers=hx(signed_in))
    assert response.status_code == 503
    assert "The web search didn't answer. Try again in a moment" in text_of(response)
    web_search_on.script(TAVILY, Reply(body={"no": "results"}))
    assert signed_in.get(f"/notebook/pages/{page_id}/web-search?q=cells", headers=hx(signed_in)).status_code == 503


def test_without_javascript_the_results_and_the_accept_are_pages(app, signed_in, user_id, page_id, web_search_on):
    page = signed_in.get(f"/notebook/pages/{page_id}/web-search?q=osmosis")
    body = page.get_data(as_text=True)
    assert page.status_code == 200 and "<html" in body and "<details" in body and "Osmosis — an introduction" in body
    form = accept_form(body) | {"csrf_token": signed_in.csrf}
    response = signed_in.post(f"/notebook/pages/{page_id}/web-search/accept", data=form)
    assert response.status_code == 302 and response.headers["Location"].endswith(f"/notebook/pages/{page_id}")
    followed = signed_in.get(response.headers["Location"]).get_data(as_text=True)
    assert "“Osmosis — an introduction” added to this page's sources." in html.unescape(followed)
    assert [title for title, _status, _text in sources_of(app, user_id, page_id)] == ["Osmosis — an introduction"]


def test_another_users_page_is_unknown(app, page_id, other_signed_in, other_user_id, web_search_on):
    response = other_signed_in.get(f"/notebook/pages/{page_id}/web-search?q=cells", headers=hx(other_signed_in))
    assert response.status_code == 404
    form = {"index": "1", "title": "T", "url": "https://example.org/t", "snippet": "", "text": "Text."}
    posted = other_signed_in.post(
        f"/notebook/pages/{page_id}/web-search/accept", data=form, headers=hx(other_signed_in)
    )
    assert posted.status_code == 404
    assert web_search_on.requests(TAVILY) == []
    with as_user(app, other_user_id) as bruno, pytest.raises(NotFound):
        web_sources.find(bruno, page_id, "cells")
