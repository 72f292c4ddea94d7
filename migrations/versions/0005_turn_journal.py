"""turn journal: the user's message stored on accept, a lease on running turns

Revision ID: 0005_turn_journal
Revises: 0004_xp_days_by_day
Create Date: 2026-11-30 23:05:00.000000

"""
import uuid
from datetime import datetime, timezone

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0005_turn_journal'
down_revision = '0004_xp_days_by_day'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('turns', schema=None) as batch_op:
        batch_op.add_column(sa.Column('question_id', sa.Uuid(), nullable=True))
        batch_op.add_column(sa.Column('lease_until', sa.DateTime(timezone=True), nullable=True))
        batch_op.create_index(batch_op.f('ix_turns_lease_until'), ['lease_until'], unique=False)
    _store_the_questions_of_unfinished_turns()


def _store_the_questions_of_unfinished_turns():
    """Turns posted before this revision kept the typed text only in `turns` until they ended: a
    turn still PENDING or RUNNING (a lost one, most likely) gets its user message now, so the
    chat and the export show it and the sweep can end it with that text in place."""
    bind = op.get_bind()
    turns = sa.table('turns', sa.column('id', sa.Uuid()), sa.column('chat_id', sa.Uuid()),
                     sa.column('text', sa.Text()), sa.column('status', sa.String()),
                     sa.column('question_id', sa.Uuid()), sa.column('created_at', sa.DateTime(timezone=True)))
    messages = sa.table('chat_messages', sa.column('id', sa.Uuid()), sa.column('chat_id', sa.Uuid()),
                        sa.column('seq', sa.Integer()), sa.column('role', sa.String()),
                        sa.column('segments', sa.JSON()), sa.column('transcript', sa.JSON()),
                        sa.column('created_at', sa.DateTime(timezone=True)))
    unfinished = bind.execute(
        sa.select(turns.c.id, turns.c.chat_id, turns.c.text, turns.c.created_at)
        .where(turns.c.status.in_(['PENDING', 'RUNNING']))
        .order_by(turns.c.created_at)
    ).all()
    for turn_id, chat_id, text, created_at in unfinished:
        last = bind.scalar(sa.select(sa.func.max(messages.c.seq)).where(messages.c.chat_id == chat_id))
        question_id = uuid.uuid4()
        bind.execute(messages.insert().values(
            id=question_id, chat_id=chat_id, seq=(last or 0) + 1, role='USER',
            segments=[{'type': 'text', 'text': text}], transcript=[{'role': 'user', 'content': text}],
            created_at=created_at or datetime.now(timezone.utc),
        ))
        bind.execute(turns.update().where(turns.c.id == turn_id).values(question_id=question_id))


def downgrade():
    with op.batch_alter_table('turns', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_turns_lease_until'))
        batch_op.drop_column('lease_until')
        batch_op.drop_column('question_id')
