"""How fast the study AI's retrieval answers a question over a page of 2,000 passages, with full
text alone and blended with embeddings.

    .venv/bin/python -m bench.notebook_retrieval [--questions 60] [--database-url URL] [--smoke]

The page is bench.notebook_search's (20 sources of 100 ~700-character paragraphs over a
Zipf-like made-up vocabulary), in a fresh SQLite file or in the database at --database-url,
whose tables it DROPS and makes again. Every passage gets a random 1,024-dimension vector (the
size of mistral-embed's), stored as the app stores them; the question's own embedding comes
from the tests' wire fake on a local port, so its network time is a loopback's. Then it times
`study_retrieval.retrieve` for questions of 3 to 8 words, and prints p50 and p95 of each mode.
"""

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from app import create_app
from app.extensions import db
from app.notebook import embeddings, sources
from app.notebook import services as notebook
from app.notebook.ai import retrieval
from app.notebook.models.sources import PassageVector, SourcePassage
from app.profile import accounts
from bench.notebook_search import PARAGRAPHS, PASSWORD, SEED, SOURCES, paragraph, vocabulary
from tests.fakes import FakeProviders

DIMENSIONS = 1024


def build(app, dice, sources_count=SOURCES):
    """The page, its passages (100 a source) and their vectors; returns (user, page id, words, weights)."""
    words = vocabulary(dice)
    weights = [1 / (rank + 1) for rank in range(len(words))]
    db.drop_all()
    db.create_all()
    user = accounts.register(
        name="Bench", email="bench@example.com", password=PASSWORD, language="en", timezone_name="UTC"
    )
    page = notebook.create_page(user, notebook.create_topic(user, "Bench").id, "Retrieval")
    for number in range(sources_count):
        text = "\n\n".join(paragraph(dice, words, weights) for _ in range(PARAGRAPHS))
        sources.paste(user, page.id, text, f"Source {number + 1}")
    rows = db.session.execute(db.select(SourcePassage.id, SourcePassage.source_id)).all()
    model = app.config["EMBEDDINGS_MODEL"]
    db.session.execute(
        db.insert(PassageVector),
        [{"passage_id": passage_id, "source_id": source_id, "model": model,
          "vector": embeddings.packed([dice.gauss(0, 1) for _ in range(DIMENSIONS)])}
         for passage_id, source_id in rows],
    )  # fmt: skip
    db.session.commit()
    return user, page.id, words, weights


def timed(user, page_id, questions):
    times = []
    for question in questions:
        started = time.perf_counter()
        retrieval.retrieve(user, page_id, question)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return statistics.median(times), times[int(0.95 * (len(times) - 1))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--database-url")
    parser.add_argument("--smoke", action="store_true", help="what CI runs: tiny sizes, the same code paths")
    options = parser.parse_args()
    if options.smoke:
        options.questions = 5
    dice = random.Random(SEED)
    with FakeProviders() as fake, tempfile.TemporaryDirectory() as folder:
        url = options.database_url or f"sqlite:///{Path(folder) / 'retrieval.sqlite3'}"
        app = create_app(
            "test",
            SQLALCHEMY_DATABASE_URI=url,
            NOTEBOOK_SOURCE_INLINE_CHARS=200_000,
            EMBEDDINGS_BASE_URL=fake.base_url("embeddings"),
            EMBEDDINGS_MODEL="bench-embed",
        )
        with app.app_context():
            user, page_id, words, weights = build(app, dice, 1 if options.smoke else SOURCES)
            questions = [" ".join(dice.choices(words, weights, k=dice.randint(3, 8))) for _ in range(options.questions)]
            timed(user, page_id, questions[:5])  # warm-up
            p50, p95 = timed(user, page_id, questions)
            print(f"full text alone: p50 {p50:.0f} ms, p95 {p95:.0f} ms")
            app.config["EMBEDDINGS_API_KEY"] = "bench-key"
            p50, p95 = timed(user, page_id, questions)
            print(f"blended with embeddings: p50 {p50:.0f} ms, p95 {p95:.0f} ms")
            db.session.remove()
            db.engine.dispose()


if __name__ == "__main__":
    main()
