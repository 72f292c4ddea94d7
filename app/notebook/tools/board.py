"""The notebook's board tools: read a page's board of concepts, add, edit, connect, order and
remove its nodes, and read today's study plan.

Every tool names the page (its id or exact title) and each node on it (its id from getStudyBoard,
or its exact title on that board); a node of another page is refused, never moved or joined.
"""

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from pydantic import BaseModel, Field

from app.agent.registry import Proposal, pinned, tool
from app.notebook import boards
from app.notebook import services as notebook
from app.notebook.models.board import NODE_DESCRIPTION_MAX, NODE_TITLE_MAX
from app.shared.fields import UNSET
from app.study_cycles import services as study_cycles

PAGE = "The notebook page: its id, or its exact title."
NODE = "A concept on that page's board: its id (getStudyBoard) or its exact title there."
STATUS = "TODO, LEARNING or DONE."


class PageRef(BaseModel):
    page: str = Field(description=PAGE)


class NodeNew(PageRef):
    title: str = Field(description=f"The concept (1–{NODE_TITLE_MAX} characters).")
    description: str | None = Field(None, description=f"Optional, at most {NODE_DESCRIPTION_MAX} characters.")
    status: str | None = Field(None, description=f"{STATUS} Left out: TODO.")


class NodeRef(PageRef):
    node: str = Field(description=NODE)


class NodeEdit(NodeRef):
    title: str | None = Field(None, description="The new title; left out, it stays.")
    description: str | None = Field(None, description="The new description (empty text clears it); left out, it stays.")
    status: str | None = Field(None, description=f"{STATUS} Left out, it stays.")


class NodeStatusSet(NodeRef):
    status: str = Field(description=STATUS)


class Link(PageRef):
    from_node: str = Field(description=f"Where the connection starts. {NODE}")
    to_node: str = Field(description=f"Where it leads. {NODE}")


class BoardOrder(PageRef):
    nodes: list[str] = Field(description="Every concept of the board exactly once, in the new order (ids or titles).")


def _on_page(ctx, args):
    return notebook.resolve_page(ctx.user, args.page)


def _given(value):
    return UNSET if value is None else value


def _node(node):
    return boards.node_data(node)


@tool(domain="notebook", kind="read", label=_l("Read a study board"), args=PageRef)
def getStudyBoard(ctx, args):
    """A notebook page's board: its concepts in order (id, title, description, status TODO /
    LEARNING / DONE) and, for each, the ids of the concepts it leads to."""
    return boards.board(ctx.user, args.page).as_data()


@tool(domain="notebook", kind="write", label=_l("Added a concept to a study board"), page="/notebook", args=NodeNew)
def addStudyNode(ctx, args):
    """Add a concept at the end of a notebook page's board; returns its id."""
    return _node(boards.add_node(ctx.user, args.page, args.title, args.description, args.status))


@tool(domain="notebook", kind="write", label=_l("Changed a concept on a study board"), page="/notebook", args=NodeEdit)
def editStudyNode(ctx, args):
    """Change a concept's title, description or status; what is left out stays."""
    node = boards.edit_node(
        ctx.user,
        args.node,
        title=_given(args.title),
        description=_given(args.description),
        status=_given(args.status),
        page=_on_page(ctx, args),
    )
    return _node(node)


@tool(domain="notebook", kind="write", label=_l("Set a concept's status"), page="/notebook", args=NodeStatusSet)
def setStudyNodeStatus(ctx, args):
    """Mark a concept TODO, LEARNING or DONE."""
    return _node(boards.set_status(ctx.user, args.node, args.status, page=_on_page(ctx, args)))


@tool(domain="notebook", kind="write", label=_l("Connected two concepts"), page="/notebook", args=Link)
def connectStudyNodes(ctx, args):
    """Add a directed connection between two concepts of the same page's board (from leads to).
    A duplicate, a concept leading to itself or a concept of another page is refused."""
    connection = boards.connect(ctx.user, args.page, args.from_node, args.to_node)
    return {"from": str(connection.from_node_id), "to": str(connection.to_node_id)}


@tool(domain="notebook", kind="write", label=_l("Disconnected two concepts"), page="/notebook", args=Link)
def disconnectStudyNodes(ctx, args):
    """Remove the connection from one concept of a page's board to another."""
    source, target = boards.disconnect(ctx.user, args.page, args.from_node, args.to_node)
    return {"removed": {"from": str(source.id), "to": str(target.id)}}


def _node_removal(ctx, args):
    """The concept, on its page, that goes with its connections."""
    page = _on_page(ctx, args)
    node = boards.node_on(ctx.user, page, args.node)
    summary = _("Remove the concept “%(node)s” from the board of “%(page)s”, with its connections",
                node=node.title, page=page.title)  # fmt: skip
    return Proposal(summary, pinned(args, page=page.id, node=node.id), {"id": str(node.id), "title": node.title})


@tool(domain="notebook", kind="write", label=_l("Removed a concept from a study board"), page="/notebook",
      args=NodeRef, confirm=_node_removal)  # fmt: skip
def removeStudyNode(ctx, args):
    """Remove a concept and every connection to or from it."""
    node = boards.remove_node(ctx.user, args.node, page=_on_page(ctx, args))
    return {"removed": _node(node)}


@tool(domain="notebook", kind="write", label=_l("Reordered a study board"), page="/notebook", args=BoardOrder)
def reorderStudyBoard(ctx, args):
    """Put a page's board in a new order: send every concept of it exactly once."""
    return boards.reorder(ctx.user, args.page, args.nodes).as_data()


NO_PLAN = "No active study cycle: nothing is planned. Cycles are made at /notebook/cycles."


@tool(domain="notebook", kind="read", label=_l("Read today's study plan"))
def getStudyPlanForToday(ctx, args):
    """Today's study plan: each active study cycle's slice of today — minutes planned, studied and
    left, and the blocks (subject page, minutes, mode) to study. A rest day has 0 minutes."""
    plan = study_cycles.plan_for_today(ctx.user)
    if not plan:
        return {
            "plan": [],
            "message": "No active study cycle: nothing is planned. Cycles are made at /notebook/cycles.",
        }
    return {"plan": plan}
