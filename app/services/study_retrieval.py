"""What the notebook's AI reads from a page's sources for a question: the passages that answer it
best, with where each came from.

Full-text ranking (app/services/study_sources.py: FTS5 or PostgreSQL's tsvector) always works,
with no key at all.
"""

from typing import NamedTuple

from app.services import study_sources

RETRIEVED = 6  # source passages given to the model beside the page's own notes


class Retrieved(NamedTuple):
    passage_id: int
    source_id: object
    source_title: str
    position: int  # the passage's place in its source: 1, 2, …
    text: str
    score: float  # higher is better; comparable only within one answer


def retrieve(user, page_id, question, limit=RETRIEVED):
    """The page's ready source passages that best answer `question`, best first. An unknown or
    foreign page is refused like everywhere else; a question with no words finds nothing."""
    hits = study_sources.search(user, page_id, question, limit=limit)
    return [
        Retrieved(hit.passage.id, hit.source.id, hit.source.title, hit.passage.position, hit.passage.text, 1 / rank)
        for rank, hit in enumerate(hits, start=1)
    ]
