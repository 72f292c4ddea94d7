"""The study studio: a page's summaries, study guides and quizzes, and its AI flashcard drafts

Revision ID: 0021_study_studio
Revises: 0020_study_tutor
Create Date: 2026-12-01 16:40:00

Both belong to their page: deleting the page (or the account) takes them along. Each keeps a
copy of the passages it cites, so a source deleted later leaves its citations readable.
"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "0021_study_studio"
down_revision = "0020_study_tutor"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "study_outputs",
        sa.Column("page_id", sa.Uuid(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("focus", sa.String(length=200), nullable=True),
        sa.Column("content", sa.JSON(), nullable=False),
        sa.Column("passages", sa.JSON(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.ForeignKeyConstraint(
            ["page_id"], ["study_pages.id"], name=op.f("fk_study_outputs_page_id_study_pages"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_study_outputs_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_study_outputs")),
    )
    with op.batch_alter_table("study_outputs", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_study_outputs_page_id"), ["page_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_study_outputs_user_id"), ["user_id"], unique=False)

    op.create_table(
        "study_card_drafts",
        sa.Column("page_id", sa.Uuid(), nullable=False),
        sa.Column("front", sa.Text(), nullable=False),
        sa.Column("back", sa.Text(), nullable=False),
        sa.Column("passage", sa.JSON(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.ForeignKeyConstraint(
            ["page_id"], ["study_pages.id"], name=op.f("fk_study_card_drafts_page_id_study_pages"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_study_card_drafts_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_study_card_drafts")),
    )
    with op.batch_alter_table("study_card_drafts", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_study_card_drafts_page_id"), ["page_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_study_card_drafts_user_id"), ["user_id"], unique=False)


def downgrade():
    with op.batch_alter_table("study_card_drafts", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_study_card_drafts_user_id"))
        batch_op.drop_index(batch_op.f("ix_study_card_drafts_page_id"))
    op.drop_table("study_card_drafts")

    with op.batch_alter_table("study_outputs", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_study_outputs_user_id"))
        batch_op.drop_index(batch_op.f("ix_study_outputs_page_id"))
    op.drop_table("study_outputs")
