"""Changes the assistant proposed that wait for the person's click on the chat's card

Revision ID: 0023_pending_actions
Revises: 0022_study_embeddings
Create Date: 2026-12-01 16:45:00

A delete, a rebuilt routine, a check or a completion that moves XP is stored here by the tool
call and performed only when the person confirms, once, before it expires.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0023_pending_actions'
down_revision = '0022_study_embeddings'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('pending_actions',
    sa.Column('chat_id', sa.Uuid(), nullable=False),
    sa.Column('tool', sa.String(length=64), nullable=False),
    sa.Column('arguments', sa.JSON(), nullable=False),
    sa.Column('summary', sa.Text(), nullable=False),
    sa.Column('facts', sa.JSON(), nullable=False),
    sa.Column('state', sa.Enum('PENDING', 'CONFIRMED', 'CANCELLED', 'EXPIRED', 'FAILED', name='actionstate', native_enum=False, length=16), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('decided_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('outcome', sa.JSON(), nullable=True),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.ForeignKeyConstraint(['chat_id'], ['chats.id'], name=op.f('fk_pending_actions_chat_id_chats'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_pending_actions_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_pending_actions'))
    )
    with op.batch_alter_table('pending_actions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_pending_actions_chat_id'), ['chat_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_pending_actions_user_id'), ['user_id'], unique=False)


def downgrade():
    with op.batch_alter_table('pending_actions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_pending_actions_user_id'))
        batch_op.drop_index(batch_op.f('ix_pending_actions_chat_id'))

    op.drop_table('pending_actions')
