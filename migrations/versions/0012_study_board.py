"""The board of a study page: concept nodes and their connections

Revision ID: 0012_study_board
Revises: 0011_notebook_blocks
Create Date: 2026-12-01 13:11:33

A board belongs to its page: deleting the page takes its nodes and connections along, and
deleting a node takes every connection to or from it. A connection is unique per ordered pair of
nodes and never joins a node to itself.
"""

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = "0012_study_board"
down_revision = "0011_notebook_blocks"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "study_board_nodes",
        sa.Column("page_id", sa.Uuid(), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column(
            "status",
            sa.Enum("TODO", "LEARNING", "DONE", name="nodestatus", native_enum=False, length=16),
            nullable=False,
        ),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.ForeignKeyConstraint(
            ["page_id"], ["study_pages.id"], name=op.f("fk_study_board_nodes_page_id_study_pages"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_study_board_nodes_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_study_board_nodes")),
    )
    with op.batch_alter_table("study_board_nodes", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_study_board_nodes_page_id"), ["page_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_study_board_nodes_user_id"), ["user_id"], unique=False)

    op.create_table(
        "study_board_connections",
        sa.Column("page_id", sa.Uuid(), nullable=False),
        sa.Column("from_node_id", sa.Uuid(), nullable=False),
        sa.Column("to_node_id", sa.Uuid(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.CheckConstraint("from_node_id <> to_node_id", name=op.f("ck_study_board_connections_no_self_loop")),
        sa.ForeignKeyConstraint(
            ["from_node_id"],
            ["study_board_nodes.id"],
            name=op.f("fk_study_board_connections_from_node_id_study_board_nodes"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["page_id"],
            ["study_pages.id"],
            name=op.f("fk_study_board_connections_page_id_study_pages"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["to_node_id"],
            ["study_board_nodes.id"],
            name=op.f("fk_study_board_connections_to_node_id_study_board_nodes"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_study_board_connections_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_study_board_connections")),
        sa.UniqueConstraint("from_node_id", "to_node_id", name="one_connection_per_pair"),
    )
    with op.batch_alter_table("study_board_connections", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_study_board_connections_from_node_id"), ["from_node_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_study_board_connections_page_id"), ["page_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_study_board_connections_to_node_id"), ["to_node_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_study_board_connections_user_id"), ["user_id"], unique=False)


def downgrade():
    with op.batch_alter_table("study_board_connections", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_study_board_connections_user_id"))
        batch_op.drop_index(batch_op.f("ix_study_board_connections_to_node_id"))
        batch_op.drop_index(batch_op.f("ix_study_board_connections_page_id"))
        batch_op.drop_index(batch_op.f("ix_study_board_connections_from_node_id"))

    op.drop_table("study_board_connections")
    with op.batch_alter_table("study_board_nodes", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_study_board_nodes_user_id"))
        batch_op.drop_index(batch_op.f("ix_study_board_nodes_page_id"))

    op.drop_table("study_board_nodes")
