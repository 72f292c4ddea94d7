"""The board of a study page: concept nodes in the student's order, and directed connections
between two nodes of the same page ("cells" leads to "tissues").

A connection belongs to its page and goes with either of its nodes: the database cascades the
delete, and the unique pair and the check make a duplicate or a self-loop impossible on every
database, whatever the service lets through.
"""

import enum
import uuid

from sqlalchemy import CheckConstraint, Enum, ForeignKey, Integer, String, Text, UniqueConstraint, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.shared.models import Owned

NODE_TITLE_MAX = 200
NODE_DESCRIPTION_MAX = 2000
NODES_PER_BOARD = 200


class NodeStatus(enum.StrEnum):
    TODO = "TODO"
    LEARNING = "LEARNING"
    DONE = "DONE"


class BoardNode(Owned, db.Model):
    """A concept on a page's board: a title, an optional description, how far along it is, and
    its place in the board's order (0 first)."""

    __tablename__ = "study_board_nodes"

    page_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("study_pages.id", ondelete="CASCADE"), index=True)
    title: Mapped[str] = mapped_column(String(NODE_TITLE_MAX))
    description: Mapped[str | None] = mapped_column(Text)
    status: Mapped[NodeStatus] = mapped_column(Enum(NodeStatus, native_enum=False, length=16), default=NodeStatus.TODO)
    position: Mapped[int] = mapped_column(Integer, default=0)


class BoardConnection(Owned, db.Model):
    """A directed link from one node of a page to another node of the same page."""

    __tablename__ = "study_board_connections"
    __table_args__ = (
        UniqueConstraint("from_node_id", "to_node_id", name="one_connection_per_pair"),
        CheckConstraint("from_node_id <> to_node_id", name="no_self_loop"),
    )

    page_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("study_pages.id", ondelete="CASCADE"), index=True)
    from_node_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("study_board_nodes.id", ondelete="CASCADE"))
    to_node_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("study_board_nodes.id", ondelete="CASCADE"), index=True
    )
