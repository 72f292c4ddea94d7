"""Focus mode: the timer of each routine entry, kept on the server

Revision ID: 0026_focus_timers
Revises: 0025_no_index_a_key_repeats
Create Date: 2026-12-04 23:30:00

A running timer lived in one browser's storage: another device, or a new session, showed the
entry's timer as never started. One row per entry now holds its phase, its state, the time the
phase had run before its current run and when that run started, so every device shows one clock.
"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0026_focus_timers'
down_revision = '0025_no_index_a_key_repeats'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('focus_timers',
    sa.Column('entry_id', sa.Uuid(), nullable=False),
    sa.Column('day', sa.Date(), nullable=False),
    sa.Column('phase', sa.Enum('WORK', 'BREAK', name='cyclekind', native_enum=False, length=8), nullable=False),
    sa.Column('state', sa.Enum('RUNNING', 'PAUSED', 'STOPPED', name='timerstate', native_enum=False, length=8), nullable=False),
    sa.Column('planned_seconds', sa.Integer(), nullable=False),
    sa.Column('elapsed_ms', sa.Integer(), nullable=False),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('paused_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('pauses', sa.Integer(), nullable=False),
    sa.Column('cycle_id', sa.Uuid(), nullable=True),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['entry_id'], ['routine_entries.id'], name=op.f('fk_focus_timers_entry_id_routine_entries'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_focus_timers_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_focus_timers')),
    sa.UniqueConstraint('entry_id', name='one_timer_per_entry')
    )
    with op.batch_alter_table('focus_timers', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_focus_timers_user_id'), ['user_id'], unique=False)


def downgrade():
    with op.batch_alter_table('focus_timers', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_focus_timers_user_id'))

    op.drop_table('focus_timers')
