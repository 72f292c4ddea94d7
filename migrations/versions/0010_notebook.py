"""The study notebook's topics and pages (a page may sit inside another page of its topic)

Revision ID: 0010_notebook
Revises: 0009_focus
Create Date: 2026-12-01 13:04:45

Deleting a topic takes its pages along; deleting a page takes the pages inside it.
"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '0010_notebook'
down_revision = '0009_focus'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('study_topics',
    sa.Column('name', sa.String(length=120), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_study_topics_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_study_topics'))
    )
    with op.batch_alter_table('study_topics', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_study_topics_user_id'), ['user_id'], unique=False)

    op.create_table('study_pages',
    sa.Column('topic_id', sa.Uuid(), nullable=False),
    sa.Column('parent_id', sa.Uuid(), nullable=True),
    sa.Column('title', sa.String(length=200), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.ForeignKeyConstraint(['parent_id'], ['study_pages.id'], name=op.f('fk_study_pages_parent_id_study_pages'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['topic_id'], ['study_topics.id'], name=op.f('fk_study_pages_topic_id_study_topics'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_study_pages_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_study_pages'))
    )
    with op.batch_alter_table('study_pages', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_study_pages_parent_id'), ['parent_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_study_pages_topic_id'), ['topic_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_study_pages_user_id'), ['user_id'], unique=False)



def downgrade():
    with op.batch_alter_table('study_pages', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_study_pages_user_id'))
        batch_op.drop_index(batch_op.f('ix_study_pages_topic_id'))
        batch_op.drop_index(batch_op.f('ix_study_pages_parent_id'))

    op.drop_table('study_pages')
    with op.batch_alter_table('study_topics', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_study_topics_user_id'))

    op.drop_table('study_topics')
