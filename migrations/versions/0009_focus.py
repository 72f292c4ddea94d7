"""Focus mode: micro-tasks, pinned step names, timer cycles, and the timer's lengths

Revision ID: 0009_focus
Revises: 0008_mood
Create Date: 2026-12-01 10:30:00

Micro-tasks and pinned names hang off a routine entry and go with it; a timer cycle outlives its
entry (the entry id is emptied), because it records time someone actually spent. Existing
accounts get the default lengths: 25 minutes of work, 5 of break.
"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0009_focus'
down_revision = '0008_mood'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('micro_tasks',
    sa.Column('entry_id', sa.Uuid(), nullable=False),
    sa.Column('day', sa.Date(), nullable=False),
    sa.Column('text', sa.String(length=200), nullable=False),
    sa.Column('done', sa.Boolean(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['entry_id'], ['routine_entries.id'], name=op.f('fk_micro_tasks_entry_id_routine_entries'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_micro_tasks_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_micro_tasks'))
    )
    with op.batch_alter_table('micro_tasks', schema=None) as batch_op:
        batch_op.create_index('ix_micro_tasks_entry_day', ['entry_id', 'day'], unique=False)
        batch_op.create_index(batch_op.f('ix_micro_tasks_user_id'), ['user_id'], unique=False)

    op.create_table('pinned_steps',
    sa.Column('entry_id', sa.Uuid(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['entry_id'], ['routine_entries.id'], name=op.f('fk_pinned_steps_entry_id_routine_entries'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_pinned_steps_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_pinned_steps')),
    sa.UniqueConstraint('entry_id', 'name', name='one_pin_per_name_per_entry')
    )
    with op.batch_alter_table('pinned_steps', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_pinned_steps_entry_id'), ['entry_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_pinned_steps_user_id'), ['user_id'], unique=False)

    op.create_table('timer_cycles',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.Column('cycle_id', sa.Uuid(), nullable=False),
    sa.Column('entry_id', sa.Uuid(), nullable=True),
    sa.Column('day', sa.Date(), nullable=False),
    sa.Column('kind', sa.Enum('WORK', 'BREAK', name='cyclekind', native_enum=False, length=8), nullable=False),
    sa.Column('minutes', sa.Integer(), nullable=False),
    sa.Column('completed_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['entry_id'], ['routine_entries.id'], name=op.f('fk_timer_cycles_entry_id_routine_entries'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_timer_cycles_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_timer_cycles')),
    sa.UniqueConstraint('user_id', 'cycle_id', name='one_row_per_timer_cycle')
    )
    with op.batch_alter_table('timer_cycles', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_timer_cycles_entry_id'), ['entry_id'], unique=False)
        batch_op.create_index('ix_timer_cycles_user_day', ['user_id', 'day'], unique=False)

    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.add_column(sa.Column('focus_work_minutes', sa.Integer(), server_default='25', nullable=False))
        batch_op.add_column(sa.Column('focus_break_minutes', sa.Integer(), server_default='5', nullable=False))


def downgrade():
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.drop_column('focus_break_minutes')
        batch_op.drop_column('focus_work_minutes')

    with op.batch_alter_table('timer_cycles', schema=None) as batch_op:
        batch_op.drop_index('ix_timer_cycles_user_day')
        batch_op.drop_index(batch_op.f('ix_timer_cycles_entry_id'))

    op.drop_table('timer_cycles')
    with op.batch_alter_table('pinned_steps', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_pinned_steps_user_id'))
        batch_op.drop_index(batch_op.f('ix_pinned_steps_entry_id'))

    op.drop_table('pinned_steps')
    with op.batch_alter_table('micro_tasks', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_micro_tasks_user_id'))
        batch_op.drop_index('ix_micro_tasks_entry_day')

    op.drop_table('micro_tasks')
