"""A study page's sources: pasted text or an uploaded .txt, .md or .pdf, split into passages and
searchable by full text (SQLite FTS5 or PostgreSQL's tsvector, app/notebook/models/sources.py).

A short source is split and indexed inside the request that adds it. A long one (or a large
PDF) is stored as it came, queued, and answered at once; the route then hands it to
`start_processing`, whose background thread reads, splits and indexes it in batches, counting
its progress for the page's indicator. What counts as short is the app's configuration
(NOTEBOOK_SOURCE_INLINE_CHARS, and NOTEBOOK_PDF_INLINE_BYTES for a PDF read in the request).
Search only ever sees a source once it is ready, and a failure on the way deletes what was
indexed and marks the source failed with the reason, so a half-index is never searchable and
never silent. Once ready, its passages are embedded when embeddings are configured
(app/notebook/embeddings.py; a short source's thread is started by the route). Sources
are written only from the notebook's pages: the assistant has no tool.
"""

import io
import logging
import re
import time
from datetime import timedelta
from typing import NamedTuple

import sqlalchemy as sa
from flask import current_app
from pypdf import PdfReader
from pypdf.errors import PyPdfError
from sqlalchemy.orm import load_only

from app import daemons
from app.events import announce
from app.extensions import db
from app.notebook import embeddings
from app.notebook import services as notebook
from app.notebook.models.sources import (
    SEARCH_COLUMN,
    SEARCH_TABLE,
    SOURCE_FILENAME_MAX,
    SOURCE_TITLE_MAX,
    NotebookSource,
    SourcePassage,
)
from app.shared.errors import DomainError, Invalid
from app.shared.fields import refuse_if
from app.shared.models import utcnow
from app.shared.ownership import owned

log = logging.getLogger(__name__)

PASTE_MAX_CHARS = 100_000
FILE_MAX_BYTES = 5 * 1024 * 1024
TEXT_MAX_CHARS = 2_000_000  # what a file's text may hold once read (a 5 MB PDF stays well below)
EXTENSIONS = {".txt": "txt", ".md": "md", ".pdf": "pdf"}
SEARCH_MAX_CHARS = 200
SEARCH_RESULTS = 20
SEARCH_TERMS_MAX = 12
BATCH = 200  # passages indexed per commit in the background: the progress moves in these steps
# A source still queued or processing this long after its last progress lost its thread (the
# worker restarted): it shows as failed rather than spinning for ever.
STALLED_AFTER = timedelta(minutes=10)

# The split: whole paragraphs gathered up to PASSAGE_TARGET characters; a longer paragraph is cut
# between sentences (or, for a sentence that long, between words), never above PASSAGE_MAX.
PASSAGE_TARGET = 800
PASSAGE_MAX = 1200
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")
_WORD = re.compile(r"[^\W_]+")


# Reading ------------------------------------------------------------------------------------


def get(user, source_id):
    return owned(NotebookSource, source_id, user, key="NOTEBOOK_SOURCE_NOT_FOUND")


def sources_of(user, page):
    """The page's sources, the oldest first."""
    return db.session.scalars(
        db.select(NotebookSource)
        .where(NotebookSource.user_id == user.id, NotebookSource.page_id == page.id)
        .order_by(NotebookSource.created_at, NotebookSource.id)
    ).all()


def state(source, now=None):
    """What the page shows: the stored status, except that a source whose thread stopped
    answering long ago reads as failed."""
    if source.status in ("queued", "processing"):
        changed = source.updated_at
        if changed.tzinfo is None:  # SQLite hands back naive UTC
            changed = changed.replace(tzinfo=(now or utcnow()).tzinfo)
        if (now or utcnow()) - changed > STALLED_AFTER:
            return "failed"
    return source.status


def failure_key(source):
    return source.failure or "NOTEBOOK_SOURCE_PROCESSING_FAILED"


def source_data(source):
    """A source as the export writes it: its text is the whole of it (passages are cut from it)."""
    return {
        "id": str(source.id),
        "pageId": str(source.page_id),
        "title": source.title,
        "origin": source.origin,
        "filename": source.filename,
        "status": state(source),
        "text": source.text,
        "createdAt": source.created_at.isoformat(),
    }


# Adding -------------------------------------------------------------------------------------


def paste(user, page_id, text, title=None, *, site=None):
    """A source from pasted text, titled by its first line unless given a title. A page's text
    taken from the web (`web_sources.accept`) is kept the same way, with the site it came from."""
    page = notebook.get_page(user, page_id)
    problems = {}
    clean = _clean_text(text, problems, "text")
    if clean and len(clean) > PASTE_MAX_CHARS:
        problems["text"] = "NOTEBOOK_SOURCE_TOO_LONG"
    clean_title = _title(title, problems) or _first_line(clean)
    refuse_if(problems)
    source = NotebookSource(
        user_id=user.id,
        page_id=page.id,
        title=clean_title,
        origin="web" if site else "pasted",
        filename=site,
        text=clean,
        size=len(clean),
        status="queued",
    )
    return _stored(user, source)


def upload(user, page_id, filename, data):
    """A source from an uploaded file. The name's extension says what it claims to be and its
    content must agree: a PDF starts with `%PDF-`, a .txt or .md is UTF-8 text without NULs.
    A small PDF is read at once, so one without text is refused before anything is saved."""
    page = notebook.get_page(user, page_id)
    name = (filename or "").replace("\\", "/").rsplit("/", 1)[-1].strip()
    if not name and not data:
        refuse_if({"file": "NOTEBOOK_SOURCE_FILE_REQUIRED"})
    origin = EXTENSIONS.get(_extension(name))
    if origin is None:
        refuse_if({"file": "NOTEBOOK_SOURCE_FILE_TYPE"})
    if len(data) > FILE_MAX_BYTES:
        refuse_if({"file": "NOTEBOOK_SOURCE_FILE_TOO_LARGE"})
    if not data.strip():
        refuse_if({"file": "NOTEBOOK_SOURCE_EMPTY"})
    title = _first_line(name.rsplit(".", 1)[0]) or name
    source = NotebookSource(
        user_id=user.id,
        page_id=page.id,
        title=title[:SOURCE_TITLE_MAX],
        origin=origin,
        filename=name[:SOURCE_FILENAME_MAX],
        size=len(data),
        status="queued",
    )
    if origin == "pdf":
        if not _looks_like_pdf(data):
            refuse_if({"file": "NOTEBOOK_SOURCE_NOT_PDF"})
        if len(data) <= current_app.config["NOTEBOOK_PDF_INLINE_BYTES"]:
            source.text = _file_text(pdf_text(data))
        else:
            source.upload = data
    else:
        source.text = _file_text(_decoded(data))
    return _stored(user, source)


def _stored(user, source):
    """Save the source, indexed now when it is short; else queued for `start_processing`."""
    inline = source.text is not None and len(source.text) <= current_app.config["NOTEBOOK_SOURCE_INLINE_CHARS"]
    if inline:
        passages = split(source.text)
        source.passages = [SourcePassage(position=p.position, start=p.start, text=p.text) for p in passages]
        source.passages_total = source.passages_done = len(passages)
        source.status = "ready"
    db.session.add(source)
    db.session.commit()
    announce(user, "notebook")
    return source


def delete(user, source_id):
    """Delete a source with its passages (their index entries go with them)."""
    source = get(user, source_id)
    db.session.execute(db.delete(NotebookSource).where(NotebookSource.id == source.id))
    db.session.commit()
    announce(user, "notebook")


# The background work ------------------------------------------------------------------------

_indexing = daemons.Tracked("source")


def start_processing(source_id):
    """Read, split and index a queued source on its own thread (a greenlet under gevent)."""
    return _indexing.start(source_id, _process, source_id)


def wait_for(source_id, seconds=30):
    """Block until the source's thread (if any, in this process) is done (tests wait on it)."""
    _indexing.wait_for(source_id, seconds)


def _process(source_id):
    try:
        _read_split_and_index(source_id)
        if embeddings.configured():  # ready: its vectors next, on this same thread
            embeddings.embed_source(source_id)
    except DomainError as refusal:  # the field's own reason ("no text in this PDF"), if it has one
        _failed(source_id, next(iter(refusal.details.values()), refusal.key))
    except Exception:
        log.exception("source %s could not be indexed", source_id)
        _failed(source_id, "NOTEBOOK_SOURCE_PROCESSING_FAILED")


def _read_split_and_index(source_id):
    source = db.session.get(NotebookSource, source_id)
    if source is None:  # deleted before its thread started
        return
    source.status = "processing"
    db.session.commit()
    if source.text is None:
        source.text = _file_text(pdf_text(source.upload))
        source.upload = None
    passages = split(source.text)
    source.passages_total = len(passages)
    db.session.commit()
    for start in range(0, len(passages), BATCH):
        batch = passages[start : start + BATCH]
        index_batch(source, batch)
        source.passages_done = start + len(batch)
        db.session.commit()
        time.sleep(0)  # under gevent, let the worker's other requests run between batches
    source.status = "ready"
    db.session.commit()


def index_batch(source, batch):
    """Add one batch of passages (the triggers or the generated column index them)."""
    db.session.execute(
        sa.insert(SourcePassage),
        [{"source_id": source.id, "position": p.position, "start": p.start, "text": p.text} for p in batch],
    )


def _failed(source_id, key):
    """Nothing of a failed source stays indexed; the source says why it failed."""
    db.session.rollback()
    db.session.execute(db.delete(SourcePassage).where(SourcePassage.source_id == source_id))
    db.session.execute(
        db.update(NotebookSource)
        .where(NotebookSource.id == source_id)
        .values(status="failed", failure=key, upload=None, passages_done=0, updated_at=utcnow())
    )
    db.session.commit()


# The split ----------------------------------------------------------------------------------


class Passage(NamedTuple):
    position: int  # 1, 2, … in the source
    start: int  # where it starts in the source's text
    text: str


def split(text):
    """The text's passages in order: paragraphs (blank-line separated) gathered while they fit
    in PASSAGE_TARGET characters; a paragraph longer than PASSAGE_MAX cut between sentences,
    and a sentence longer than that between words. Each passage knows where it starts."""
    pieces = []  # (start, text) of each paragraph, or of each cut of a long one
    for at, paragraph in _paragraphs(text):
        if len(paragraph) <= PASSAGE_MAX:
            pieces.append((at, paragraph))
        else:
            pieces.extend(_cuts(at, paragraph))
    passages, current, start = [], [], 0
    for at, piece in pieces:
        gathered = sum(len(part) + 2 for part in current)
        if current and gathered + len(piece) > PASSAGE_TARGET:
            passages.append(Passage(len(passages) + 1, start, "\n\n".join(current)))
            current = []
        if not current:
            start = at
        current.append(piece)
    if current:
        passages.append(Passage(len(passages) + 1, start, "\n\n".join(current)))
    return passages


def _paragraphs(text):
    position = 0
    for match in [*_PARAGRAPH_BREAK.finditer(text), None]:
        end = match.start() if match else len(text)
        chunk = text[position:end]
        stripped = chunk.strip()
        if stripped:
            yield position + (len(chunk) - len(chunk.lstrip())), stripped
        if match:
            position = match.end()


def _cuts(paragraph_start, paragraph):
    """A long paragraph in pieces of at most PASSAGE_MAX, each gathering whole sentences up to
    PASSAGE_TARGET; a sentence above PASSAGE_MAX is cut at the last space that fits."""
    sentences = []
    position = 0
    for match in [*_SENTENCE_END.finditer(paragraph), None]:
        end = match.start() if match else len(paragraph)
        sentence = paragraph[position:end]
        while len(sentence) > PASSAGE_MAX:
            cut = sentence.rfind(" ", 0, PASSAGE_MAX)
            cut = cut if cut > 0 else PASSAGE_MAX
            sentences.append((position, sentence[:cut].rstrip()))
            rest = sentence[cut:]
            position += cut + (len(rest) - len(rest.lstrip()))
            sentence = rest.lstrip()
        if sentence:
            sentences.append((position, sentence))
        if match:
            position = match.end()
    pieces, current, start = [], [], 0
    for at, sentence in sentences:
        if current and len(" ".join([*current, sentence])) > PASSAGE_TARGET:
            pieces.append((paragraph_start + start, " ".join(current)))
            current = []
        if not current:
            start = at
        current.append(sentence)
    if current:
        pieces.append((paragraph_start + start, " ".join(current)))
    return pieces


# Search -------------------------------------------------------------------------------------


class Hit:
    """A passage found: its source, its position there, and its text in parts, each part
    marked when it is a searched word (the template escapes every part)."""

    def __init__(self, passage, source, parts):
        self.passage, self.source, self.parts = passage, source, parts


def search(user, page_id, query, limit=SEARCH_RESULTS):
    """The page's passages matching any of the query's words, best first (BM25 on SQLite,
    cover density on PostgreSQL); the last word also matches as a prefix, as one types."""
    page = notebook.get_page(user, page_id)
    text = str(query or "")
    if len(text) > SEARCH_MAX_CHARS:
        refuse_if({"q": "NOTEBOOK_SEARCH_TOO_LONG"})
    terms = list(dict.fromkeys(word.lower() for word in _WORD.findall(text)))[:SEARCH_TERMS_MAX]
    if not terms:
        return []
    # The page's ready sources first (a few small rows: their text is not loaded), so ranking
    # never reads a whole source per matching passage.
    sources = {
        source.id: source
        for source in db.session.scalars(
            db.select(NotebookSource)
            .options(load_only(NotebookSource.title, NotebookSource.passages_total))
            .where(
                NotebookSource.user_id == user.id, NotebookSource.page_id == page.id, NotebookSource.status == "ready"
            )
        )
    }
    if not sources:
        return []
    ranked = _postgresql_ranked if db.engine.dialect.name == "postgresql" else _sqlite_ranked
    passages = db.session.scalars(ranked(terms, SourcePassage.source_id.in_(sources)).limit(limit)).all()
    pattern = _highlighter(terms)
    return [Hit(passage, sources[passage.source_id], highlighted(passage.text, pattern)) for passage in passages]


def _sqlite_ranked(terms, scope):
    index = sa.table(SEARCH_TABLE, sa.column("rowid"))
    match = " OR ".join([*(f'"{term}"' for term in terms[:-1]), f'"{terms[-1]}"*'])
    return (
        sa.select(SourcePassage)
        .select_from(index)
        .join(SourcePassage, SourcePassage.id == index.c.rowid)
        .where(sa.literal_column(SEARCH_TABLE).op("MATCH")(match), scope)
        .order_by(sa.func.bm25(sa.literal_column(SEARCH_TABLE)), SourcePassage.id)
    )


def _postgresql_ranked(terms, scope):
    query = sa.func.to_tsquery(sa.literal_column("'simple'::regconfig"), " | ".join([*terms[:-1], f"{terms[-1]}:*"]))
    vector = sa.literal_column(f"study_passages.{SEARCH_COLUMN}")
    return (
        sa.select(SourcePassage)
        .where(vector.op("@@")(query), scope)
        .order_by(sa.func.ts_rank_cd(vector, query).desc(), SourcePassage.id)
    )


def _highlighter(terms):
    """Whole words for every term but the last, which also matches as a word's start."""
    *whole, last = terms
    alternatives = [rf"{re.escape(term)}(?![^\W_])" for term in whole] + [rf"{re.escape(last)}[^\W_]*"]
    return re.compile(rf"(?<![^\W_])(?:{'|'.join(alternatives)})", re.IGNORECASE)


def highlighted(text, pattern):
    """`text` as (part, is_match) pairs."""
    parts, position = [], 0
    for match in pattern.finditer(text):
        if match.start() > position:
            parts.append((text[position : match.start()], False))
        parts.append((match.group(), True))
        position = match.end()
    if position < len(text):
        parts.append((text[position:], False))
    return parts


# Reading what came in -----------------------------------------------------------------------


def pdf_text(data):
    """The PDF's text, page after page. Unreadable (damaged, encrypted) is a refusal."""
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise Invalid("INVALID_INPUT", details={"file": "NOTEBOOK_SOURCE_PDF_UNREADABLE"})
        pages = []
        for page in reader.pages:
            pages.append(page.extract_text() or "")
            time.sleep(0)  # under gevent, a long PDF does not starve the worker's other requests
    except (PyPdfError, ValueError, KeyError, TypeError, OSError):
        raise Invalid("INVALID_INPUT", details={"file": "NOTEBOOK_SOURCE_PDF_UNREADABLE"}) from None
    text = "\n\n".join(page.strip() for page in pages if page.strip())
    if not text.strip():
        raise Invalid("INVALID_INPUT", details={"file": "NOTEBOOK_SOURCE_PDF_NO_TEXT"})
    return text


def _looks_like_pdf(data):
    return data.lstrip()[:5] == b"%PDF-"


def _decoded(data):
    """A .txt or .md file's text: UTF-8 (a byte-order mark allowed), no NUL, not a PDF."""
    if _looks_like_pdf(data) or b"\x00" in data:
        refuse_if({"file": "NOTEBOOK_SOURCE_NOT_TEXT"})
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        refuse_if({"file": "NOTEBOOK_SOURCE_NOT_TEXT"})


def _file_text(text):
    problems = {}
    clean = _clean_text(text, problems, "file")
    if clean and len(clean) > TEXT_MAX_CHARS:
        problems["file"] = "NOTEBOOK_SOURCE_FILE_TOO_LARGE"
    refuse_if(problems)
    return clean


def _clean_text(text, problems, field):
    """Line ends made \\n, NULs refused, surrounding blank space trimmed; empty is a refusal."""
    clean = str(text or "").replace("\r\n", "\n").replace("\r", "\n").strip()
    if "\x00" in clean:
        problems[field] = "TEXT_HAS_NUL"
    elif not clean:
        problems[field] = "NOTEBOOK_SOURCE_EMPTY"
    return clean


def _title(title, problems):
    clean = " ".join(str(title or "").split())
    if len(clean) > SOURCE_TITLE_MAX:
        problems["title"] = "NOTEBOOK_SOURCE_TITLE_TOO_LONG"
    return clean


def _first_line(text):
    line = " ".join((text or "").strip().split("\n", 1)[0].split()).lstrip("#").strip()
    return line if len(line) <= 80 else line[:79].rstrip() + "…"


def _extension(name):
    return ("." + name.rsplit(".", 1)[-1].lower()) if "." in name else ""
