"""Long sources are indexed on a background thread: the request answers at once, the page's row
shows the progress (polling itself) until the passages are searchable, and a crash on the way
leaves a visible failed source with nothing indexed. Runs on a database file (or PostgreSQL),
which the request and the thread share as they would in production."""

import io
import re
import threading
import time
from datetime import timedelta

import pytest
import sqlalchemy as sa

from app.extensions import db
from app.notebook import services as notebook
from app.notebook import sources
from app.notebook.models.sources import NotebookSource, SourcePassage
from app.shared.models import utcnow
from tests.builders import as_user
from tests.conftest import hx
from tests.notebook.conftest import app_on_a_file, signed_in_with_a_page
from tests.notebook.test_sources_service import a_pdf, indexed_rows

LONG_TEXT = "\n\n".join(f"Paragraph {n}: " + "osmosis " * 100 for n in range(1, 9))  # 8 passages


@pytest.fixture
def sources_app(tmp_path):
    with app_on_a_file(tmp_path, "sources", NOTEBOOK_SOURCE_INLINE_CHARS=200) as app:
        yield app


@pytest.fixture
def browser_like(sources_app):
    """Ana signed in on the app, with a page; `.page_id` and `.user_id` are hers."""
    return signed_in_with_a_page(sources_app, "Cells")


def the_source(app, user_id):
    with as_user(app, user_id) as user:
        page_source = db.session.scalars(sa.select(NotebookSource).where(NotebookSource.user_id == user.id)).one()
        db.session.expunge(page_source)
        return page_source


def row_until(client, source_id, state, seconds=20):
    """Poll the row as the page does until it reads `state`."""
    deadline = time.monotonic() + seconds
    while True:
        row = client.get(f"/notebook/sources/{source_id}/progress", headers=hx(client)).get_data(as_text=True)
        if f'data-state="{state}"' in row or time.monotonic() > deadline:
            return row
        time.sleep(0.05)


def hits(app, user_id, page_id, query):
    with as_user(app, user_id) as user:
        return [hit.passage.position for hit in sources.search(user, page_id, query)]


def test_a_long_source_answers_at_once_and_is_searchable_once_indexed(sources_app, browser_like):
    response = browser_like.post(
        f"/notebook/pages/{browser_like.page_id}/sources", data={"text": LONG_TEXT}, headers=hx(browser_like)
    )
    assert response.status_code == 200
    assert "being indexed" in response.headers["HX-Trigger"]
    source = the_source(sources_app, browser_like.user_id)
    row = row_until(browser_like, source.id, "ready")
    assert "8 passages, searchable" in row and "hx-trigger" not in row  # done: the row stops asking
    assert hits(sources_app, browser_like.user_id, browser_like.page_id, "osmosis") == [1, 2, 3, 4, 5, 6, 7, 8]


def test_the_row_shows_the_progress_and_search_waits_for_the_whole_source(sources_app, browser_like, monkeypatch):
    monkeypatch.setattr(sources, "BATCH", 3)
    first_batch_in, go_on = threading.Event(), threading.Event()
    index_batch = sources.index_batch

    def slow_index(source, batch):
        index_batch(source, batch)
        if not first_batch_in.is_set():
            first_batch_in.set()
            go_on.wait(10)

    monkeypatch.setattr(sources, "index_batch", slow_index)
    browser_like.post(
        f"/notebook/pages/{browser_like.page_id}/sources", data={"text": LONG_TEXT}, headers=hx(browser_like)
    )
    source = the_source(sources_app, browser_like.user_id)
    assert first_batch_in.wait(10)
    time.sleep(0.2)  # the batch's commit
    row = browser_like.get(f"/notebook/sources/{source.id}/progress", headers=hx(browser_like)).get_data(as_text=True)
    searched_midway = hits(sources_app, browser_like.user_id, browser_like.page_id, "osmosis")
    go_on.set()
    assert 'hx-trigger="every 1s"' in row and 'data-state="processing"' in row
    assert re.search(r'<progress max="8" value="[03]"', row)
    assert searched_midway == []  # three passages are in, but the source is not ready yet
    sources.wait_for(source.id)
    assert "8 passages, searchable" in row_until(browser_like, source.id, "ready")


def test_a_crash_while_indexing_leaves_a_failed_source_and_nothing_searchable(sources_app, browser_like, monkeypatch):
    monkeypatch.setattr(sources, "BATCH", 3)
    index_batch = sources.index_batch
    batches = []

    def crashing_index(source, batch):
        batches.append(len(batch))
        if len(batches) == 2:
            raise RuntimeError("the disk is full")
        index_batch(source, batch)

    monkeypatch.setattr(sources, "index_batch", crashing_index)
    browser_like.post(
        f"/notebook/pages/{browser_like.page_id}/sources", data={"text": LONG_TEXT}, headers=hx(browser_like)
    )
    source = the_source(sources_app, browser_like.user_id)
    sources.wait_for(source.id)
    row = row_until(browser_like, source.id, "failed")
    assert "Something went wrong while this source was indexed" in row and "hx-trigger" not in row
    with sources_app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(SourcePassage)) == 0
        assert indexed_rows() == 0
    assert hits(sources_app, browser_like.user_id, browser_like.page_id, "osmosis") == []
    delete = browser_like.post(f"/notebook/sources/{source.id}/delete", headers=hx(browser_like))
    assert delete.status_code == 204


def test_a_large_pdf_is_read_in_the_background_and_one_without_text_says_so(sources_app, browser_like):
    sources_app.config["NOTEBOOK_PDF_INLINE_BYTES"] = 0
    for name, pdf in (("paper.pdf", a_pdf(["Ribosomes build proteins."])), ("scan.pdf", a_pdf([]))):
        response = browser_like.post(
            f"/notebook/pages/{browser_like.page_id}/sources/upload",
            data={"file": (io.BytesIO(pdf), name)},
            headers=hx(browser_like),
        )
        assert response.status_code == 200
    with as_user(sources_app, browser_like.user_id) as user:
        page = notebook.get_page(user, browser_like.page_id)
        paper, scan = (source.id for source in sources.sources_of(user, page))
    assert "1 passage, searchable" in row_until(browser_like, paper, "ready")
    assert "This PDF has no text to extract" in row_until(browser_like, scan, "failed")
    with sources_app.app_context():
        uploads = db.session.scalars(sa.select(NotebookSource.upload)).all()
    assert uploads == [None, None]  # read or refused, the bytes are not kept
    assert hits(sources_app, browser_like.user_id, browser_like.page_id, "proteins") == [1]


def test_a_source_whose_thread_died_long_ago_reads_as_failed(sources_app, browser_like):
    with as_user(sources_app, browser_like.user_id):
        source = NotebookSource(
            user_id=browser_like.user_id, page_id=browser_like.page_id, title="Lost", origin="pasted", text="x"
        )
        source.status = "processing"
        db.session.add(source)
        db.session.commit()
        assert sources.state(source) == "processing"
        assert sources.state(source, now=utcnow() + timedelta(minutes=11)) == "failed"
