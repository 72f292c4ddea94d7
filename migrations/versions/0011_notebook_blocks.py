"""A study page's blocks: notes, diagrams and flashcards with their review schedule

Revision ID: 0011_notebook_blocks
Revises: 0010_notebook
Create Date: 2026-12-01 13:20:00

Deleting a page takes its blocks along.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0011_notebook_blocks'
down_revision = '0010_notebook'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('study_page_blocks',
    sa.Column('page_id', sa.Uuid(), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('back', sa.Text(), nullable=True),
    sa.Column('due_on', sa.Date(), nullable=True),
    sa.Column('interval_days', sa.Integer(), nullable=False),
    sa.Column('ease', sa.Integer(), nullable=False),
    sa.Column('streak', sa.Integer(), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.ForeignKeyConstraint(['page_id'], ['study_pages.id'], name=op.f('fk_study_page_blocks_page_id_study_pages'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_study_page_blocks_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_study_page_blocks'))
    )
    with op.batch_alter_table('study_page_blocks', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_study_page_blocks_page_id'), ['page_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_study_page_blocks_user_id'), ['user_id'], unique=False)


def downgrade():
    with op.batch_alter_table('study_page_blocks', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_study_page_blocks_user_id'))
        batch_op.drop_index(batch_op.f('ix_study_page_blocks_page_id'))

    op.drop_table('study_page_blocks')
