"""sign-ins kept on the server; goal values made finite and bounded

Revision ID: 0006_sessions_finite_numbers
Revises: 0005_turn_journal
Create Date: 2026-11-30 23:20:00

A copied session or remember-me cookie must die at sign-out, so each sign-in becomes a row
(`user_sessions`). Sessions signed in before this revision carried no sign-in key and end once.

Goal values used to accept 1e308 and grow to infinity with two increases, which broke the goals
page and the export for good; the service now keeps them within 0..NUMBER_MAX, and the rows
already stored are brought inside that range here (NaN and negatives to 0, past the bound to it;
a target that is not above zero becomes 1, one below 0.01 becomes 0.01).
"""
import math

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0006_sessions_finite_numbers'
down_revision = '0005_turn_journal'
branch_labels = None
depends_on = None

NUMBER_MAX = 1_000_000_000_000  # app.services.values.NUMBER_MAX when this was written
TARGET_MIN = 0.01  # app.services.goals.TARGET_MIN


def _current(value):
    if value is None or math.isnan(value) or value < 0:
        return 0.0
    return min(value, NUMBER_MAX)


def _target(value):
    if value is None or math.isnan(value) or value <= 0:
        return 1.0
    return min(max(value, TARGET_MIN), NUMBER_MAX)


def upgrade():
    op.create_table('user_sessions',
    sa.Column('id', sa.String(length=64), nullable=False),
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_user_sessions_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_user_sessions'))
    )
    with op.batch_alter_table('user_sessions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_user_sessions_user_id'), ['user_id'], unique=False)

    goals = sa.table('goals', sa.column('id', sa.Uuid()), sa.column('target_value', sa.Float()),
                     sa.column('current_value', sa.Float()))
    connection = op.get_bind()
    for goal_id, target, current in connection.execute(sa.select(goals.c.id, goals.c.target_value,
                                                                 goals.c.current_value)).all():
        fixed_target, fixed_current = _target(target), _current(current)
        if (fixed_target, fixed_current) != (target, current):
            connection.execute(goals.update().where(goals.c.id == goal_id)
                               .values(target_value=fixed_target, current_value=fixed_current))


def downgrade():
    with op.batch_alter_table('user_sessions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_user_sessions_user_id'))

    op.drop_table('user_sessions')
