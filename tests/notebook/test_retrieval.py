"""`study_retrieval.retrieve`: a question's searchable words (stop words dropped in English and
Portuguese, rough stems matched as a word's start), ranked the same on SQLite and PostgreSQL,
only the page's own ready sources, and — with the embedding fake — one call per question,
blended by reciprocal-rank fusion, with full text answering when that call fails."""

import time

import pytest

from app.notebook import embeddings, sources
from app.notebook import services as notebook
from app.notebook.ai import retrieval
from app.notebook.ai.retrieval import fused, question_terms, stem
from app.shared.errors import NotFound
from tests.fakes import Reply
from tests.notebook.conftest import EMBEDDINGS

SOURCES = {
    "Mitochondria": "Mitochondria release energy from food by cellular respiration and store it in ATP. The energy "
    "is spent by the cell to move and divide, and mitochondria have their own small genome inherited from the mother.",
    "Ribosomes": "Ribosomes read messenger RNA and build proteins one amino acid at a time. The law of the cell is "
    "that every protein is built by ribosomes, and a cell may hold millions of them in its cytoplasm.",
    "Membrane": "The cell membrane is a double layer of lipids that lets water and small molecules through but keeps "
    "large ones out. Proteins in the membrane pump ions and carry signals into the cell.",
    "Thermodynamics": "The first law of thermodynamics is the law of conservation of energy. Every law of physics "
    "here is a law about energy, and the law holds for every engine and every cell.",
    "Ohm": "Ohm's law relates the voltage, the current and the resistance of a conductor: voltage equals current "
    "times resistance.",
}


@pytest.fixture
def page(ana):
    """A page whose sources are one passage each, titled by their subject."""
    page = notebook.create_page(ana, notebook.create_topic(ana, "Biology").id, "Cells")
    for title, text in SOURCES.items():
        sources.paste(ana, page.id, text, title)
    return page


def titles(user, page, question, limit=3):
    return [hit.source_title for hit in retrieval.retrieve(user, page.id, question, limit=limit)]


def test_a_question_keeps_its_searchable_words_as_stems():
    assert question_terms("What is the role of the mitochondria in a cell?") == ["role", "mitochondri", "cell"]
    assert question_terms("O que é a respiração celular e para que serve?") == ["respira", "celular", "serve"]
    assert question_terms("Why? What is it? O que é isso?") == []
    assert question_terms("Voce sabe o que e a mitose? Nao entendo.") == ["sabe", "mitose", "entend"]  # no accents
    assert stem("proteins") == "protei" and stem("studies") == "stud" and stem("gas") == "gas"
    assert stem("funções") == "funç" and stem("gases") == "gase"  # never a stem under four letters


def test_the_question_finds_the_passage_that_answers_it_not_the_one_with_most_common_words(ana, page):
    assert titles(ana, page, "What is Ohm's law?")[0] == "Ohm"  # "law" is everywhere; "Ohm" is not
    assert titles(ana, page, "How do mitochondria store energy?")[0] == "Mitochondria"
    assert titles(ana, page, "Which organelle builds proteins?")[0] == "Ribosomes"  # "builds" finds "build", "built"


def test_stop_words_alone_find_nothing_and_a_foreign_page_is_unknown(ana, bruno, page):
    assert retrieval.retrieve(ana, page.id, "What is it? O que é?") == []
    assert retrieval.retrieve(ana, page.id, "") == []
    with pytest.raises(NotFound):
        retrieval.retrieve(bruno, page.id, "mitochondria")


def test_only_ready_sources_of_the_page_are_read(ana, page):
    other = notebook.create_page(ana, page.topic_id, "Elsewhere")
    sources.paste(ana, other.id, "Mitochondria everywhere, mitochondria again.")
    found = retrieval.retrieve(ana, page.id, "mitochondria")
    assert {hit.source_title for hit in found} == {"Mitochondria"}
    assert all(hit.score > 0 for hit in found) and found == sorted(found, key=lambda hit: -hit.score)


def test_without_a_key_no_call_leaves(ana, page, fake_outside):
    assert titles(ana, page, "mitochondria") == ["Mitochondria"]
    assert fake_outside.requests() == []


def test_fusion_adds_reciprocal_ranks():
    scores = fused([[1, 2, 3], [3, 4]])
    assert max(scores, key=scores.get) == 3  # third in one list and first in the other beats first in one
    assert scores[1] == pytest.approx(1 / 61) and scores[3] == pytest.approx(1 / 63 + 1 / 61)


def test_with_embeddings_one_call_per_question_and_the_blend_finds_other_words(ana, page, embeddings_on):
    embeddings.embed_everything()
    embeddings_on.reset()
    assert titles(ana, page, "mitochondrial inheritance")[0] == "Mitochondria"  # full text alone finds nothing
    calls = embeddings_on.requests(EMBEDDINGS)
    assert [call.body["input"] for call in calls] == [["mitochondrial inheritance"]]


def test_a_failing_question_call_falls_back_to_full_text(ana, page, embeddings_on):
    embeddings.embed_everything()
    full_text = retrieval.full_text(
        [s.id for s in sources.sources_of(ana, page)], question_terms("What is Ohm's law?"), 6
    )
    embeddings_on.reset()
    embeddings_on.script(EMBEDDINGS, Reply.fails(500))
    found = retrieval.retrieve(ana, page.id, "What is Ohm's law?")
    assert [hit.passage_id for hit in found] == full_text
    assert len(embeddings_on.requests(EMBEDDINGS)) == 1  # tried once, not retried in the question's time


def test_a_slow_question_call_gives_up_quickly_for_full_text(ana, page, embeddings_on, monkeypatch):
    embeddings.embed_everything()
    monkeypatch.setattr(embeddings, "QUESTION_SECONDS", 0.5)
    embeddings_on.script(EMBEDDINGS, Reply(first_byte_delay=3.0))
    started = time.monotonic()
    assert titles(ana, page, "What is Ohm's law?")[0] == "Ohm"
    assert time.monotonic() - started < 2.5
