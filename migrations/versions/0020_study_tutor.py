"""The study tutor's conversation: each question on a notebook page and its cited answer

Revision ID: 0020_study_tutor
Revises: 0019_admin_audit
Create Date: 2026-12-01 16:40:00

Deleting a page (or the account) deletes its exchanges.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0020_study_tutor'
down_revision = '0019_admin_audit'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('study_tutor_exchanges',
    sa.Column('page_id', sa.Uuid(), nullable=False),
    sa.Column('question', sa.Text(), nullable=False),
    sa.Column('answer', sa.Text(), nullable=False),
    sa.Column('beyond_passages', sa.Boolean(), nullable=False),
    sa.Column('passages', sa.JSON(), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.ForeignKeyConstraint(['page_id'], ['study_pages.id'], name=op.f('fk_study_tutor_exchanges_page_id_study_pages'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_study_tutor_exchanges_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_study_tutor_exchanges'))
    )
    with op.batch_alter_table('study_tutor_exchanges', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_study_tutor_exchanges_page_id'), ['page_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_study_tutor_exchanges_user_id'), ['user_id'], unique=False)


def downgrade():
    with op.batch_alter_table('study_tutor_exchanges', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_study_tutor_exchanges_user_id'))
        batch_op.drop_index(batch_op.f('ix_study_tutor_exchanges_page_id'))

    op.drop_table('study_tutor_exchanges')
