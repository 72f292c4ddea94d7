"""Study cycles: the week over notebook pages, the planner's blocks, laps, sessions and their credits

Revision ID: 0016_study_cycles
Revises: 0015_study_sources
Create Date: 2026-12-01 13:14:08

Deleting a cycle takes its days, subjects, blocks, laps and credits; sessions stay. Deleting a
page takes the subjects, sessions and entry links naming it; a block's concept page empties.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0016_study_cycles'
down_revision = '0015_study_sources'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('study_cycles',
    sa.Column('name', sa.String(length=120), nullable=False),
    sa.Column('largest_block', sa.Integer(), nullable=True),
    sa.Column('default_mode', sa.Enum('TIME', 'GOAL', name='blockmode', native_enum=False, length=8), nullable=False),
    sa.Column('archived_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_study_cycles_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_study_cycles'))
    )
    with op.batch_alter_table('study_cycles', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_study_cycles_user_id'), ['user_id'], unique=False)

    op.create_table('study_cycle_days',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('cycle_id', sa.Uuid(), nullable=False),
    sa.Column('weekday', sa.Integer(), nullable=False),
    sa.Column('minutes', sa.Integer(), nullable=False),
    sa.Column('starts_at', sa.Time(), nullable=True),
    sa.ForeignKeyConstraint(['cycle_id'], ['study_cycles.id'], name=op.f('fk_study_cycle_days_cycle_id_study_cycles'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_study_cycle_days')),
    sa.UniqueConstraint('cycle_id', 'weekday', name='one_row_per_cycle_weekday')
    )
    with op.batch_alter_table('study_cycle_days', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_study_cycle_days_cycle_id'), ['cycle_id'], unique=False)

    op.create_table('study_laps',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('cycle_id', sa.Uuid(), nullable=False),
    sa.Column('number', sa.Integer(), nullable=False),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['cycle_id'], ['study_cycles.id'], name=op.f('fk_study_laps_cycle_id_study_cycles'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_study_laps')),
    sa.UniqueConstraint('cycle_id', 'number', name='one_lap_per_number')
    )
    with op.batch_alter_table('study_laps', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_study_laps_cycle_id'), ['cycle_id'], unique=False)

    op.create_table('study_cycle_subjects',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('cycle_id', sa.Uuid(), nullable=False),
    sa.Column('page_id', sa.Uuid(), nullable=False),
    sa.Column('importance', sa.Integer(), nullable=False),
    sa.Column('mastery', sa.Integer(), nullable=False),
    sa.Column('minutes', sa.Integer(), nullable=True),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['cycle_id'], ['study_cycles.id'], name=op.f('fk_study_cycle_subjects_cycle_id_study_cycles'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['page_id'], ['study_pages.id'], name=op.f('fk_study_cycle_subjects_page_id_study_pages'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_study_cycle_subjects')),
    sa.UniqueConstraint('cycle_id', 'page_id', name='one_row_per_cycle_page')
    )
    with op.batch_alter_table('study_cycle_subjects', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_study_cycle_subjects_cycle_id'), ['cycle_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_study_cycle_subjects_page_id'), ['page_id'], unique=False)

    op.create_table('study_blocks',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('cycle_id', sa.Uuid(), nullable=False),
    sa.Column('number', sa.Integer(), nullable=False),
    sa.Column('subject_id', sa.Uuid(), nullable=False),
    sa.Column('minutes', sa.Integer(), nullable=False),
    sa.Column('mode', sa.Enum('TIME', 'GOAL', name='blockmode', native_enum=False, length=8), nullable=False),
    sa.Column('concept_page_id', sa.Uuid(), nullable=True),
    sa.ForeignKeyConstraint(['concept_page_id'], ['study_pages.id'], name=op.f('fk_study_blocks_concept_page_id_study_pages'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['cycle_id'], ['study_cycles.id'], name=op.f('fk_study_blocks_cycle_id_study_cycles'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['subject_id'], ['study_cycle_subjects.id'], name=op.f('fk_study_blocks_subject_id_study_cycle_subjects'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_study_blocks')),
    sa.UniqueConstraint('cycle_id', 'number', name='one_block_per_number')
    )
    with op.batch_alter_table('study_blocks', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_study_blocks_concept_page_id'), ['concept_page_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_study_blocks_cycle_id'), ['cycle_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_study_blocks_subject_id'), ['subject_id'], unique=False)

    op.create_table('study_entry_links',
    sa.Column('entry_id', sa.Uuid(), nullable=False),
    sa.Column('page_id', sa.Uuid(), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.ForeignKeyConstraint(['entry_id'], ['routine_entries.id'], name=op.f('fk_study_entry_links_entry_id_routine_entries'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['page_id'], ['study_pages.id'], name=op.f('fk_study_entry_links_page_id_study_pages'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_study_entry_links_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_study_entry_links')),
    sa.UniqueConstraint('entry_id', name='one_page_per_entry')
    )
    with op.batch_alter_table('study_entry_links', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_study_entry_links_page_id'), ['page_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_study_entry_links_user_id'), ['user_id'], unique=False)

    op.create_table('study_sessions',
    sa.Column('page_id', sa.Uuid(), nullable=False),
    sa.Column('day', sa.Date(), nullable=False),
    sa.Column('minutes', sa.Integer(), nullable=False),
    sa.Column('source', sa.Enum('MANUAL', 'TIMER', name='sessionsource', native_enum=False, length=8), nullable=False),
    sa.Column('timer_cycle_id', sa.Uuid(), nullable=True),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.ForeignKeyConstraint(['page_id'], ['study_pages.id'], name=op.f('fk_study_sessions_page_id_study_pages'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['timer_cycle_id'], ['timer_cycles.id'], name=op.f('fk_study_sessions_timer_cycle_id_timer_cycles'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_study_sessions_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_study_sessions')),
    sa.UniqueConstraint('timer_cycle_id', name=op.f('uq_study_sessions_timer_cycle_id'))
    )
    with op.batch_alter_table('study_sessions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_study_sessions_page_id'), ['page_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_study_sessions_user_id'), ['user_id'], unique=False)

    op.create_table('study_credits',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('lap_id', sa.Uuid(), nullable=False),
    sa.Column('subject_id', sa.Uuid(), nullable=False),
    sa.Column('session_id', sa.Uuid(), nullable=True),
    sa.Column('day', sa.Date(), nullable=False),
    sa.Column('minutes', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['lap_id'], ['study_laps.id'], name=op.f('fk_study_credits_lap_id_study_laps'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['session_id'], ['study_sessions.id'], name=op.f('fk_study_credits_session_id_study_sessions'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['subject_id'], ['study_cycle_subjects.id'], name=op.f('fk_study_credits_subject_id_study_cycle_subjects'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_study_credits'))
    )
    with op.batch_alter_table('study_credits', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_study_credits_lap_id'), ['lap_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_study_credits_session_id'), ['session_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_study_credits_subject_id'), ['subject_id'], unique=False)



def downgrade():
    with op.batch_alter_table('study_credits', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_study_credits_subject_id'))
        batch_op.drop_index(batch_op.f('ix_study_credits_session_id'))
        batch_op.drop_index(batch_op.f('ix_study_credits_lap_id'))

    op.drop_table('study_credits')
    with op.batch_alter_table('study_sessions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_study_sessions_user_id'))
        batch_op.drop_index(batch_op.f('ix_study_sessions_page_id'))

    op.drop_table('study_sessions')
    with op.batch_alter_table('study_entry_links', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_study_entry_links_user_id'))
        batch_op.drop_index(batch_op.f('ix_study_entry_links_page_id'))

    op.drop_table('study_entry_links')
    with op.batch_alter_table('study_blocks', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_study_blocks_subject_id'))
        batch_op.drop_index(batch_op.f('ix_study_blocks_cycle_id'))
        batch_op.drop_index(batch_op.f('ix_study_blocks_concept_page_id'))

    op.drop_table('study_blocks')
    with op.batch_alter_table('study_cycle_subjects', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_study_cycle_subjects_page_id'))
        batch_op.drop_index(batch_op.f('ix_study_cycle_subjects_cycle_id'))

    op.drop_table('study_cycle_subjects')
    with op.batch_alter_table('study_laps', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_study_laps_cycle_id'))

    op.drop_table('study_laps')
    with op.batch_alter_table('study_cycle_days', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_study_cycle_days_cycle_id'))

    op.drop_table('study_cycle_days')
    with op.batch_alter_table('study_cycles', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_study_cycles_user_id'))

    op.drop_table('study_cycles')
