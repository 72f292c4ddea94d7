"""The admin audit log: each admin view and action, with its admin, page and what it changed

Revision ID: 0019_admin_audit
Revises: 0018_day_outcome_index
Create Date: 2026-12-01 13:13:10

Deleting an admin's account deletes their entries, as it deletes every row they own.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0019_admin_audit'
down_revision = '0018_day_outcome_index'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('admin_audit',
    sa.Column('action', sa.String(length=16), nullable=False),
    sa.Column('endpoint', sa.String(length=64), nullable=False),
    sa.Column('path', sa.String(length=512), nullable=False),
    sa.Column('detail', sa.String(length=256), nullable=True),
    sa.Column('times', sa.Integer(), nullable=False),
    sa.Column('last_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_admin_audit_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_admin_audit'))
    )
    with op.batch_alter_table('admin_audit', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_admin_audit_last_at'), ['last_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_admin_audit_user_id'), ['user_id'], unique=False)


def downgrade():
    with op.batch_alter_table('admin_audit', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_admin_audit_user_id'))
        batch_op.drop_index(batch_op.f('ix_admin_audit_last_at'))

    op.drop_table('admin_audit')
