"""An index of day outcomes by owner, day and outcome

Revision ID: 0018_day_outcome_index
Revises: 0017_onboarding_briefing
Create Date: 2026-12-01 13:30:00

A check and the dashboard count an owner's DONE and MISSED days (the current run, the run
through the day changed, the check-ins) instead of reading every outcome: with the outcome in
the index those counts never read the table.
"""

from alembic import op


# revision identifiers, used by Alembic.
revision = '0018_day_outcome_index'
down_revision = '0017_onboarding_briefing'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('day_outcomes', schema=None) as batch_op:
        batch_op.create_index('ix_day_outcomes_owner_day_outcome', ['owner_type', 'owner_id', 'day', 'outcome'], unique=False)


def downgrade():
    with op.batch_alter_table('day_outcomes', schema=None) as batch_op:
        batch_op.drop_index('ix_day_outcomes_owner_day_outcome')
