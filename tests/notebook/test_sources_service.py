"""A study page's sources: the passage split, adding by paste or upload with every refusal, and
ranked full-text search — on SQLite here, and on PostgreSQL when BEYOU_TEST_DATABASE_URL is set
(the same tests run on both: the index is created with the tables, as the migration makes it)."""

import inspect
import io
import re

import pytest
import sqlalchemy as sa
from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

from app import demo
from app.agent.registry import REGISTRY
from app.extensions import db
from app.notebook import services as notebook
from app.notebook import sources
from app.notebook.models.sources import SEARCH_TABLE, NotebookSource, SourcePassage
from app.notebook.sources import PASSAGE_MAX, PASSAGE_TARGET, split
from app.profile import configuration
from app.shared.errors import Invalid, NotFound
from tests.conftest import PASSWORD


def a_pdf(*pages):
    """A PDF whose pages hold these lines of text (an empty page: no text at all)."""
    writer = PdfWriter()
    font = writer._add_object(
        DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Font"),
                NameObject("/Subtype"): NameObject("/Type1"),
                NameObject("/BaseFont"): NameObject("/Helvetica"),
            }
        )
    )
    for lines in pages:
        page = writer.add_blank_page(612, 792)
        page[NameObject("/Resources")] = DictionaryObject(
            {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
        )
        stream = DecodedStreamObject()
        stream.set_data(f"BT /F1 12 Tf 14 TL 72 720 Td {''.join(f'({line}) Tj T* ' for line in lines)}ET".encode())
        page[NameObject("/Contents")] = writer._add_object(stream)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@pytest.fixture
def page(ana):
    topic = notebook.create_topic(ana, "Biology")
    return notebook.create_page(ana, topic.id, "Cells")


def refusal_of(action):
    with pytest.raises(Invalid) as refused:
        action()
    return refused.value.details


def found(user, page, query):
    return [(hit.source.title, hit.passage.position) for hit in sources.search(user, page.id, query)]


# The split ----------------------------------------------------------------------------------


def test_short_paragraphs_are_gathered_and_each_passage_knows_where_it_starts():
    text = "# Cells\n\nThe cell is the unit of life.\n\n\n  Cells divide.  \n\nLast line."
    passages = split(text)
    assert [(p.position, p.text) for p in passages] == [
        (1, "# Cells\n\nThe cell is the unit of life.\n\nCells divide.\n\nLast line.")
    ]
    assert passages[0].start == 0


def test_paragraphs_never_share_a_passage_beyond_its_target_and_keep_their_order():
    paragraphs = [f"Paragraph {n}. " + "word " * 60 for n in range(1, 8)]  # ~320 characters each
    text = "\n\n".join(paragraphs)
    passages = split(text)
    assert [p.position for p in passages] == list(range(1, len(passages) + 1))
    assert all(len(p.text) <= PASSAGE_TARGET for p in passages)
    assert "\n\n".join(p.text for p in passages) == "\n\n".join(par.strip() for par in paragraphs)
    for passage in passages:  # each start points at the passage's first words in the source
        assert text[passage.start :].startswith(passage.text[:40])


def test_a_long_paragraph_is_cut_between_sentences_and_a_huge_sentence_between_words():
    sentences = " ".join(f"Sentence number {n} talks about membranes." for n in range(1, 80))
    giant = "x" * 50 + " " + "word " * 400  # one "sentence" of ~2,050 characters
    text = sentences + "\n\n" + giant
    passages = split(text)
    assert all(len(p.text) <= PASSAGE_MAX for p in passages)
    sentence_passages = [p for p in passages if "Sentence" in p.text]
    assert all(p.text.endswith("membranes.") for p in sentence_passages)  # cut only at a sentence's end
    assert " ".join(p.text for p in passages).split() == text.split()  # no word lost, none doubled
    for passage in passages:
        assert text[passage.start :].startswith(passage.text[:30])


def test_an_empty_text_has_no_passage():
    assert split("  \n\n \n") == []


# Adding -------------------------------------------------------------------------------------


def test_a_pasted_source_is_searchable_at_once_and_titled_by_its_first_line(ana, page):
    source = sources.paste(ana, page.id, "# Photosynthesis\n\nPlants turn light into sugar.")
    assert (source.title, source.origin, source.status, source.passages_total) == (
        "Photosynthesis",
        "pasted",
        "ready",
        1,
    )
    assert found(ana, page, "sugar") == [("Photosynthesis", 1)]


def test_pasted_sources_are_refused_empty_too_long_or_with_a_long_title(ana, page):
    assert refusal_of(lambda: sources.paste(ana, page.id, "  \n ")) == {"text": "NOTEBOOK_SOURCE_EMPTY"}
    too_long = "a" * (sources.PASTE_MAX_CHARS + 1)
    assert refusal_of(lambda: sources.paste(ana, page.id, too_long)) == {"text": "NOTEBOOK_SOURCE_TOO_LONG"}
    assert refusal_of(lambda: sources.paste(ana, page.id, "ok", title="t" * 201)) == {
        "title": "NOTEBOOK_SOURCE_TITLE_TOO_LONG"
    }
    assert refusal_of(lambda: sources.paste(ana, page.id, "a\x00b")) == {"text": "TEXT_HAS_NUL"}
    assert db.session.scalar(sa.select(sa.func.count()).select_from(NotebookSource)) == 0


def test_text_markdown_and_pdf_files_are_read(ana, page):
    txt = sources.upload(ana, page.id, "notes.txt", "\ufeffOsmosis moves water.\r\n".encode())
    md = sources.upload(ana, page.id, "C:\\docs\\summary.md", b"# Summary\n\nDiffusion spreads solutes.")
    pdf = sources.upload(ana, page.id, "paper.pdf", a_pdf(["Ribosomes build proteins."]))
    assert [(s.title, s.origin, s.filename) for s in (txt, md, pdf)] == [
        ("notes", "txt", "notes.txt"),
        ("summary", "md", "summary.md"),
        ("paper", "pdf", "paper.pdf"),
    ]
    assert txt.text == "Osmosis moves water."
    assert found(ana, page, "proteins") == [("paper", 1)]


@pytest.mark.parametrize(
    ("name", "data", "key"),
    [
        ("", b"", "NOTEBOOK_SOURCE_FILE_REQUIRED"),
        ("slides.docx", b"PK\x03\x04", "NOTEBOOK_SOURCE_FILE_TYPE"),
        ("noextension", b"text", "NOTEBOOK_SOURCE_FILE_TYPE"),
        ("empty.txt", b"  \n", "NOTEBOOK_SOURCE_EMPTY"),
        ("image.txt", b"\x89PNG\r\n\x1a\n\x00\x00", "NOTEBOOK_SOURCE_NOT_TEXT"),
        ("latin1.md", "Função".encode("latin-1"), "NOTEBOOK_SOURCE_NOT_TEXT"),
        ("renamed.txt", b"%PDF-1.4 ...", "NOTEBOOK_SOURCE_NOT_TEXT"),
        ("fake.pdf", b"just some text", "NOTEBOOK_SOURCE_NOT_PDF"),
        ("broken.pdf", b"%PDF-1.4 not really a pdf", "NOTEBOOK_SOURCE_PDF_UNREADABLE"),
    ],
)
def test_a_file_is_checked_by_its_content_not_only_its_name(ana, page, name, data, key):
    assert refusal_of(lambda: sources.upload(ana, page.id, name, data)) == {"file": key}
    assert db.session.scalar(sa.select(sa.func.count()).select_from(NotebookSource)) == 0


def test_a_pdf_without_text_and_an_oversize_file_are_refused_with_nothing_saved(ana, page):
    scanned = a_pdf([], [])
    assert refusal_of(lambda: sources.upload(ana, page.id, "scan.pdf", scanned)) == {
        "file": "NOTEBOOK_SOURCE_PDF_NO_TEXT"
    }
    huge = b"a" * (sources.FILE_MAX_BYTES + 1)
    assert refusal_of(lambda: sources.upload(ana, page.id, "huge.txt", huge)) == {
        "file": "NOTEBOOK_SOURCE_FILE_TOO_LARGE"
    }
    assert db.session.scalar(sa.select(sa.func.count()).select_from(NotebookSource)) == 0


def test_another_users_page_and_source_are_unknown(ana, bruno, page):
    source = sources.paste(ana, page.id, "Mine.")
    with pytest.raises(NotFound):
        sources.paste(bruno, page.id, "Theirs.")
    with pytest.raises(NotFound):
        sources.delete(bruno, source.id)
    with pytest.raises(NotFound):
        sources.search(bruno, page.id, "mine")


# Search -------------------------------------------------------------------------------------


def test_search_ranks_the_passage_about_the_words_first(ana, page):
    sources.paste(ana, page.id, "Many organelles exist; the mitochondria is one of them, among dozens more.", "Once")
    sources.paste(ana, page.id, "Mitochondria. Mitochondria make energy; mitochondria have their own DNA.", "Thrice")
    sources.paste(ana, page.id, "Chloroplasts capture light.", "Never")
    assert found(ana, page, "mitochondria") == [("Thrice", 1), ("Once", 1)]


def test_a_passage_with_more_of_the_words_ranks_above_one_with_fewer(ana, page):
    sources.paste(ana, page.id, "The membrane surrounds the cell.", "Both")
    sources.paste(ana, page.id, "A membrane can be a thin film in a drum.", "One")
    assert found(ana, page, "cell membrane") == [("Both", 1), ("One", 1)]


def test_search_is_case_insensitive_takes_the_last_word_as_a_prefix_and_ignores_syntax(ana, page):
    sources.paste(ana, page.id, "Photosynthesis happens in CHLOROPLASTS.", "Plants")
    assert found(ana, page, "chloroplasts") == [("Plants", 1)]
    assert found(ana, page, "photosynth") == [("Plants", 1)]
    assert found(ana, page, "NEAR( \"photo* OR ) -- ' ;") == []  # quotes, operators: just words
    assert found(ana, page, "  !!! ") == []
    with pytest.raises(Invalid):
        sources.search(ana, page.id, "x" * 201)


def test_search_stays_on_the_page_and_on_its_owner(ana, bruno, page):
    other_page = notebook.create_page(ana, page.topic_id, "Genetics")
    sources.paste(ana, page.id, "Cells have nuclei.", "Here")
    sources.paste(ana, other_page.id, "Nuclei hold DNA.", "There")
    theirs = notebook.create_page(bruno, notebook.create_topic(bruno, "Bio").id, "Cells")
    sources.paste(bruno, theirs.id, "Nuclei everywhere.", "Bruno's")
    assert found(ana, page, "nuclei") == [("Here", 1)]


def test_the_matched_words_are_marked_and_everything_else_kept_as_text(ana, page):
    sources.paste(ana, page.id, "<b>Cells</b> & cellular walls; a cell.", "Markup")
    (hit,) = sources.search(ana, page.id, "cell")
    assert [part for part, marked in hit.parts if marked] == ["Cells", "cellular", "cell"]
    assert "".join(part for part, _ in hit.parts) == "<b>Cells</b> & cellular walls; a cell."


def test_deleting_a_source_page_or_account_leaves_no_index_entry(app, ana, page):
    first = sources.paste(ana, page.id, "Enzymes speed reactions.", "First")
    sources.paste(ana, page.id, "Enzymes are proteins.", "Second")
    sources.delete(ana, first.id)
    assert found(ana, page, "enzymes") == [("Second", 1)]
    assert indexed_rows() == 1
    configuration.delete_account(ana, PASSWORD, configuration.confirmation_word(ana))
    assert db.session.scalar(sa.select(sa.func.count()).select_from(SourcePassage)) == 0
    assert indexed_rows() == 0


def indexed_rows():
    """What the index itself holds (FTS5's own row count, or the indexed vectors)."""
    if db.engine.dialect.name == "postgresql":
        return db.session.scalar(sa.text("SELECT count(*) FROM study_passages WHERE search_vector IS NOT NULL"))
    return db.session.scalar(sa.text(f"SELECT count(*) FROM {SEARCH_TABLE}_docsize"))


def test_the_export_carries_each_source_with_its_text(ana, page):
    sources.paste(ana, page.id, "Cells divide by mitosis.", "Mitosis")
    (exported,) = configuration.export(ana)["notebook_sources"]
    assert exported["title"] == "Mitosis" and exported["text"] == "Cells divide by mitosis."
    assert exported["pageId"] == str(page.id) and exported["status"] == "ready"


def test_the_demo_account_has_a_pasted_source_to_search(demo_account):
    (source,) = db.session.scalars(sa.select(NotebookSource).where(NotebookSource.user_id == demo_account.id)).all()
    assert (source.title, source.origin, source.status) == (demo.DEMO_SOURCE_TITLE, "pasted", "ready")
    assert source.passages_total > 1
    page = notebook.get_page(demo_account, source.page_id)
    assert [hit.source.title for hit in sources.search(demo_account, page.id, "mitochondria")] == [source.title]


def test_no_assistant_tool_can_write_a_source():
    """Sources are written from the notebook's pages only: no tool module reaches their service."""
    modules = {inspect.getmodule(tool.handler) for tool in REGISTRY.values()}
    reaching = re.compile(r"app\.notebook\.sources|from app\.notebook import [^\n]*\bsources\b")
    assert len(modules) > 10 and [m.__name__ for m in modules if reaching.search(inspect.getsource(m))] == []
    assert REGISTRY and [name for name in REGISTRY if "source" in name.lower()] == []
