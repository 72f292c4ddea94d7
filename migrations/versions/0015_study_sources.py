"""A study page's sources, their passages, and the passages' full-text index

Revision ID: 0015_study_sources
Revises: 0012_study_board
Create Date: 2026-12-01 13:13:17.140265

Deleting a page takes its sources along, and a source its passages. The index is written here by
hand (the models cannot describe it; app/models/study_sources.py keeps it out of the comparison):
on SQLite an FTS5 table kept in step by triggers, on PostgreSQL a generated tsvector column
('simple' configuration) with a GIN index.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0015_study_sources'
down_revision = '0012_study_board'
branch_labels = None
depends_on = None

SEARCH_INDEX = {
    "sqlite": (
        "CREATE VIRTUAL TABLE study_passages_fts USING fts5(text, content='study_passages', content_rowid='id', "
        "tokenize='unicode61 remove_diacritics 2')",
        "CREATE TRIGGER study_passages_fts_insert AFTER INSERT ON study_passages BEGIN "
        "INSERT INTO study_passages_fts(rowid, text) VALUES (new.id, new.text); END",
        "CREATE TRIGGER study_passages_fts_delete AFTER DELETE ON study_passages BEGIN "
        "INSERT INTO study_passages_fts(study_passages_fts, rowid, text) VALUES ('delete', old.id, old.text); END",
        "CREATE TRIGGER study_passages_fts_update AFTER UPDATE OF text ON study_passages BEGIN "
        "INSERT INTO study_passages_fts(study_passages_fts, rowid, text) VALUES ('delete', old.id, old.text); "
        "INSERT INTO study_passages_fts(rowid, text) VALUES (new.id, new.text); END",
    ),
    "postgresql": (
        "ALTER TABLE study_passages ADD COLUMN search_vector tsvector "
        "GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, text)) STORED",
        "CREATE INDEX ix_study_passages_search_vector ON study_passages USING gin (search_vector)",
    ),
}


def upgrade():
    op.create_table('study_sources',
    sa.Column('page_id', sa.Uuid(), nullable=False),
    sa.Column('title', sa.String(length=200), nullable=False),
    sa.Column('origin', sa.String(length=8), nullable=False),
    sa.Column('filename', sa.String(length=255), nullable=True),
    sa.Column('text', sa.Text(), nullable=True),
    sa.Column('upload', sa.LargeBinary(), nullable=True),
    sa.Column('size', sa.Integer(), nullable=False),
    sa.Column('status', sa.String(length=12), nullable=False),
    sa.Column('failure', sa.String(length=64), nullable=True),
    sa.Column('passages_total', sa.Integer(), nullable=False),
    sa.Column('passages_done', sa.Integer(), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.ForeignKeyConstraint(['page_id'], ['study_pages.id'], name=op.f('fk_study_sources_page_id_study_pages'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_study_sources_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_study_sources'))
    )
    with op.batch_alter_table('study_sources', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_study_sources_page_id'), ['page_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_study_sources_user_id'), ['user_id'], unique=False)

    op.create_table('study_passages',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('source_id', sa.Uuid(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('start', sa.Integer(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.ForeignKeyConstraint(['source_id'], ['study_sources.id'], name=op.f('fk_study_passages_source_id_study_sources'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_study_passages'))
    )
    with op.batch_alter_table('study_passages', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_study_passages_source_id'), ['source_id'], unique=False)

    for statement in SEARCH_INDEX.get(op.get_bind().dialect.name, ()):
        op.execute(statement)


def downgrade():
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TABLE IF EXISTS study_passages_fts")  # its triggers go with study_passages
    with op.batch_alter_table('study_passages', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_study_passages_source_id'))

    op.drop_table('study_passages')
    with op.batch_alter_table('study_sources', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_study_sources_user_id'))
        batch_op.drop_index(batch_op.f('ix_study_sources_page_id'))

    op.drop_table('study_sources')
