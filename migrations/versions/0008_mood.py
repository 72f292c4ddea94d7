"""mood: one level (1-5) per user per local day, with an optional private journal

Revision ID: 0008_mood
Revises: 0007_ideas_board
Create Date: 2026-12-01 10:20:00

The unique (user_id, day) pair is what the service's upsert resolves against, so a second save
for a day updates it instead of failing.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0008_mood'
down_revision = '0007_ideas_board'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('mood_entries',
    sa.Column('day', sa.Date(), nullable=False),
    sa.Column('level', sa.SmallInteger(), nullable=False),
    sa.Column('journal', sa.Text(), nullable=True),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint('level BETWEEN 1 AND 5', name=op.f('ck_mood_entries_level_in_range')),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_mood_entries_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_mood_entries')),
    sa.UniqueConstraint('user_id', 'day', name='one_mood_per_day')
    )
    with op.batch_alter_table('mood_entries', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_mood_entries_user_id'), ['user_id'], unique=False)


def downgrade():
    with op.batch_alter_table('mood_entries', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_mood_entries_user_id'))

    op.drop_table('mood_entries')
