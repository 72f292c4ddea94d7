"""The notebook's embeddings: a vector per passage, and each source's embedding claim and failure

Revision ID: 0022_study_embeddings
Revises: 0021_study_studio
Create Date: 2026-12-01 16:40:00

A vector is float32 bytes in a plain binary column (the same on SQLite and PostgreSQL, no
extension needed). Deleting a passage or its source deletes its vector.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0022_study_embeddings'
down_revision = '0021_study_studio'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('study_passage_vectors',
    sa.Column('passage_id', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('source_id', sa.Uuid(), nullable=False),
    sa.Column('model', sa.String(length=100), nullable=False),
    sa.Column('vector', sa.LargeBinary(), nullable=False),
    sa.ForeignKeyConstraint(['passage_id'], ['study_passages.id'], name=op.f('fk_study_passage_vectors_passage_id_study_passages'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['source_id'], ['study_sources.id'], name=op.f('fk_study_passage_vectors_source_id_study_sources'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('passage_id', name=op.f('pk_study_passage_vectors'))
    )
    with op.batch_alter_table('study_passage_vectors', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_study_passage_vectors_source_id'), ['source_id'], unique=False)

    with op.batch_alter_table('study_sources', schema=None) as batch_op:
        batch_op.add_column(sa.Column('embedding_claimed_at', sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column('embedding_failed_at', sa.DateTime(timezone=True), nullable=True))


def downgrade():
    with op.batch_alter_table('study_sources', schema=None) as batch_op:
        batch_op.drop_column('embedding_failed_at')
        batch_op.drop_column('embedding_claimed_at')

    with op.batch_alter_table('study_passage_vectors', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_study_passage_vectors_source_id'))

    op.drop_table('study_passage_vectors')
