"""The notebook's pages: topics typed in place, the page tree, a study page's blocks added,
edited in place and moved, deletions that say what they take, and the review view — with htmx
and without JavaScript, refusals keeping what was typed."""

from app.extensions import db
from app.notebook import services as notebook
from app.notebook.models.pages import NotebookPage, NotebookTopic, PageBlock
from tests.builders import as_user
from tests.conftest import hx


def plain(client):
    return {"X-CSRFToken": client.csrf}


def a_page(app, user_id, title="Cells", topic_name="Biology"):
    with as_user(app, user_id) as user:
        topic = notebook.create_topic(user, topic_name)
        return notebook.create_page(user, topic.id, title).id


def count(app, model):
    with app.app_context():
        return db.session.scalar(db.select(db.func.count()).select_from(model))


def block_row(app, block_id):
    with app.app_context():
        block = db.session.get(PageBlock, block_id)
        return {"back": block.back, "interval_days": block.interval_days, "streak": block.streak}


def blocks_of(app, user_id, page_id):
    with as_user(app, user_id) as user:
        return [(block.kind, block.text) for block in notebook.blocks(user, page_id)]


def test_the_notebook_lists_topics_with_their_page_trees_and_refreshes_on_notebook_writes(app, signed_in, user_id):
    page_id = a_page(app, user_id)
    with as_user(app, user_id) as user:
        notebook.create_page(user, notebook.topics(user)[0].id, "Membranes", page_id)
    body = signed_in.get("/notebook").get_data(as_text=True)
    assert "Biology" in body and f'href="/notebook/pages/{page_id}"' in body
    assert 'class="study-page-row study-depth-1"' in body and "Membranes" in body
    assert 'hx-trigger="domain:notebook from:body"' in body


def test_a_topic_typed_in_place_is_added_and_the_form_comes_back_empty(app, signed_in, user_id):
    response = signed_in.post("/notebook/topics", data={"name": " Spanish "}, headers=hx(signed_in))
    assert response.status_code == 200 and "domain:notebook" in response.headers["HX-Trigger"]
    assert 'value=""' in response.get_data(as_text=True)
    with as_user(app, user_id) as user:
        assert [topic.name for topic in notebook.topics(user)] == ["Spanish"]


def test_an_oversize_topic_name_is_refused_with_the_name_kept(app, signed_in, user_id):
    typed = "Biology " * 20
    for headers in (hx(signed_in), plain(signed_in)):
        response = signed_in.post("/notebook/topics", data={"name": typed}, headers=headers)
        body = response.get_data(as_text=True)
        assert response.status_code == 422 and "Use at most 120 characters" in body and typed in body
    assert count(app, NotebookTopic) == 0


def test_a_page_is_added_inside_another_page_of_its_topic(app, signed_in, user_id):
    page_id = a_page(app, user_id)
    with as_user(app, user_id) as user:
        topic_id = notebook.topics(user)[0].id
    response = signed_in.post(
        f"/notebook/topics/{topic_id}/pages",
        data={"title": "Membranes", "parent_id": str(page_id)},
        headers=plain(signed_in),
    )
    with app.app_context():
        inner = db.session.scalar(db.select(NotebookPage).where(NotebookPage.title == "Membranes"))
        assert response.status_code == 302 and response.headers["Location"].endswith(f"/notebook/pages/{inner.id}")
        assert inner.parent_id == page_id


def test_an_empty_page_title_is_refused_in_place(app, signed_in, user_id):
    a_page(app, user_id)
    with as_user(app, user_id) as user:
        topic_id = notebook.topics(user)[0].id
    response = signed_in.post(f"/notebook/topics/{topic_id}/pages", data={"title": "  "}, headers=hx(signed_in))
    assert response.status_code == 422 and "Give the page a title." in response.get_data(as_text=True)
    typed = "Cells " * 40
    url = f"/notebook/topics/{topic_id}/pages"
    plain_refusal = signed_in.post(url, data={"title": typed}, headers=plain(signed_in))
    body = plain_refusal.get_data(as_text=True)
    assert plain_refusal.status_code == 422 and "Use at most 200 characters" in body and typed in body


def test_renaming_a_topic_through_its_dialog(app, signed_in, user_id):
    page_id = a_page(app, user_id)
    with as_user(app, user_id) as user:
        topic_id = notebook.get_page(user, page_id).topic_id
    form = signed_in.get(f"/notebook/topics/{topic_id}/rename", headers=hx(signed_in)).get_data(as_text=True)
    assert 'value="Biology"' in form
    response = signed_in.post(f"/notebook/topics/{topic_id}/rename", data={"name": "Life"}, headers=hx(signed_in))
    assert response.status_code == 204 and "dialog:close" in response.headers["HX-Trigger"]
    refused = signed_in.post(f"/notebook/topics/{topic_id}/rename", data={"name": ""}, headers=hx(signed_in))
    assert refused.status_code == 422 and "Give the topic a name." in refused.get_data(as_text=True)


def test_deleting_a_topic_says_what_it_takes_first(app, signed_in, user_id):
    page_id = a_page(app, user_id)
    with as_user(app, user_id) as user:
        notebook.add_note(user, page_id, "one")
        notebook.add_note(user, page_id, "two")
        topic_id = notebook.get_page(user, page_id).topic_id
    ask = signed_in.get(f"/notebook/topics/{topic_id}/delete", headers=hx(signed_in)).get_data(as_text=True)
    assert "1 page and 2 blocks" in ask and "board and sources" in ask
    signed_in.post(f"/notebook/topics/{topic_id}/delete", headers=hx(signed_in))
    assert count(app, NotebookPage) == 0


def test_the_study_page_shows_its_blocks_and_refreshes_them_on_notebook_writes(app, signed_in, user_id):
    page_id = a_page(app, user_id)
    with as_user(app, user_id) as user:
        notebook.add_note(user, page_id, "**Cells** <script>alert(1)</script>")
        notebook.add_diagram(user, page_id, "flowchart TD\n  A --> B")
        notebook.add_card(user, page_id, "Unit of life?", "The cell")
    body = signed_in.get(f"/notebook/pages/{page_id}").get_data(as_text=True)
    assert "<strong>Cells</strong>" in body and "<script>alert(1)" not in body
    assert "data-mermaid" in body and "flowchart TD\n  A --&gt; B" in body
    assert "Unit of life?" in body and "The cell" in body
    assert 'id="page-blocks"' in body and 'hx-trigger="domain:notebook from:body"' in body
    fragment = signed_in.get(f"/notebook/pages/{page_id}", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert "<html" not in fragment and fragment.count('data-testid="block"') == 3


def test_a_note_typed_on_the_page_is_added_and_announced(app, signed_in, user_id):
    page_id = a_page(app, user_id)
    response = signed_in.post(
        f"/notebook/pages/{page_id}/blocks", data={"kind": "note", "text": "The unit of life."}, headers=hx(signed_in)
    )
    assert response.status_code == 200 and "domain:notebook" in response.headers["HX-Trigger"]
    assert blocks_of(app, user_id, page_id) == [("note", "The unit of life.")]


def test_invalid_diagram_source_is_refused_with_the_source_kept_and_nothing_saved(app, signed_in, user_id):
    page_id = a_page(app, user_id)
    for headers in (hx(signed_in), plain(signed_in)):
        response = signed_in.post(
            f"/notebook/pages/{page_id}/blocks", data={"kind": "diagram", "text": "A --> B"}, headers=headers
        )
        body = response.get_data(as_text=True)
        assert response.status_code == 422
        assert "Start the diagram with its type" in body and "A --&gt; B</textarea>" in body
    assert blocks_of(app, user_id, page_id) == []


def test_a_card_without_a_back_is_refused_with_its_front_kept(app, signed_in, user_id):
    page_id = a_page(app, user_id)
    response = signed_in.post(
        f"/notebook/pages/{page_id}/blocks",
        data={"kind": "card", "text": "Unit of life?", "back": ""},
        headers=hx(signed_in),
    )
    body = response.get_data(as_text=True)
    assert (
        response.status_code == 422 and "Write both sides of the card." in body and "Unit of life?</textarea>" in body
    )


def test_an_unknown_block_kind_is_refused(app, signed_in, user_id):
    page_id = a_page(app, user_id)
    response = signed_in.post(
        f"/notebook/pages/{page_id}/blocks", data={"kind": "video", "text": "x"}, headers=hx(signed_in)
    )
    assert response.status_code == 422 and "Add a note, a diagram or a flashcard." in response.get_data(as_text=True)


def test_a_block_is_edited_in_place_and_a_refusal_keeps_the_text(app, signed_in, user_id):
    page_id = a_page(app, user_id)
    with as_user(app, user_id) as user:
        block_id = notebook.add_note(user, page_id, "Old").id
    editor = signed_in.get(f"/notebook/blocks/{block_id}/edit", headers=hx(signed_in)).get_data(as_text=True)
    assert f'id="block-{block_id}"' in editor and "Old</textarea>" in editor
    refused = signed_in.post(f"/notebook/blocks/{block_id}/edit", data={"text": " "}, headers=hx(signed_in))
    assert refused.status_code == 422 and "Write something in the note." in refused.get_data(as_text=True)
    saved = signed_in.post(f"/notebook/blocks/{block_id}/edit", data={"text": "*New*"}, headers=hx(signed_in))
    assert saved.status_code == 200 and "<em>New</em>" in saved.get_data(as_text=True)
    cancel = signed_in.get(f"/notebook/blocks/{block_id}", headers=hx(signed_in)).get_data(as_text=True)
    assert "<em>New</em>" in cancel


def test_a_block_edited_without_javascript_goes_back_to_its_page(app, signed_in, user_id):
    page_id = a_page(app, user_id)
    with as_user(app, user_id) as user:
        block_id = notebook.add_card(user, page_id, "Q", "A").id
    assert "<html" in signed_in.get(f"/notebook/blocks/{block_id}/edit").get_data(as_text=True)
    response = signed_in.post(
        f"/notebook/blocks/{block_id}/edit", data={"text": "Q2", "back": "A2"}, headers=plain(signed_in)
    )
    assert response.status_code == 302 and response.headers["Location"].endswith(f"/notebook/pages/{page_id}")
    assert block_row(app, block_id)["back"] == "A2"


def test_blocks_move_through_their_buttons(app, signed_in, user_id):
    page_id = a_page(app, user_id)
    with as_user(app, user_id) as user:
        notebook.add_note(user, page_id, "one")
        second = notebook.add_note(user, page_id, "two").id
    response = signed_in.post(f"/notebook/blocks/{second}/move", data={"direction": "up"}, headers=hx(signed_in))
    assert response.status_code == 204 and "domain:notebook" in response.headers["HX-Trigger"]
    assert [text for _, text in blocks_of(app, user_id, page_id)] == ["two", "one"]
    wrong = signed_in.post(f"/notebook/blocks/{second}/move", data={"direction": "left"}, headers=hx(signed_in))
    assert wrong.status_code == 422 and "Move it up or down." in wrong.get_data(as_text=True)


def test_a_block_is_deleted_after_its_confirmation(app, signed_in, user_id):
    page_id = a_page(app, user_id)
    with as_user(app, user_id) as user:
        block_id = notebook.add_note(user, page_id, "Gone soon").id
    ask = signed_in.get(f"/notebook/blocks/{block_id}/delete", headers=hx(signed_in)).get_data(as_text=True)
    assert "Delete this block?" in ask and "“Gone soon” (Note) will be deleted for good." in ask
    response = signed_in.post(f"/notebook/blocks/{block_id}/delete", headers=hx(signed_in))
    assert response.status_code == 204 and blocks_of(app, user_id, page_id) == []


def test_deleting_a_page_says_what_goes_with_it_and_goes_back_to_the_notebook(app, signed_in, user_id):
    page_id = a_page(app, user_id)
    with as_user(app, user_id) as user:
        inner = notebook.create_page(user, notebook.topics(user)[0].id, "Membranes", page_id)
        notebook.add_note(user, inner.id, "Lipids")
    ask = signed_in.get(f"/notebook/pages/{page_id}/delete", headers=hx(signed_in)).get_data(as_text=True)
    assert "1 page inside it and 1 block" in ask
    response = signed_in.post(f"/notebook/pages/{page_id}/delete", headers=hx(signed_in))
    assert response.headers["HX-Redirect"] == "/notebook"
    assert count(app, NotebookPage) == 0


def test_the_review_shows_the_first_due_card_and_records_the_answer(app, signed_in, user_id):
    page_id = a_page(app, user_id)
    with as_user(app, user_id) as user:
        card_id = notebook.add_card(user, page_id, "Unit of life?", "The cell").id
    page = signed_in.get("/notebook/review").get_data(as_text=True)
    assert "Unit of life?" in page and "1 card due" in page and 'value="easy"' in page
    response = signed_in.post(f"/notebook/blocks/{card_id}/review", data={"grade": "good"}, headers=hx(signed_in))
    assert "No flashcards are due" in response.get_data(as_text=True)
    assert block_row(app, card_id) == {"back": "The cell", "interval_days": 1, "streak": 1}


def test_a_review_with_an_unknown_answer_is_refused_as_a_toast(app, signed_in, user_id):
    page_id = a_page(app, user_id)
    with as_user(app, user_id) as user:
        card_id = notebook.add_card(user, page_id, "Q", "A").id
    response = signed_in.post(f"/notebook/blocks/{card_id}/review", data={"grade": "meh"}, headers=hx(signed_in))
    assert response.status_code == 422 and "Answer again, good or easy." in response.get_data(as_text=True)
    assert block_row(app, card_id)["streak"] == 0


def test_mermaid_draws_in_a_frame_of_its_own_and_the_pages_keep_their_strict_policy(client, signed_in):
    frame = client.get("/notebook/diagram-frame")
    policy = frame.headers["Content-Security-Policy"]
    assert "style-src 'self' 'unsafe-inline'" in policy and "frame-ancestors 'self'" in policy
    assert frame.headers["X-Frame-Options"] == "SAMEORIGIN" and "vendor/mermaid-12.3.0.min.js" in frame.get_data(
        as_text=True
    )
    page = signed_in.get("/notebook")
    assert "style-src 'self';" in page.headers["Content-Security-Policy"]
    assert 'data-mermaid-frame="/notebook/diagram-frame"' in page.get_data(as_text=True)
