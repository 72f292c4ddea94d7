"""Embeddings of a study page's passages, when an endpoint is configured: what lets retrieval find
a passage that answers a question in other words than the question's.

Any OpenAI-compatible embeddings endpoint (Mistral's by default) through the `openai` SDK, with
its own settings (EMBEDDINGS_BASE_URL, EMBEDDINGS_API_KEY, EMBEDDINGS_MODEL): the call does not
go through the chat chain, so the chain's blocklist does not govern it, and the privacy page
says where it goes. Without a key nothing here runs and retrieval is full-text alone.

A source is embedded in the background once it is ready (its own thread, in batches, its
progress counted from the vectors stored), and a source that was ready before the key was set
is caught up lazily when its page's sources panel is shown, or all at once by
`flask notebook-embed`. A failed call stops that source's work, logged; its passages are still
found by full text, the panel says embedding failed, and it is tried again after RETRY_AFTER.
Vectors are unit-length float32 bytes in the app's own database (PassageVector).
"""

import logging
import math
import operator
import time
from array import array
from datetime import timedelta
from typing import NamedTuple

import openai
import sqlalchemy as sa
from flask import current_app

from app import daemons
from app.extensions import db
from app.notebook.models.sources import NotebookSource, PassageVector, SourcePassage
from app.shared.models import utcnow

log = logging.getLogger(__name__)

BATCH = 32  # passages sent in one call: the progress moves in these steps
# A claim not renewed for this long lost its thread (a restarted worker): another may take over.
CLAIM_STALE = timedelta(minutes=2)
RETRY_AFTER = timedelta(minutes=5)  # a failed source is tried again after this
QUESTION_SECONDS = 5.0


class EmbeddingFailed(Exception):
    """The endpoint did not answer with one vector per text (unreachable, refused, malformed)."""


def configured(config=None):
    """Embeddings are on when the endpoint has a key."""
    return bool((config or current_app.config)["EMBEDDINGS_API_KEY"])


def model_name():
    return current_app.config["EMBEDDINGS_MODEL"]


def embed(texts, timeout=None):
    """One call for `texts`: each one's vector, unit length, packed as float32 bytes."""
    config = current_app.config
    client = openai.OpenAI(
        api_key=config["EMBEDDINGS_API_KEY"],
        base_url=config["EMBEDDINGS_BASE_URL"],
        timeout=min(timeout or config["EMBEDDINGS_TIMEOUT"], config["EMBEDDINGS_TIMEOUT"]),
        max_retries=0,  # a failure is retried later, never in a loop here
    )
    try:
        answer = client.embeddings.create(model=config["EMBEDDINGS_MODEL"], input=list(texts), encoding_format="float")
        by_index = sorted(answer.data, key=lambda item: item.index)
        vectors = [packed(item.embedding) for item in by_index]
    except (openai.OpenAIError, ValueError, TypeError, AttributeError) as error:
        raise EmbeddingFailed(str(error)) from error
    finally:
        client.close()
    if len(vectors) != len(texts):
        raise EmbeddingFailed(f"{len(vectors)} vectors for {len(texts)} texts")
    return vectors


def packed(values):
    """A vector as unit-length float32 bytes (a zero vector stays zero: it matches nothing)."""
    if not values or not all(isinstance(value, float | int) and math.isfinite(value) for value in values):
        raise ValueError("not a vector")
    norm = math.sqrt(sum(value * value for value in values))
    return array("f", (value / norm if norm else 0.0 for value in values)).tobytes()


def unpacked(data):
    return array("f", data)


def question_vector(question):
    """The question's vector (one call, which waits at most QUESTION_SECONDS: a student is
    waiting), or None when the endpoint fails: retrieval then uses full text alone, and the
    failure is logged."""
    try:
        return unpacked(embed([question], timeout=QUESTION_SECONDS)[0])
    except EmbeddingFailed as error:
        log.warning("the question could not be embedded, full-text alone answers it: %s", error)
        return None


def nearest(source_ids, vector, limit):
    """(passage id, cosine similarity) of the passages of these sources with a vector of the
    current model, the most similar first."""
    rows = db.session.execute(
        sa.select(PassageVector.passage_id, PassageVector.vector).where(
            PassageVector.source_id.in_(source_ids), PassageVector.model == model_name()
        )
    ).all()
    scored = []
    for passage_id, data in rows:
        stored = unpacked(data)
        if len(stored) == len(vector):
            scored.append((passage_id, sum(map(operator.mul, stored, vector))))
    scored.sort(key=lambda pair: (-pair[1], pair[0]))
    return scored[:limit]


def has_vectors(source_ids):
    return bool(
        db.session.scalar(
            sa.select(PassageVector.passage_id)
            .where(PassageVector.source_id.in_(source_ids), PassageVector.model == model_name())
            .limit(1)
        )
    )


# Progress -----------------------------------------------------------------------------------


class Progress(NamedTuple):
    done: int
    total: int
    state: str  # "embedding", "embedded" or "failed" (will be retried)


def progress_of(sources, now=None):
    """Each ready source's embedding progress by id (none at all when embeddings are off)."""
    ready = [source for source in sources if source.status == "ready"]
    if not configured() or not ready:
        return {}
    counts = dict(
        db.session.execute(
            sa.select(PassageVector.source_id, sa.func.count())
            .where(PassageVector.source_id.in_([s.id for s in ready]), PassageVector.model == model_name())
            .group_by(PassageVector.source_id)
        ).all()
    )
    progress = {}
    for source in ready:
        done = counts.get(source.id, 0)
        if done >= source.passages_total:
            state = "embedded"
        elif _failed_recently(source, now):
            state = "failed"
        else:
            state = "embedding"
        progress[source.id] = Progress(done, source.passages_total, state)
    return progress


def _aware(moment, now):
    return moment.replace(tzinfo=now.tzinfo) if moment.tzinfo is None else moment  # SQLite: naive UTC


def _failed_recently(source, now=None):
    now = now or utcnow()
    return source.embedding_failed_at is not None and now - _aware(source.embedding_failed_at, now) < RETRY_AFTER


def _claimed(source, now=None):
    now = now or utcnow()
    return source.embedding_claimed_at is not None and now - _aware(source.embedding_claimed_at, now) < CLAIM_STALE


# The background work ------------------------------------------------------------------------

_embedding = daemons.Tracked("embed")


def start(source_id):
    """Embed a ready source's passages on a thread of their own (a greenlet under gevent)."""
    return _embedding.start(source_id, embed_source, source_id)


def wait_for(source_id, seconds=30):
    """Block until the source's embedding thread (if any, in this process) is done."""
    _embedding.wait_for(source_id, seconds)


def catch_up(sources):
    """Start the work for each ready source that still lacks vectors, unless a thread holds it or
    it failed a moment ago: a source from before the key was set, or one whose thread died."""
    progress = progress_of(sources)
    for source in sources:
        if progress.get(source.id, Progress(0, 0, "embedded")).state != "embedding" or _claimed(source):
            continue
        if not _embedding.running(source.id):
            start(source.id)


def embed_source(source_id):
    """Embed what the source still lacks, batch by batch, if no other thread holds it. Returns
    how many passages got a vector; a failure is recorded on the source, never raised."""
    if not _claim(source_id):
        return 0
    embedded = 0
    model = model_name()
    try:
        while batch := _missing(source_id, model):
            vectors = embed([text for _id, text in batch])
            ids = [passage_id for passage_id, _text in batch]
            db.session.execute(sa.delete(PassageVector).where(PassageVector.passage_id.in_(ids)))
            db.session.execute(
                sa.insert(PassageVector),
                [
                    {"passage_id": i, "source_id": source_id, "model": model, "vector": v}
                    for i, v in zip(ids, vectors, strict=True)
                ],
            )
            _mark(source_id, embedding_claimed_at=utcnow())  # renewed: the work is alive
            db.session.commit()
            embedded += len(batch)
            time.sleep(0)  # under gevent, let the worker's other requests run between batches
    except EmbeddingFailed as error:
        db.session.rollback()
        log.warning("source %s could not be embedded (will retry): %s", source_id, error)
        _mark(source_id, embedding_claimed_at=None, embedding_failed_at=utcnow())
        db.session.commit()
        return embedded
    except Exception:
        db.session.rollback()
        log.exception("source %s could not be embedded", source_id)
        _mark(source_id, embedding_claimed_at=None, embedding_failed_at=utcnow())
        db.session.commit()
        return embedded
    _mark(source_id, embedding_claimed_at=None, embedding_failed_at=None)
    db.session.commit()
    return embedded


def _claim(source_id):
    """Take the source's work unless a live thread (here or in another worker) holds it."""
    now = utcnow()
    taken = db.session.execute(
        sa.update(NotebookSource)
        .where(
            NotebookSource.id == source_id,
            NotebookSource.status == "ready",
            sa.or_(
                NotebookSource.embedding_claimed_at.is_(None), NotebookSource.embedding_claimed_at < now - CLAIM_STALE
            ),
        )
        .values(embedding_claimed_at=now)
    ).rowcount
    db.session.commit()
    return taken == 1


def _mark(source_id, **values):
    db.session.execute(sa.update(NotebookSource).where(NotebookSource.id == source_id).values(**values))


def _missing(source_id, model):
    """The next batch of the source's passages without a vector of `model`, in order."""
    current = sa.select(PassageVector.passage_id).where(
        PassageVector.source_id == source_id, PassageVector.model == model
    )
    return db.session.execute(
        sa.select(SourcePassage.id, SourcePassage.text)
        .where(SourcePassage.source_id == source_id, SourcePassage.id.not_in(current))
        .order_by(SourcePassage.position)
        .limit(BATCH)
    ).all()


def embed_everything():
    """Every ready source's missing vectors, one source after another (`flask notebook-embed`).
    Returns (sources worked on, passages embedded, sources that failed)."""
    model = model_name()
    current = sa.select(PassageVector.passage_id).where(PassageVector.model == model)
    lacking = db.session.scalars(
        sa.select(SourcePassage.source_id)
        .join(NotebookSource, NotebookSource.id == SourcePassage.source_id)
        .where(NotebookSource.status == "ready", SourcePassage.id.not_in(current))
        .distinct()
    ).all()
    passages = failed = 0
    for source_id in lacking:
        passages += embed_source(source_id)
        source = db.session.get(NotebookSource, source_id)
        db.session.refresh(source)
        failed += source.embedding_failed_at is not None
    return len(lacking), passages, failed
