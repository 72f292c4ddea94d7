"""The sources panel of a study page: pasting and uploading (refusals keep what was typed and say
why, in the user's language), searching with the words marked and markup shown as text, the
progress row, deleting — with htmx and without JavaScript."""

import io
import json

import pytest

from app.notebook import services as notebook
from app.notebook import sources
from tests.builders import as_user
from tests.conftest import csrf_token_from, hx, make_user, sign_in
from tests.notebook.test_sources_service import a_pdf


@pytest.fixture
def page_id(app, user_id):
    with as_user(app, user_id) as user:
        topic = notebook.create_topic(user, "Biology")
        return notebook.create_page(user, topic.id, "Cells").id


def sources_of(app, user_id, page_id):
    with as_user(app, user_id) as user:
        page = notebook.get_page(user, page_id)
        return [(s.title, s.status, s.passages_total) for s in sources.sources_of(user, page)]


def toast_of(response):
    return json.loads(response.headers["HX-Trigger"])["toast"]["message"]


def test_the_study_page_shows_the_panel_with_its_search_and_forms(signed_in, page_id):
    body = signed_in.get(f"/notebook/pages/{page_id}").get_data(as_text=True)
    assert 'id="sources"' in body and 'role="search"' in body
    assert f'hx-get="/notebook/pages/{page_id}/sources"' in body
    assert 'hx-trigger="domain:notebook from:body"' in body
    assert "No sources yet" in body and 'name="file"' in body


def test_pasting_a_source_lists_it_and_says_how_many_passages_are_searchable(app, signed_in, user_id, page_id):
    response = signed_in.post(
        f"/notebook/pages/{page_id}/sources",
        data={"title": "Chapter 1", "text": "Cells are small.\n\nThey divide."},
        headers=hx(signed_in),
    )
    assert response.status_code == 200
    assert "domain:notebook" in response.headers["HX-Trigger"]
    assert toast_of(response) == "Source added: 1 passage is searchable."
    assert "Cells are small" not in response.get_data(as_text=True)  # the form comes back empty
    assert sources_of(app, user_id, page_id) == [("Chapter 1", "ready", 1)]
    panel = signed_in.get(f"/notebook/pages/{page_id}/sources", headers=hx(signed_in)).get_data(as_text=True)
    assert "Chapter 1" in panel and "1 passage, searchable" in panel


def test_an_empty_paste_is_refused_with_the_title_kept(app, signed_in, user_id, page_id):
    response = signed_in.post(
        f"/notebook/pages/{page_id}/sources", data={"title": "My notes", "text": "   "}, headers=hx(signed_in)
    )
    body = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "This source has no text" in body and 'value="My notes"' in body
    assert sources_of(app, user_id, page_id) == []


def test_a_refusal_speaks_portuguese_to_a_portuguese_speaker(app, client):
    bia_id = make_user(app, email="bia@example.com", name="Bia", language="pt")
    sign_in(client, email="bia@example.com")
    client.csrf = csrf_token_from(client.get("/dashboard"))
    with as_user(app, bia_id) as bia:
        own_page = notebook.create_page(bia, notebook.create_topic(bia, "Bio").id, "Células").id
    response = client.post(
        f"/notebook/pages/{own_page}/sources/upload",
        data={"file": (io.BytesIO(b"PK\x03\x04"), "slides.docx")},
        headers=hx(client),
    )
    assert response.status_code == 422
    assert "Envie um arquivo .txt, .md ou .pdf." in response.get_data(as_text=True)


def test_a_refused_paste_keeps_all_of_a_long_text(app, signed_in, user_id, page_id):
    text = "\n\n".join(f"Paragraph {n} about cells." for n in range(1, 1000))  # ~25,000 characters
    response = signed_in.post(
        f"/notebook/pages/{page_id}/sources", data={"title": "t" * 201, "text": text}, headers=hx(signed_in)
    )
    body = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "Use at most 200 characters for a source&#39;s title." in body
    assert "Paragraph 999 about cells." in body
    assert sources_of(app, user_id, page_id) == []


def test_an_upload_is_read_and_a_wrong_one_refused_with_its_reason(app, signed_in, user_id, page_id):
    ok = signed_in.post(
        f"/notebook/pages/{page_id}/sources/upload",
        data={"file": (io.BytesIO(a_pdf(["Ribosomes build proteins."])), "paper.pdf")},
        headers=hx(signed_in),
    )
    assert ok.status_code == 200
    no_text = signed_in.post(
        f"/notebook/pages/{page_id}/sources/upload",
        data={"file": (io.BytesIO(a_pdf([])), "scan.pdf")},
        headers=hx(signed_in),
    )
    assert no_text.status_code == 422 and "This PDF has no text to extract" in no_text.get_data(as_text=True)
    nothing = signed_in.post(f"/notebook/pages/{page_id}/sources/upload", data={}, headers=hx(signed_in))
    assert nothing.status_code == 422 and "Choose a .txt, .md or .pdf file" in nothing.get_data(as_text=True)
    assert sources_of(app, user_id, page_id) == [("paper", "ready", 1)]


def test_a_file_above_the_limit_is_refused_before_it_is_read_whole(app, signed_in, user_id, page_id):
    huge = io.BytesIO(b"a" * (sources.FILE_MAX_BYTES + 200 * 1024))
    response = signed_in.post(
        f"/notebook/pages/{page_id}/sources/upload", data={"file": (huge, "huge.txt")}, headers=hx(signed_in)
    )
    assert response.status_code == 413
    assert "Upload a file of at most 5 MB." in response.get_data(as_text=True)
    just_above = io.BytesIO(b"a" * (sources.FILE_MAX_BYTES + 1))
    response = signed_in.post(
        f"/notebook/pages/{page_id}/sources/upload", data={"file": (just_above, "big.txt")}, headers=hx(signed_in)
    )
    assert response.status_code == 422 and "Upload a file of at most 5 MB." in response.get_data(as_text=True)
    assert sources_of(app, user_id, page_id) == []


def test_a_paste_larger_than_a_normal_form_is_accepted_up_to_its_own_limit(app, signed_in, user_id, page_id):
    text = "\n\n".join(f"Paragraph {n} about cells and tissues." for n in range(1, 2000))  # ~80,000 characters
    response = signed_in.post(f"/notebook/pages/{page_id}/sources", data={"text": text}, headers=hx(signed_in))
    assert response.status_code == 200
    assert sources_of(app, user_id, page_id)[0][0] == "Paragraph 1 about cells and tissues."


def test_search_marks_the_words_and_shows_a_sources_markup_as_text(app, signed_in, user_id, page_id):
    planted = '<script>alert("x")</script><img src=x onerror=alert(1)> Osmosis moves water.'
    with as_user(app, user_id) as user:
        sources.paste(user, page_id, planted, title="<b>Evil</b> notes")
    body = signed_in.get(f"/notebook/pages/{page_id}/search?q=osmosis", headers=hx(signed_in)).get_data(as_text=True)
    assert "<mark>Osmosis</mark> moves water." in body
    assert "<script>" not in body and "<img" not in body and "<b>Evil</b>" not in body
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in body
    assert "&lt;b&gt;Evil&lt;/b&gt; notes · passage 1 of 1" in body
    inside = signed_in.get(f"/notebook/pages/{page_id}/search?q=alert", headers=hx(signed_in)).get_data(as_text=True)
    assert "&lt;script&gt;<mark>alert</mark>(&#34;x&#34;)&lt;/script&gt;" in inside and "<script>" not in inside


def test_search_without_javascript_renders_the_whole_page_with_the_results(app, signed_in, user_id, page_id):
    with as_user(app, user_id) as user:
        sources.paste(user, page_id, "Mitosis splits a cell.", title="Division")
    body = signed_in.get(f"/notebook/pages/{page_id}/search?q=mitosis").get_data(as_text=True)
    assert "<h1>Cells</h1>" in body and "<mark>Mitosis</mark>" in body and 'value="mitosis"' in body
    nothing = signed_in.get(f"/notebook/pages/{page_id}/search?q=meiosis", headers=hx(signed_in))
    assert "No passage of this page's sources matches “meiosis”." in nothing.get_data(as_text=True)
    too_long = signed_in.get(f"/notebook/pages/{page_id}/search?q={'x' * 201}", headers=hx(signed_in))
    assert "Search for at most 200 characters." in too_long.get_data(as_text=True)


def test_deleting_a_source_asks_first_and_takes_its_passages(app, signed_in, user_id, page_id):
    with as_user(app, user_id) as user:
        source_id = sources.paste(user, page_id, "Mitosis splits a cell.", title="Division").id
    ask = signed_in.get(f"/notebook/sources/{source_id}/delete", headers=hx(signed_in)).get_data(as_text=True)
    assert "Delete this source?" in ask and "search will no longer find them" in ask
    response = signed_in.post(f"/notebook/sources/{source_id}/delete", headers=hx(signed_in))
    assert response.status_code == 204 and "domain:notebook" in response.headers["HX-Trigger"]
    assert sources_of(app, user_id, page_id) == []
    without_js = signed_in.post(f"/notebook/sources/{source_id}/delete", data={"csrf_token": signed_in.csrf})
    assert without_js.status_code == 404


def test_a_paste_without_javascript_comes_back_to_the_page_with_a_message(app, signed_in, user_id, page_id):
    response = signed_in.post(
        f"/notebook/pages/{page_id}/sources", data={"text": "Plain form.", "csrf_token": signed_in.csrf}
    )
    assert response.status_code == 302 and response.headers["Location"].endswith(f"/notebook/pages/{page_id}")
    refused = signed_in.post(
        f"/notebook/pages/{page_id}/sources", data={"text": "", "csrf_token": signed_in.csrf}, follow_redirects=True
    )
    assert "This source has no text" in refused.get_data(as_text=True)


def test_another_users_sources_and_pages_behave_as_unknown(app, signed_in, other_signed_in, user_id, page_id):
    with as_user(app, user_id) as user:
        source_id = sources.paste(user, page_id, "Private.", title="Mine").id
    for url in (
        f"/notebook/pages/{page_id}/sources",
        f"/notebook/pages/{page_id}/search?q=private",
        f"/notebook/sources/{source_id}/progress",
        f"/notebook/sources/{source_id}/delete",
    ):
        assert other_signed_in.get(url, headers=hx(other_signed_in)).status_code == 404
    for url in (f"/notebook/pages/{page_id}/sources", f"/notebook/sources/{source_id}/delete"):
        assert other_signed_in.post(url, data={"text": "x"}, headers=hx(other_signed_in)).status_code == 404
    assert sources_of(app, user_id, page_id) == [("Mine", "ready", 1)]
