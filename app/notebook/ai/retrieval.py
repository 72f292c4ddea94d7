"""What the notebook's AI reads from a page's sources for a question: the passages that answer it
best, with where each came from.

Full text always works, with no key at all: the question's words less the stop words (English
and Portuguese: "what is the", "o que é a"), each cut to a rough stem and matched as a word's
start ("mitochondria" finds "mitochondrion"), found by the database's full-text index (SQLite's
FTS5, PostgreSQL's tsvector; app/notebook/models/sources.py) and ranked by BM25, the same on both.

When embeddings are configured (app/notebook/embeddings.py) and the page's passages have
vectors, the question is embedded (one call) and the passages nearest to it are ranked too; the
two rankings are blended by reciprocal-rank fusion: each passage scores the sum over the lists
it is in of 1 / (FUSION_K + its rank there). Ranks, not scores, because BM25, ts_rank_cd and
cosine similarity live on scales that cannot be added (and differ between the two databases);
FUSION_K = 60 is the usual constant, which keeps one list's first place from drowning a passage
both lists rank well. A tie (first in one list, absent from the other) goes to the passage full
text ranks better: the question's own words are the surer sign. A failing embeddings endpoint
never fails retrieval: full text answers.
"""

import math
import re
import unicodedata
from collections import Counter
from typing import NamedTuple

import sqlalchemy as sa
from sqlalchemy.orm import load_only

from app.extensions import db
from app.notebook import embeddings
from app.notebook import services as notebook
from app.notebook.models.sources import SEARCH_COLUMN, SEARCH_TABLE, NotebookSource, SourcePassage

RETRIEVED = 6  # source passages given to the model beside the page's own notes
CANDIDATES = 30  # passages each ranking contributes to the blend
POOL = 200  # passages the full-text index hands over for ranking
BM25_K1, BM25_B = 1.2, 0.75
FUSION_K = 60
QUESTION_MAX_CHARS = 2000  # what of a question is read (the rest adds nothing a search can use)
TERMS_MAX = 16
STEM_MIN = 4  # a stem shorter than this is matched as the whole word only

_WORD = re.compile(r"[^\W_]+")

_ENGLISH_STOP_WORDS = """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing done down during each either else
    ever every few for from further get gets got had has have having he her here hers herself him
    himself his how however i if in into is it its itself just let like made make makes many may
    me might more most much must my myself no nor not now of off often on once one only or other
    our ours ourselves out over own per please rather same shall she should since so some such
    tell than that the their theirs them themselves then there these they this those though
    through thus to too under until up upon us use used using very via was we were what whats
    when where whether which while who whom whose why will with within without would yet you your
    yours yourself explain describe mean means meant give example examples kind kinds way ways"""
_PORTUGUESE_STOP_WORDS = """
    à às ao aos aquela aquelas aquele aqueles aquilo as até com como contra cuja cujo da das de
    dela delas dele deles depois do dos e é ela elas ele eles em entre era eram essa essas esse
    esses esta está estão estas este estes eu foi foram há isso isto já lhe lhes mais mas me
    mesmo meu meus minha minhas muito na nas não nem no nos nós nossa nossas nosso nossos num numa
    o os ou para pela pelas pelo pelos por porque qual quais quando que quem se sem ser será seu
    seus só sua suas são também te tem têm ter teu tua um uma umas uns você vocês vos sobre cada
    qualquer quanto quantos quanta quantas onde porquê pode podem fazer faz feito explique
    explica significa exemplo exemplos tipo tipos diga"""
STOP_WORDS = frozenset(f"{_ENGLISH_STOP_WORDS} {_PORTUGUESE_STOP_WORDS}".split())

# Endings cut to reach a rough stem, longest first (English, then Portuguese). The stem is then
# matched as the start of a word, so "proteins" finds "protein" and "proteína" finds "proteínas".
_ENDINGS = """
    ational ations ation ements ement ments ment nesses ness ings ing ies ied ives ive ers er ed
    es ly s ções ção mente idades idade ismos ismo istas ista ões ais eis ns as os es a o"""
_SUFFIXES = sorted(set(_ENDINGS.split()), key=len, reverse=True)


class Retrieved(NamedTuple):
    passage_id: int
    source_id: object
    source_title: str
    position: int  # the passage's place in its source: 1, 2, …
    text: str
    score: float  # higher is better; comparable only within one answer


def retrieve(user, page_id, question, limit=RETRIEVED):
    """The page's ready source passages that best answer `question`, best first. An unknown or
    foreign page is refused like everywhere else; a question with no searchable word finds
    nothing by full text (embeddings may still find something)."""
    page = notebook.get_page(user, page_id)
    text = str(question or "")[:QUESTION_MAX_CHARS]
    sources = {
        source.id: source
        for source in db.session.scalars(
            sa.select(NotebookSource)
            .options(load_only(NotebookSource.title))
            .where(
                NotebookSource.user_id == user.id, NotebookSource.page_id == page.id, NotebookSource.status == "ready"
            )
        )
    }
    if not sources or not text.strip():
        return []
    rankings = [full_text(list(sources), question_terms(text), CANDIDATES)]
    if embeddings.configured() and embeddings.has_vectors(list(sources)):
        vector = embeddings.question_vector(text)
        if vector is not None:
            rankings.append([pid for pid, _similarity in embeddings.nearest(list(sources), vector, CANDIDATES)])
    scores = fused(rankings)
    words_rank = {pid: rank for rank, pid in enumerate(rankings[0])}
    best = sorted(scores, key=lambda pid: (-scores[pid], words_rank.get(pid, CANDIDATES), pid))[:limit]
    passages = {
        passage.id: passage
        for passage in db.session.scalars(sa.select(SourcePassage).where(SourcePassage.id.in_(best)))
    }
    return [
        Retrieved(pid, passages[pid].source_id, sources[passages[pid].source_id].title, passages[pid].position,
                  passages[pid].text, scores[pid])
        for pid in best
    ]  # fmt: skip


def fused(rankings):
    """Reciprocal-rank fusion of lists of passage ids, each best first: id -> score."""
    scores = {}
    for ranking in rankings:
        for rank, passage_id in enumerate(ranking, start=1):
            scores[passage_id] = scores.get(passage_id, 0.0) + 1 / (FUSION_K + rank)
    return scores


def question_terms(question):
    """The words of a question worth searching for: lowercase, no stop words, no repeats, each
    as its rough stem (matched as a word's start)."""
    terms = []
    for word in _WORD.findall(question.lower()):
        if _plain(word) in _PLAIN_STOP_WORDS or (len(word) < 2 and not word.isdigit()):
            continue
        terms.append(stem(word))
    return list(dict.fromkeys(terms))[:TERMS_MAX]


def stem(word):
    """The word less its longest known ending, if what is left has STEM_MIN letters or more."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= STEM_MIN:
            return word[: -len(suffix)]
    return word


def _plain(word):
    """Without accents, as SQLite's tokenizer reads it ("não" and "nao" are one word)."""
    return "".join(c for c in unicodedata.normalize("NFD", word) if not unicodedata.combining(c))


_PLAIN_STOP_WORDS = frozenset(_plain(word) for word in STOP_WORDS)


def full_text(source_ids, terms, limit):
    """Ids of the passages of these sources matching any term, best first.

    The database's index finds the passages (up to POOL of them, by its own rank); they are
    then ranked by BM25 here, the same on both databases: PostgreSQL's ts_rank_cd knows nothing
    of how rare a word is, so "law" found five times would outrank the one "Ohm" that answers.
    A word's rarity is counted among the passages found, which hold every passage with the word
    unless more than POOL matched."""
    if not terms:
        return []
    scope = SourcePassage.source_id.in_(source_ids)
    columns = (SourcePassage.id, SourcePassage.text)
    if db.engine.dialect.name == "postgresql":
        query = sa.func.to_tsquery(
            sa.literal_column("'simple'::regconfig"), " | ".join(_postgresql_term(term) for term in terms)
        )
        vector = sa.literal_column(f"study_passages.{SEARCH_COLUMN}")
        found = (
            sa.select(*columns)
            .where(vector.op("@@")(query), scope)
            .order_by(sa.func.ts_rank_cd(vector, query).desc(), SourcePassage.id)
        )
    else:
        index = sa.table(SEARCH_TABLE, sa.column("rowid"))
        match = " OR ".join(_sqlite_term(term) for term in terms)
        found = (
            sa.select(*columns)
            .select_from(index)
            .join(SourcePassage, SourcePassage.id == index.c.rowid)
            .where(sa.literal_column(SEARCH_TABLE).op("MATCH")(match), scope)
            .order_by(sa.func.bm25(sa.literal_column(SEARCH_TABLE)), SourcePassage.id)
        )
    passages = db.session.execute(found.limit(POOL)).all()
    total = db.session.scalar(sa.select(sa.func.count()).where(scope)) or 1
    scores = bm25({pid: _words(text) for pid, text in passages}, terms, total)
    return sorted(scores, key=lambda pid: (-scores[pid], pid))[:limit]


def bm25(documents, terms, total):
    """Okapi BM25 (k1 = 1.2, b = 0.75) of each document (id -> its words) for the terms, a
    term matching a word that starts with it (or equals it, when shorter than STEM_MIN)."""
    counted = {pid: Counter(words) for pid, words in documents.items()}
    lengths = {pid: len(words) for pid, words in documents.items()}
    average = (sum(lengths.values()) / len(lengths)) if lengths else 1
    vocabulary = set().union(*counted.values())
    scores = {}
    for term in terms:
        plain = _plain(term)
        matching = [word for word in vocabulary if _matches(word, plain)]
        frequencies = {pid: sum(counts.get(word, 0) for word in matching) for pid, counts in counted.items()}
        having = sum(1 for tf in frequencies.values() if tf)
        rarity = math.log(1 + (total - having + 0.5) / (having + 0.5))
        for pid, tf in frequencies.items():
            if tf:
                norm = tf + BM25_K1 * (1 - BM25_B + BM25_B * lengths[pid] / average)
                scores[pid] = scores.get(pid, 0.0) + rarity * tf * (BM25_K1 + 1) / norm
    return scores


def _words(text):
    return _WORD.findall(_plain(text.lower()))


def _matches(word, term):
    return word.startswith(term) if len(term) >= STEM_MIN else word == term


def _sqlite_term(term):
    return f'"{term}"*' if len(term) >= STEM_MIN else f'"{term}"'


def _postgresql_term(term):
    return f"{term}:*" if len(term) >= STEM_MIN else term
