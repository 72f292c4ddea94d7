"""The study notebook: Google's Search Suggestions of a search with Gemini, kept for its frame

Revision ID: 0027_search_suggestions
Revises: 0026_focus_timers
Create Date: 2026-12-05 00:20:00

A source search with Gemini and Google Search answers, beside the pages it found, the Search
Suggestions Google's terms ask to be shown as they are: HTML with its own styles, which only a
frame of its own may show. The frame is loaded right after the search, so the HTML is kept a while.
"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0027_search_suggestions'
down_revision = '0026_focus_timers'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('study_search_suggestions',
    sa.Column('html', sa.Text(), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_study_search_suggestions_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_study_search_suggestions'))
    )
    with op.batch_alter_table('study_search_suggestions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_study_search_suggestions_user_id'), ['user_id'], unique=False)


def downgrade():
    with op.batch_alter_table('study_search_suggestions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_study_search_suggestions_user_id'))

    op.drop_table('study_search_suggestions')
