"""the Ideas board: sticky notes on a fixed grid

Revision ID: 0007_ideas_board
Revises: 0006_sessions_finite_numbers
Create Date: 2026-12-01 10:30:00

A live note holds a cell of the 6 × 8 grid and an archived one none, so the unique
(user_id, cell) pair keeps two live notes out of one cell on SQLite and PostgreSQL alike
(NULLs never collide).
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0007_ideas_board'
down_revision = '0006_sessions_finite_numbers'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('quick_notes',
    sa.Column('text', sa.String(length=500), nullable=False),
    sa.Column('colour', sa.String(length=16), nullable=False),
    sa.Column('cell', sa.Integer(), nullable=True),
    sa.Column('archived_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_quick_notes_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_quick_notes')),
    sa.UniqueConstraint('user_id', 'cell', name='one_live_note_per_cell')
    )
    with op.batch_alter_table('quick_notes', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_quick_notes_user_id'), ['user_id'], unique=False)


def downgrade():
    with op.batch_alter_table('quick_notes', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_quick_notes_user_id'))

    op.drop_table('quick_notes')
