"""Focus mode: each timer counts its changes

Revision ID: 0028_focus_timer_revision
Revises: 0027_search_suggestions
Create Date: 2026-12-06 05:30:00

Two answers about a timer can reach a page in another order than the changes they answer (a
refresh sent before a pause and answered after it). Each answer now says which change of the
timer it shows, and a page keeps the latest.
"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0028_focus_timer_revision'
down_revision = '0027_search_suggestions'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('focus_timers', schema=None) as batch_op:
        batch_op.add_column(sa.Column('revision', sa.Integer(), server_default='1', nullable=False))


def downgrade():
    with op.batch_alter_table('focus_timers', schema=None) as batch_op:
        batch_op.drop_column('revision')
