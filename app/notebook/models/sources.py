"""A study page's sources (pasted text or an uploaded .txt, .md or .pdf) and the passages each
is split into, indexed for full-text search.

The index is database-specific DDL the ORM cannot describe, created beside the passages' table
(`create_all` here, migration 0015 for real databases):
- SQLite: an FTS5 table over the passages (external content, keyed by the passage's integer id),
  kept in step by triggers, so every delete — a source, a page, a whole account — leaves no
  stale entry behind.
- PostgreSQL: a generated `tsvector` column with a GIN index. It uses the 'simple'
  configuration (lowercase, no stemming, no stop words), not one chosen from the user's locale:
  a student's sources are often in another language than the app (a Portuguese speaker reading
  an English paper), a wrong-language stemmer mangles words, and 'simple' matches what SQLite's
  tokenizer does, so both databases find the same passages.
Alembic's comparison of models and migrations leaves these objects out (`HAND_MADE`).

When an embeddings endpoint is configured, each passage also gets a vector
(app/notebook/embeddings.py): float32 bytes in an ordinary binary column, the same on SQLite and
PostgreSQL, in the app's own database rather than a separate vector service.
"""

import uuid
from datetime import datetime

from sqlalchemy import DDL, DateTime, ForeignKey, Integer, LargeBinary, String, Text, Uuid, event
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.extensions import db
from app.shared.models import Owned

SOURCE_TITLE_MAX = 200
SOURCE_FILENAME_MAX = 255
ORIGINS = ("pasted", "txt", "md", "pdf")
# queued: stored, waiting for its thread; processing: being read, split and indexed;
# ready: every passage searchable; failed: nothing indexed, `failure` says why.
STATUSES = ("queued", "processing", "ready", "failed")

SEARCH_TABLE = "study_passages_fts"
SEARCH_COLUMN = "search_vector"
SEARCH_INDEX = "ix_study_passages_search_vector"
HAND_MADE = {
    *(("table", f"{SEARCH_TABLE}{suffix}") for suffix in ("", "_data", "_idx", "_docsize", "_config")),
    ("column", SEARCH_COLUMN),
    ("index", SEARCH_INDEX),
}
"""(kind, name) of the search objects: the models do not declare them, the migration makes them."""


class NotebookSource(Owned, db.Model):
    """Text a student studies from, on one page. Its passages are searchable once it is ready."""

    __tablename__ = "study_sources"

    page_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("study_pages.id", ondelete="CASCADE"), index=True)
    title: Mapped[str] = mapped_column(String(SOURCE_TITLE_MAX))
    origin: Mapped[str] = mapped_column(String(8))
    filename: Mapped[str | None] = mapped_column(String(SOURCE_FILENAME_MAX))
    text: Mapped[str | None] = mapped_column(Text)  # None until a large PDF has been read
    upload: Mapped[bytes | None] = mapped_column(LargeBinary)  # a large PDF waiting to be read
    size: Mapped[int] = mapped_column(Integer, default=0)  # the upload's bytes, or the pasted characters
    status: Mapped[str] = mapped_column(String(12), default="queued")
    failure: Mapped[str | None] = mapped_column(String(64))  # the refusal key of a failed source
    passages_total: Mapped[int] = mapped_column(Integer, default=0)
    passages_done: Mapped[int] = mapped_column(Integer, default=0)
    # The embedding of its passages, once it is ready and an endpoint is configured: a thread
    # holding the work renews `embedding_claimed_at` as it goes (another worker leaves it alone
    # until it goes stale); a failed call sets `embedding_failed_at`, and a retry waits a while.
    embedding_claimed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    embedding_failed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    passages: Mapped[list["SourcePassage"]] = relationship(
        back_populates="source", cascade="all, delete-orphan", passive_deletes=True, order_by="SourcePassage.position"
    )


class SourcePassage(db.Model):
    """A bounded piece of a source (whole paragraphs when they fit), the unit search returns.

    Its integer id is the full-text index's row id (FTS5 needs an integer key)."""

    __tablename__ = "study_passages"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    source_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("study_sources.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column(Integer)  # 1, 2, … in the source's order
    start: Mapped[int] = mapped_column(Integer)  # where it starts in the source's text, in characters
    text: Mapped[str] = mapped_column(Text)

    source: Mapped[NotebookSource] = relationship(back_populates="passages")


class PassageVector(db.Model):
    """A passage's embedding, by the model that made it (a vector of another model is stale and
    is replaced): unit-length float32 values packed as bytes, so a dot product is the cosine.

    It names its source too, so a source's progress is one count and an account's deletion
    reaches it like any row hanging off an owned table."""

    __tablename__ = "study_passage_vectors"

    passage_id: Mapped[int] = mapped_column(
        Integer, ForeignKey("study_passages.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    source_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("study_sources.id", ondelete="CASCADE"), index=True)
    model: Mapped[str] = mapped_column(String(100))
    vector: Mapped[bytes] = mapped_column(LargeBinary)


class SearchSuggestions(Owned, db.Model):
    """Google's Search Suggestions for one search with Gemini: the HTML Gemini answered with
    (`searchEntryPoint.renderedContent`), which Google's terms ask to be shown as it is beside
    what the search found. It is kept for the frame that shows it (app/notebook/routes.py), which
    the results load right after the search, and is let go a day later."""

    __tablename__ = "study_search_suggestions"

    html: Mapped[str] = mapped_column(Text)


SQLITE_SEARCH = (
    f"CREATE VIRTUAL TABLE {SEARCH_TABLE} USING fts5(text, content='study_passages', content_rowid='id', "
    "tokenize='unicode61 remove_diacritics 2')",
    f"CREATE TRIGGER {SEARCH_TABLE}_insert AFTER INSERT ON study_passages BEGIN "
    f"INSERT INTO {SEARCH_TABLE}(rowid, text) VALUES (new.id, new.text); END",
    f"CREATE TRIGGER {SEARCH_TABLE}_delete AFTER DELETE ON study_passages BEGIN "
    f"INSERT INTO {SEARCH_TABLE}({SEARCH_TABLE}, rowid, text) VALUES ('delete', old.id, old.text); END",
    f"CREATE TRIGGER {SEARCH_TABLE}_update AFTER UPDATE OF text ON study_passages BEGIN "
    f"INSERT INTO {SEARCH_TABLE}({SEARCH_TABLE}, rowid, text) VALUES ('delete', old.id, old.text); "
    f"INSERT INTO {SEARCH_TABLE}(rowid, text) VALUES (new.id, new.text); END",
)
POSTGRESQL_SEARCH = (
    f"ALTER TABLE study_passages ADD COLUMN {SEARCH_COLUMN} tsvector "
    "GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, text)) STORED",
    f"CREATE INDEX {SEARCH_INDEX} ON study_passages USING gin ({SEARCH_COLUMN})",
)

for _statement in SQLITE_SEARCH:
    event.listen(SourcePassage.__table__, "after_create", DDL(_statement).execute_if(dialect="sqlite"))
for _statement in POSTGRESQL_SEARCH:
    event.listen(SourcePassage.__table__, "after_create", DDL(_statement).execute_if(dialect="postgresql"))
event.listen(
    SourcePassage.__table__, "before_drop", DDL(f"DROP TABLE IF EXISTS {SEARCH_TABLE}").execute_if(dialect="sqlite")
)
db.metadata.info.setdefault("hand_made", set()).update(HAND_MADE)
