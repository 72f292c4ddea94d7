"""The board of a study page: concept nodes in order, and directed connections between them.

The page and the assistant's tools call these same functions. A node is named by its id or,
within one board, by its exact title. Every node a call names must be on the board of the page
the call names: a node of another page is refused with both pages said, so a connection never
joins two boards. A duplicate connection or a concept leading to itself is refused before
anything is written, and removing a node takes its connections with it.
"""

from dataclasses import dataclass

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError

from app.events import announce
from app.extensions import db
from app.notebook import services as notebook
from app.notebook.models.board import (
    NODE_DESCRIPTION_MAX,
    NODE_TITLE_MAX,
    NODES_PER_BOARD,
    BoardConnection,
    BoardNode,
    NodeStatus,
)
from app.notebook.models.pages import NotebookPage
from app.shared.errors import Conflict, Invalid, NotFound
from app.shared.fields import UNSET, as_uuid, given, refuse_if
from app.shared.ownership import owned


@dataclass(frozen=True)
class Board:
    """One page's board as read at once: the nodes in order and every connection between them."""

    page: object
    nodes: list
    connections: list

    def leads_to(self, node):
        """The nodes `node` points at, in board order."""
        targets = {connection.to_node_id for connection in self.connections if connection.from_node_id == node.id}
        return [other for other in self.nodes if other.id in targets]

    def as_data(self):
        """The board as the assistant and the export read it."""
        return {
            "page": notebook.page_data(self.page),
            "nodes": [
                {**node_data(node), "leadsTo": [str(target.id) for target in self.leads_to(node)]}
                for node in self.nodes
            ],
        }


def board(user, page_ref):
    """The board of the user's page named by id or exact title (notebook.resolve_page)."""
    return _board_of(user, notebook.resolve_page(user, page_ref))


def board_of_page(user, page_id):
    """The board of the page with this id: what the notebook's page shows."""
    return _board_of(user, notebook.get_page(user, page_id))


def every_board(user):
    """Every page's board that holds a node, pages in notebook order: what the export writes."""
    return [found for topic in notebook.topics(user) for page in topic.pages if (found := _board_of(user, page)).nodes]


def get_node(user, node_id):
    return owned(BoardNode, node_id, user, key="STUDY_NODE_NOT_FOUND")


def node_on(user, page, ref):
    """The node named by `ref` (its id, or its exact title on this board) on `page`'s board."""
    node_id = as_uuid(ref)
    if node_id is not None:
        node = get_node(user, node_id)
        if node.page_id != page.id:
            other = notebook.get_page(user, node.page_id)
            raise Invalid("STUDY_NODE_OTHER_PAGE", node=node.title, other=other.title, page=page.title)
        return node
    title = " ".join(str(ref or "").split())
    nodes = _nodes(user, page)
    matches = [node for node in nodes if node.title == title] if title else []
    if not matches:
        titles = ", ".join(f"“{node.title}”" for node in nodes) or "—"
        raise NotFound("STUDY_NODE_NOT_FOUND_BY_TITLE", ref=title, page=page.title, titles=titles)
    if len(matches) > 1:
        candidates = "; ".join(f"{node.title} ({node.status.value}, id {node.id})" for node in matches)
        raise Invalid("STUDY_NODE_AMBIGUOUS", ref=title, candidates=candidates)
    return matches[0]


def add_node(user, page_ref, title, description=None, status=None):
    """A new concept at the end of the page's board (TODO unless a status is given)."""
    page = notebook.resolve_page(user, page_ref)
    concept = new_concept(title, description, status)
    return add_nodes(user, page, held_nodes(user, page), [concept])[0]


def new_concept(title, description=None, status=None):
    """A concept's fields, checked, as `add_nodes` takes them; refused with per-field keys."""
    problems = {}
    clean = {
        "title": _title(title, problems),
        "description": _description(description, problems),
        "status": _status(status, problems) if status not in (None, "") else NodeStatus.TODO,
    }
    refuse_if(problems)
    return clean


def held_nodes(user, page):
    """The nodes of the page's board, read once this transaction holds the board: a request adding
    to the same board meanwhile (a draft submitted from two tabs, two adds at once) waits until
    this one commits, then reads what it added. The hold is a write that changes nothing on the
    page's row, which PostgreSQL locks and for which SQLite lets in one writer at a time; it ends
    with `add_nodes`, which commits or rolls back."""
    db.session.execute(
        update(NotebookPage)
        .where(NotebookPage.id == page.id)
        .values(updated_at=NotebookPage.updated_at)  # itself, named so its onupdate is not applied
        .execution_options(synchronize_session=False)
    )
    return _nodes(user, page)


def add_nodes(user, page, held, concepts):
    """`concepts` (from `new_concept`) after the board's `held` nodes (`held_nodes`), in their
    order, in one commit: all of them, or none when the board has no room for them all."""
    if len(held) + len(concepts) > NODES_PER_BOARD:
        db.session.rollback()
        raise Conflict("STUDY_BOARD_FULL", limit=NODES_PER_BOARD)
    nodes = [
        BoardNode(user_id=user.id, page_id=page.id, position=len(held) + offset, **concept)
        for offset, concept in enumerate(concepts)
    ]
    db.session.add_all(nodes)
    db.session.commit()
    if nodes:
        announce(user, "notebook")
    return nodes


def edit_node(user, node_id, title=UNSET, description=UNSET, status=UNSET, page=None):
    """Change what is given of a node; what is not given stays. With `page`, the node must be
    on that page's board."""
    node = node_on(user, page, node_id) if page is not None else get_node(user, node_id)
    problems = {}
    changes = {}
    if given(title):
        changes["title"] = _title(title, problems)
    if given(description):
        changes["description"] = _description(description, problems)
    if given(status):
        changes["status"] = _status(status, problems)
    refuse_if(problems)
    for name, value in changes.items():
        setattr(node, name, value)
    db.session.commit()
    announce(user, "notebook")
    return node


def set_status(user, node_id, status, page=None):
    return edit_node(user, node_id, status=status, page=page)


def move_node(user, node_id, offset):
    """One place earlier (offset < 0) or later (offset > 0): the page's arrow buttons. At either
    end of the board the node stays."""
    node = get_node(user, node_id)
    page = notebook.get_page(user, node.page_id)
    nodes = _nodes(user, page)
    index = nodes.index(node)
    target = min(max(index + (1 if offset > 0 else -1 if offset < 0 else 0), 0), len(nodes) - 1)
    nodes.insert(target, nodes.pop(index))
    _renumber(nodes)
    db.session.commit()
    announce(user, "notebook")
    return node


def reorder(user, page_ref, node_refs):
    """Put the board in this order: every node of the page exactly once (by id or exact title)."""
    page = notebook.resolve_page(user, page_ref)
    nodes = _nodes(user, page)
    wanted = [node_on(user, page, ref) for ref in node_refs or ()]
    if len(wanted) != len(nodes) or {node.id for node in wanted} != {node.id for node in nodes}:
        raise Invalid("STUDY_BOARD_ORDER_INVALID", count=len(nodes))
    _renumber(wanted)
    db.session.commit()
    announce(user, "notebook")
    return _board_of(user, page)


def connect(user, page_ref, from_ref, to_ref):
    """A connection from one node of the page's board to another. Refused, with nothing
    written: a node of another page, a node leading to itself, a connection already there."""
    page = notebook.resolve_page(user, page_ref)
    source, target = node_on(user, page, from_ref), node_on(user, page, to_ref)
    if source.id == target.id:
        raise Invalid("STUDY_CONNECTION_SELF", node=source.title)
    if _connection(user, source, target) is not None:
        raise Conflict("STUDY_CONNECTION_EXISTS", source=source.title, target=target.title)
    connection = BoardConnection(user_id=user.id, page_id=page.id, from_node_id=source.id, to_node_id=target.id)
    db.session.add(connection)
    try:
        db.session.commit()
    except IntegrityError:  # the same pair, saved by another request meanwhile
        db.session.rollback()
        raise Conflict("STUDY_CONNECTION_EXISTS", source=source.title, target=target.title) from None
    announce(user, "notebook")
    return connection


def disconnect(user, page_ref, from_ref, to_ref):
    """Remove the connection from one node of the page's board to another."""
    page = notebook.resolve_page(user, page_ref)
    source, target = node_on(user, page, from_ref), node_on(user, page, to_ref)
    connection = _connection(user, source, target)
    if connection is None:
        raise NotFound("STUDY_CONNECTION_NOT_FOUND", source=source.title, target=target.title)
    db.session.delete(connection)
    db.session.commit()
    announce(user, "notebook")
    return source, target


def remove_node(user, node_id, page=None):
    """Remove a node and every connection to or from it; the rest of the board closes up."""
    node = node_on(user, page, node_id) if page is not None else get_node(user, node_id)
    owner_page = notebook.get_page(user, node.page_id)
    db.session.execute(
        db.delete(BoardConnection).where(
            BoardConnection.user_id == user.id,
            (BoardConnection.from_node_id == node.id) | (BoardConnection.to_node_id == node.id),
        )
    )
    db.session.delete(node)
    db.session.flush()
    _renumber(_nodes(user, owner_page))
    db.session.commit()
    announce(user, "notebook")
    return node


def node_data(node):
    return {
        "id": str(node.id),
        "title": node.title,
        "description": node.description,
        "status": node.status.value,
    }


# Rules ---------------------------------------------------------------------------------------


def _board_of(user, page):
    nodes = _nodes(user, page)
    connections = db.session.scalars(
        db.select(BoardConnection)
        .where(BoardConnection.user_id == user.id, BoardConnection.page_id == page.id)
        .order_by(BoardConnection.created_at, BoardConnection.id)
    ).all()
    return Board(page=page, nodes=nodes, connections=list(connections))


def _nodes(user, page):
    return list(
        db.session.scalars(
            db.select(BoardNode)
            .where(BoardNode.user_id == user.id, BoardNode.page_id == page.id)
            .order_by(BoardNode.position, BoardNode.created_at, BoardNode.id)
        ).all()
    )


def _connection(user, source, target):
    return db.session.scalar(
        db.select(BoardConnection).where(
            BoardConnection.user_id == user.id,
            BoardConnection.from_node_id == source.id,
            BoardConnection.to_node_id == target.id,
        )
    )


def _renumber(nodes):
    for position, node in enumerate(nodes):
        node.position = position


def _title(value, problems):
    title = " ".join(str(value or "").split())
    if not title:
        problems["title"] = "STUDY_NODE_TITLE_REQUIRED"
    elif len(title) > NODE_TITLE_MAX:
        problems["title"] = "STUDY_NODE_TITLE_TOO_LONG"
    return title


def _description(value, problems):
    text = str(value or "").strip()
    if len(text) > NODE_DESCRIPTION_MAX:
        problems["description"] = "STUDY_NODE_DESCRIPTION_TOO_LONG"
    return text or None


def _status(value, problems):
    """TODO, LEARNING or DONE, in any letter case ("to do" too)."""
    key = "".join(str(value or "").upper().replace("_", " ").split())
    if key not in NodeStatus.__members__:
        problems["status"] = "STUDY_NODE_STATUS_INVALID"
        return None
    return NodeStatus[key]
