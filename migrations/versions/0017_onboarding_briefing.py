"""The onboarding wizard's state and the stored daily briefing

Revision ID: 0017_onboarding_briefing
Revises: 0016_study_cycles
Create Date: 2026-12-01 13:07:11

One onboarding run per account (created when the wizard first opens), and one briefing per account
and local day (created when the dialog first opens; never by the nightly pass). Both go with
their user.
"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0017_onboarding_briefing'
down_revision = '0016_study_cycles'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('daily_briefings',
    sa.Column('day', sa.Date(), nullable=False),
    sa.Column('facts', sa.JSON(), nullable=False),
    sa.Column('status', sa.Enum('PENDING', 'GENERATING', 'READY', 'FAILED', name='briefingstatus', native_enum=False, length=16), nullable=False),
    sa.Column('picks', sa.JSON(), nullable=True),
    sa.Column('claimed_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_daily_briefings_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_daily_briefings')),
    sa.UniqueConstraint('user_id', 'day', name='one_briefing_per_day')
    )
    with op.batch_alter_table('daily_briefings', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_daily_briefings_user_id'), ['user_id'], unique=False)

    op.create_table('onboarding_runs',
    sa.Column('step', sa.Enum('CATEGORIES', 'ITEMS', 'ROUTINE', 'GOALS', 'SUMMARY', name='onboardingstep', native_enum=False, length=16), nullable=False),
    sa.Column('status', sa.Enum('ACTIVE', 'FINISHED', 'SKIPPED', name='onboardingstatus', native_enum=False, length=16), nullable=False),
    sa.Column('history', sa.JSON(), nullable=False),
    sa.Column('suggestions', sa.JSON(), nullable=True),
    sa.Column('said', sa.String(length=1000), nullable=True),
    sa.Column('saved', sa.JSON(), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_onboarding_runs_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_onboarding_runs')),
    sa.UniqueConstraint('user_id', name='one_onboarding_per_user')
    )
    with op.batch_alter_table('onboarding_runs', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_onboarding_runs_user_id'), ['user_id'], unique=False)



def downgrade():
    with op.batch_alter_table('onboarding_runs', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_onboarding_runs_user_id'))

    op.drop_table('onboarding_runs')
    with op.batch_alter_table('daily_briefings', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_daily_briefings_user_id'))

    op.drop_table('daily_briefings')
