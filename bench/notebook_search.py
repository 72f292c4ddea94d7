"""How fast full-text search over a study page's sources answers with 2,000 passages.

    .venv/bin/python -m bench.notebook_search [--runs 300] [--warmup 30] [--database-url URL] [--smoke]

It makes one account with one notebook page holding 20 pasted sources of 100 paragraphs each
(every paragraph ~700 characters, so one passage each: 2,000 passages), written through the
services (`study_sources.paste`, which splits and indexes), in a fresh SQLite file — or in the
database at --database-url (e.g. postgresql+psycopg://postgres@127.0.0.1:5432/beyou_bench),
whose tables it DROPS and makes again. The words follow a Zipf-like law over a made-up
vocabulary of 3,000 words, so some queries hit hundreds of passages and some a handful.

Then it times `study_sources.search` (the ranked query, the rows loaded, the highlighting) and
GET /notebook/pages/<id>/search as htmx sends it (the same plus the route and the template),
over a mix of one-, two- and three-word queries, warm-up runs excluded, and prints p50 and p95
of each. Target: search p95 < 50 ms on SQLite.
"""

import argparse
import random
import re
import statistics
import tempfile
import time
from pathlib import Path

from app import create_app
from app.extensions import db
from app.notebook import services as notebook
from app.notebook import sources
from app.notebook.models.sources import SourcePassage
from app.profile import accounts
from app.profile.models import User

SOURCES = 20
PARAGRAPHS = 100
PASSWORD = "bench password 1234"
SEED = 20261201


def vocabulary(dice, size=3000):
    syllables = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "zi", "pe", "sa", "do", "gu", "fe", "bri", "tor", "lan"]
    words = set()
    while len(words) < size:
        words.add("".join(dice.choice(syllables) for _ in range(dice.randint(2, 4))))
    return sorted(words)


def paragraph(dice, words, weights):
    text = []
    while sum(len(word) + 1 for word in text) < 700:
        text.extend(dice.choices(words, weights, k=8))
    return " ".join(text).capitalize() + "."


def build(app, dice, sources_count=SOURCES):
    """The account and its 2,000 passages (100 a source); returns (user id, page id, words by frequency)."""
    words = vocabulary(dice)
    weights = [1 / (rank + 1) for rank in range(len(words))]
    with app.app_context():
        db.drop_all()
        db.create_all()
        user = accounts.register(
            name="Bench", email="bench@example.com", password=PASSWORD, language="en", timezone_name="UTC"
        )
        page = notebook.create_page(user, notebook.create_topic(user, "Bench").id, "Everything")
        for number in range(1, sources_count + 1):
            text = "\n\n".join(paragraph(dice, words, weights) for _ in range(PARAGRAPHS))
            sources.paste(user, page.id, text, title=f"Source {number}")
        passages = db.session.scalar(db.select(db.func.count()).select_from(SourcePassage))
        return user.id, page.id, words, passages


def queries(dice, words, count):
    """One-, two- and three-word queries: frequent words (many hits) and rare ones (few)."""
    common, rare = words[:50], words[-1000:]
    made = []
    for _ in range(count):
        pool = dice.choice((common, rare, words))
        made.append(" ".join(dice.sample(pool, dice.randint(1, 3))))
    return made


def percentiles(samples):
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered) * 1000, p95 * 1000


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--smoke", action="store_true", help="what CI runs: tiny sizes, the same code paths")
    options = parser.parse_args()
    if options.smoke:
        options.runs, options.warmup = 10, 2
    with tempfile.TemporaryDirectory() as folder:
        url = options.database_url or f"sqlite:///{Path(folder) / 'bench.sqlite3'}"
        app = create_app(
            "test",
            SQLALCHEMY_DATABASE_URI=url,
            RATELIMIT_STORAGE_URI="memory://",
            NOTEBOOK_SOURCE_INLINE_CHARS=sources.PASTE_MAX_CHARS,
        )
        dice = random.Random(SEED)
        started = time.perf_counter()
        user_id, page_id, words, passages = build(app, dice, 1 if options.smoke else SOURCES)
        print(f"{url.split(':', 1)[0]}: {passages} passages built in {time.perf_counter() - started:.1f} s")
        asked = queries(dice, words, options.warmup + options.runs)

        service, found = [], []
        with app.app_context():
            user = db.session.get(User, user_id)
            for number, query in enumerate(asked):
                began = time.perf_counter()
                hits = sources.search(user, page_id, query)
                if number >= options.warmup:
                    service.append(time.perf_counter() - began)
                    found.append(len(hits))

        client = app.test_client()
        token = re.search(r'name="csrf_token" value="([^"]+)"', client.get("/login").get_data(as_text=True))[1]
        client.post("/login", data={"email": "bench@example.com", "password": PASSWORD, "csrf_token": token})
        route = []
        for number, query in enumerate(asked):
            began = time.perf_counter()
            response = client.get(f"/notebook/pages/{page_id}/search", query_string={"q": query},
                                  headers={"HX-Request": "true"})  # fmt: skip
            if number >= options.warmup:
                route.append(time.perf_counter() - began)
            assert response.status_code == 200, response.status_code

        for name, samples in (("search (service)", service), ("GET …/search (route)", route)):
            p50, p95 = percentiles(samples)
            print(f"{name:22} p50 {p50:6.1f} ms   p95 {p95:6.1f} ms   ({len(samples)} runs)")
        print(f"results per query: median {statistics.median(found):.0f}, queries with none: "
              f"{sum(1 for count in found if not count)}")  # fmt: skip
        target = percentiles(service)[1] < 50
        print(f"target (search p95 < 50 ms): {'met' if target else 'MISSED'}")
        with app.app_context():
            db.engine.dispose()


if __name__ == "__main__":
    main()
