"""Embeddings of a page's passages, against the wire fake's OpenAI-compatible `/embeddings`: made
in the background once a source is ready (a short one from its request, a long one after its
indexing), with the progress on the source's row; a failing endpoint leaves a visible failure,
full-text retrieval, and a retry once it is due; the vectors are replaced when the model
changes, and go with their source. Runs on a database file (or PostgreSQL), which the request
and the thread share as in production."""

import re
import time
from datetime import timedelta

import pytest
import sqlalchemy as sa

from app.extensions import db
from app.notebook import embeddings, sources
from app.notebook import services as notebook
from app.notebook.ai import retrieval
from app.notebook.models.sources import NotebookSource, PassageVector
from app.profile import configuration
from app.shared.models import utcnow
from tests.builders import as_user
from tests.conftest import PASSWORD, hx, make_user
from tests.fakes import Reply
from tests.notebook.conftest import EMBEDDINGS, app_on_a_file, signed_in_with_a_page

FIVE_PASSAGES = "\n\n".join(f"Part {n}: " + f"chlorophyll{n} captures light " * 30 for n in range(1, 6))


@pytest.fixture
def embedding_app(tmp_path, fake_outside):
    with app_on_a_file(
        tmp_path,
        "embeddings",
        NOTEBOOK_SOURCE_INLINE_CHARS=20_000,
        EMBEDDINGS_API_KEY="embed-key",
        EMBEDDINGS_BASE_URL=fake_outside.base_url(EMBEDDINGS),
        EMBEDDINGS_MODEL="fake-embed",
        EMBEDDINGS_TIMEOUT=10.0,
    ) as app:
        yield app


@pytest.fixture
def student(embedding_app):
    """Ana signed in, with a page; `.page_id` and `.user_id` are hers."""
    return signed_in_with_a_page(embedding_app, "Plants")


def paste(client, text=FIVE_PASSAGES, title="Chlorophyll"):
    response = client.post(f"/notebook/pages/{client.page_id}/sources", data={"title": title, "text": text},
                           headers=hx(client))  # fmt: skip
    assert response.status_code == 200
    with as_user(client.application, client.user_id):
        return db.session.scalars(sa.select(NotebookSource.id).where(NotebookSource.title == title)).one()


def row(client, source_id):
    return client.get(f"/notebook/sources/{source_id}/progress", headers=hx(client)).get_data(as_text=True)


def vectors(app, source_id):
    with app.app_context():
        return db.session.execute(
            sa.select(PassageVector.model, sa.func.count())
            .where(PassageVector.source_id == source_id)
            .group_by(PassageVector.model)
        ).all()


def until(check, seconds=10):
    deadline = time.monotonic() + seconds
    while not (result := check()) and time.monotonic() < deadline:
        time.sleep(0.02)
    return result


def test_a_pasted_source_is_embedded_in_the_background_in_batches(embedding_app, student, fake_outside, monkeypatch):
    monkeypatch.setattr(embeddings, "BATCH", 2)
    source_id = paste(student)
    embeddings.wait_for(source_id)
    assert vectors(embedding_app, source_id) == [("fake-embed", 5)]
    calls = fake_outside.requests(EMBEDDINGS)
    assert [len(call.body["input"]) for call in calls] == [2, 2, 1]
    assert calls[0].body["model"] == "fake-embed" and calls[0].body["encoding_format"] == "float"
    assert calls[0].headers["authorization"] == "Bearer embed-key"
    assert calls[0].body["input"][0].startswith("Part 1: chlorophyll1")
    done = row(student, source_id)
    assert 'data-embedding="embedded"' in done and "5 passages, searchable by words and by meaning" in done
    assert "hx-trigger" not in done  # nothing left to follow


def test_the_row_shows_the_embedding_progress_while_it_runs(embedding_app, student, fake_outside, monkeypatch):
    monkeypatch.setattr(embeddings, "BATCH", 2)
    fake_outside.script(EMBEDDINGS, Reply(), Reply(first_byte_delay=1.5))
    source_id = paste(student)
    assert until(lambda: len(fake_outside.requests(EMBEDDINGS)) == 2)
    midway = row(student, source_id)
    embeddings.wait_for(source_id)
    assert 'data-embedding="embedding"' in midway and 'hx-trigger="every 2s"' in midway
    assert re.search(r'<progress max="5" value="2"', midway)
    assert "Embedded 2 of 5 passages for search by meaning" in midway
    assert 'data-embedding="embedded"' in row(student, source_id)


def test_a_failing_endpoint_says_so_keeps_full_text_and_retries_when_due(
    embedding_app, student, fake_outside, monkeypatch
):
    monkeypatch.setattr(embeddings, "BATCH", 2)
    fake_outside.script(EMBEDDINGS, Reply(), Reply.fails(503))
    source_id = paste(student)
    embeddings.wait_for(source_id)
    failed = row(student, source_id)
    assert 'data-embedding="failed"' in failed and 'hx-trigger="every 30s"' in failed
    assert "Embedding failed after 2 of 5 passages; it will be retried in a few minutes." in failed
    assert vectors(embedding_app, source_id) == [("fake-embed", 2)]  # what was embedded stays
    with as_user(embedding_app, student.user_id) as user:
        assert [hit.position for hit in retrieval.retrieve(user, student.page_id, "chlorophyll3?", limit=1)] == [3]

    calls = len(fake_outside.requests(EMBEDDINGS))  # two batches, then the question above
    assert 'data-embedding="failed"' in row(student, source_id)  # polled before the retry is due...
    time.sleep(0.1)
    assert len(fake_outside.requests(EMBEDDINGS)) == calls == 3  # ...it calls nothing

    with embedding_app.app_context():
        failed_at = utcnow() - embeddings.RETRY_AFTER - timedelta(seconds=1)
        db.session.execute(sa.update(NotebookSource).values(embedding_failed_at=failed_at))
        db.session.commit()
    row(student, source_id)  # the poll that finds the retry due starts it
    embeddings.wait_for(source_id)
    assert vectors(embedding_app, source_id) == [("fake-embed", 5)]
    assert 'data-embedding="embedded"' in row(student, source_id)


def test_a_long_source_is_embedded_after_its_indexing_on_the_same_thread(embedding_app, student, fake_outside):
    embedding_app.config["NOTEBOOK_SOURCE_INLINE_CHARS"] = 200
    source_id = paste(student)
    sources.wait_for(source_id)
    assert vectors(embedding_app, source_id) == [("fake-embed", 5)]
    assert 'data-embedding="embedded"' in row(student, source_id)


def test_sources_from_before_the_key_catch_up_when_the_panel_is_shown(embedding_app, student, fake_outside):
    embedding_app.config["EMBEDDINGS_API_KEY"] = None
    source_id = paste(student)
    panel = student.get(f"/notebook/pages/{student.page_id}/sources", headers=hx(student)).get_data(as_text=True)
    assert "data-embedding" not in panel and "by meaning" not in panel
    assert fake_outside.requests(EMBEDDINGS) == []  # no key, no call

    embedding_app.config["EMBEDDINGS_API_KEY"] = "embed-key"
    panel = student.get(f"/notebook/pages/{student.page_id}/sources", headers=hx(student)).get_data(as_text=True)
    assert 'data-embedding="embedding"' in panel
    embeddings.wait_for(source_id)
    assert vectors(embedding_app, source_id) == [("fake-embed", 5)]


def test_a_new_model_replaces_the_vectors_and_the_command_embeds_everything(embedding_app, student, fake_outside):
    source_id = paste(student)
    embeddings.wait_for(source_id)
    embedding_app.config["EMBEDDINGS_MODEL"] = "fake-embed-2"
    result = embedding_app.test_cli_runner().invoke(args=["notebook-embed"])
    assert result.exit_code == 0 and "Embedded 5 passage(s) of 1 source(s)." in result.output
    assert vectors(embedding_app, source_id) == [("fake-embed-2", 5)]
    assert (
        "Embedded 0 passage(s) of 0 source(s)."
        in embedding_app.test_cli_runner().invoke(args=["notebook-embed"]).output
    )


def test_the_command_refuses_without_a_key_and_reports_failures(embedding_app, student, fake_outside):
    embedding_app.config["EMBEDDINGS_API_KEY"] = None
    paste(student)
    result = embedding_app.test_cli_runner().invoke(args=["notebook-embed"])
    assert result.exit_code != 0 and "BEYOU_EMBEDDINGS_API_KEY" in result.output
    embedding_app.config["EMBEDDINGS_API_KEY"] = "embed-key"
    fake_outside.script(EMBEDDINGS, Reply.fails(500))
    result = embedding_app.test_cli_runner().invoke(args=["notebook-embed"])
    assert result.exit_code != 0 and "1 source(s) failed" in result.output


def test_a_source_held_by_another_worker_is_left_alone(embedding_app, student, fake_outside):
    embedding_app.config["EMBEDDINGS_API_KEY"] = None
    source_id = paste(student)
    embedding_app.config["EMBEDDINGS_API_KEY"] = "embed-key"
    with embedding_app.app_context():
        db.session.execute(sa.update(NotebookSource).values(embedding_claimed_at=utcnow()))
        db.session.commit()
        assert embeddings.embed_source(source_id) == 0
        stale = utcnow() - embeddings.CLAIM_STALE - timedelta(seconds=1)
        db.session.execute(sa.update(NotebookSource).values(embedding_claimed_at=stale))
        db.session.commit()
        assert embeddings.embed_source(source_id) == 5  # its thread is gone: taken over
    assert len(fake_outside.requests(EMBEDDINGS)) == 1


def test_deleting_a_source_deletes_its_vectors(embedding_app, student):
    source_id = paste(student)
    embeddings.wait_for(source_id)
    with as_user(embedding_app, student.user_id) as user:
        sources.delete(user, source_id)
    with embedding_app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(PassageVector)) == 0


def test_deleting_the_account_deletes_its_vectors_and_no_one_elses(embedding_app, student):
    source_id = paste(student)
    embeddings.wait_for(source_id)
    other = make_user(embedding_app, email="bruno@example.com", name="Bruno")
    with as_user(embedding_app, other) as bruno:
        page = notebook.create_page(bruno, notebook.create_topic(bruno, "Chemistry").id, "Acids")
        kept = sources.paste(bruno, page.id, "Acids give protons to bases.").id
        embeddings.embed_source(kept)
    with as_user(embedding_app, student.user_id) as ana:
        configuration.delete_account(ana, PASSWORD, configuration.confirmation_word(ana))
    with embedding_app.app_context():
        assert db.session.scalars(sa.select(PassageVector.source_id)).all() == [kept]
