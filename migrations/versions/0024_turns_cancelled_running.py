"""An index of the running turns asked to stop, and only those

Revision ID: 0024_turns_cancelled_running
Revises: 0023_pending_actions
Create Date: 2026-12-03 09:00:00

Every process asks a few times a second which running turns were asked to stop; the partial index
answers it without a list of the process's turn ids, from the few rows it holds.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0024_turns_cancelled_running'
down_revision = '0023_pending_actions'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('turns', schema=None) as batch_op:
        batch_op.create_index(
            'ix_turns_cancelled_running', ['id'], unique=False,
            postgresql_where=sa.text("status = 'RUNNING' AND cancel_requested"),
            sqlite_where=sa.text("status = 'RUNNING' AND cancel_requested = 1"),
        )


def downgrade():
    with op.batch_alter_table('turns', schema=None) as batch_op:
        batch_op.drop_index('ix_turns_cancelled_running')
