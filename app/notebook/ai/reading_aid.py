"""The notebook's AI as a reading aid and a planner: "Explain this" on a note or a board concept,
and a roadmap of concepts drafted for a page's board.

An explanation is the SUPPORTED mode: the model explains from its own knowledge and cites the
page's passages where they agree; the code drops any citation it invents. Nothing is stored: it
is read under the note or the concept and gone on the next refresh.

A roadmap is the PLANNING mode: the prompt carries the page's title, its topic and the concepts
already on the board, and no passage at all. The draft travels in the student's form (nothing is
stored either); what the student picks becomes nodes and connections through the board's own
services, and a title the board already has is skipped, so a second submit of the same draft
adds nothing.
"""

from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

from jinja2 import Environment, StrictUndefined
from pydantic import BaseModel

from app.notebook import boards
from app.notebook import services as notebook
from app.notebook.ai import services as notebook_ai
from app.notebook.ai.services import Mode, Passage
from app.notebook.models.board import NODE_TITLE_MAX
from app.notebook.sources import SEARCH_MAX_CHARS
from app.shared.errors import Conflict, Invalid
from app.shared.values import folded

PROMPT = Path(__file__).resolve().parent / "prompts" / "planning_tasks.md"  # the modes: <mode>.md
ROADMAP_MAX = 12  # concepts one draft proposes
DESCRIPTION_SHORT = 300  # a suggested concept's description, as the draft shows it
LEADS_TO_MAX = 4  # suggested connections from one concept
EXPLANATION_MAX = 6000  # characters of an explanation shown
NOTE_IN_TASK = 3000  # characters of the note explained, so the task's own words fit its limit


# The answers the model is asked for (typed loosely: the cleaning below decides what is kept) ------


class SuggestedConcept(BaseModel):
    title: str | None = None
    description: str | None = None
    leads_to: list[str] = []


class RoadmapAnswer(BaseModel):
    concepts: list[SuggestedConcept]


class ExplanationAnswer(BaseModel):
    explanation: str


# What the pages show -------------------------------------------------------------------------


@dataclass(frozen=True)
class Suggestion:
    """One concept of a draft: what `add_suggestions` receives back when the student picks it."""

    title: str
    description: str | None = None
    leads_to: tuple[str, ...] = ()


@dataclass(frozen=True)
class Roadmap:
    page: object
    suggestions: list[Suggestion]
    on_board: list[str]  # concepts the model proposed that the board already has


@dataclass(frozen=True)
class Added:
    """What a submit of picked suggestions did: the nodes made, the titles the board already had,
    and how many connections were drawn."""

    page: object
    nodes: list
    skipped: list[str]
    connections: int


@dataclass(frozen=True)
class Explanation:
    subject: str  # what was explained: the concept's title, or the note's opening words
    text: str  # the explanation, citing only passages that exist
    cited: list[Passage]  # the passages it cites, in the order first cited


# Explain this ----------------------------------------------------------------------------------


def explain_block(user, block_id):
    """An explanation of one of the page's notes, citing the page's other notes and its sources."""
    block = notebook.get_block(user, block_id)
    if block.kind != "note":
        raise Invalid("NOTEBOOK_EXPLAIN_NOTES_ONLY")
    page = notebook.get_page(user, block.page_id)
    subject = _opening(block.text)
    passages = _without_block(notebook_ai.passages_for(user, page, question=_question(block.text)), block.id)
    task = _task("explain_note", text=block.text[:NOTE_IN_TASK])
    return _explained(user, page, subject, task, passages)


def explain_node(user, node_id):
    """An explanation of one concept of the board, in the light of the page it belongs to."""
    node = boards.get_node(user, node_id)
    page = notebook.get_page(user, node.page_id)
    question = _question(f"{node.title} {node.description or ''}")
    task = _task("explain_concept", title=node.title, description=node.description or "")
    return _explained(user, page, node.title, task, notebook_ai.passages_for(user, page, question=question))


def _explained(user, page, subject, task, passages):
    answer = notebook_ai.ask(user, page, Mode.SUPPORTED, task, ExplanationAnswer, passages=passages)
    text = notebook_ai.cited(answer.explanation.strip()[:EXPLANATION_MAX], passages)
    return Explanation(subject=subject, text=text, cited=notebook_ai.citations_in(text, passages))


def _without_block(passages, block_id):
    """The passages without the note being explained (it cannot agree with itself), numbered
    again from 1 so the model reads an unbroken list."""
    kept = [passage for passage in passages if passage.block_id != block_id]
    return [replace(passage, number=number) for number, passage in enumerate(kept, start=1)]


def _question(text):
    """What retrieval is asked for: the opening words, within the search box's limit."""
    words = " ".join(str(text).split())
    return words[:SEARCH_MAX_CHARS].rsplit(" ", 1)[0] if len(words) > SEARCH_MAX_CHARS else words


def _opening(text, length=80):
    words = " ".join(str(text).replace("#", " ").split())
    return words if len(words) <= length else words[: length - 1].rstrip() + "…"


# A roadmap for the board -------------------------------------------------------------------------


def draft_roadmap(user, page_id):
    """Concepts to study on this page, in order, proposed from its title, topic and board: never
    from its notes or sources. Titles the board already has are left out of the draft."""
    page = notebook.get_page(user, page_id)
    board = boards.board_of_page(user, page.id)
    existing = [{"title": node.title, "description": node.description or ""} for node in board.nodes]
    task = _task("roadmap", existing=existing, limit=ROADMAP_MAX)
    answer = notebook_ai.ask(user, page, Mode.PLANNING, task, RoadmapAnswer)
    return _roadmap(page, board, answer)


def _roadmap(page, board, answer):
    on_board = {folded(node.title): node.title for node in board.nodes}
    suggestions, already, seen = [], [], set()
    for concept in answer.concepts:
        title = _line(concept.title, NODE_TITLE_MAX)
        key = folded(title)
        if not title or key in seen:
            continue
        seen.add(key)
        if key in on_board:
            already.append(on_board[key])
        elif len(suggestions) < ROADMAP_MAX:
            suggestions.append((title, _line(concept.description, DESCRIPTION_SHORT) or None, concept.leads_to))
    names = {folded(title): title for title, _description, _leads in suggestions} | on_board
    return Roadmap(
        page=page,
        suggestions=[
            Suggestion(title, description, _leads_to(title, leads, names)) for title, description, leads in suggestions
        ],
        on_board=already,
    )


def _leads_to(title, leads, names):
    """The suggested connections that name another concept of the draft or of the board."""
    targets = []
    for lead in leads or ():
        target = names.get(folded(_line(lead, NODE_TITLE_MAX)))
        if target and folded(target) != folded(title) and target not in targets:
            targets.append(target)
    return tuple(targets[:LEADS_TO_MAX])


def still_to_add(user, page_id, suggestions):
    """A draft as the student's form carried it back, without what the board now holds."""
    page = notebook.get_page(user, page_id)
    on_board = {folded(node.title): node.title for node in boards.board_of_page(user, page.id).nodes}
    return Roadmap(
        page=page,
        suggestions=[suggestion for suggestion in suggestions if folded(suggestion.title) not in on_board],
        on_board=[on_board[key] for suggestion in suggestions if (key := folded(suggestion.title)) in on_board],
    )


def add_suggestions(user, page_id, picked):
    """Put the picked suggestions on the page's board, in the draft's order, with the connections
    they suggest between concepts now on the board. A title the board already has is skipped (a
    second submit adds nothing, even one sent from another tab at the same moment); a board
    without room for all of them refuses before any write."""
    page = notebook.get_page(user, page_id)
    if not picked:
        raise Invalid("STUDY_AI_ROADMAP_NONE_PICKED")
    concepts = [boards.new_concept(pick.title, pick.description) for pick in picked if folded(pick.title)]
    held = boards.held_nodes(user, page)  # the same draft sent from another tab waits, then skips these
    nodes = {folded(node.title): node for node in held}
    wanted, skipped = [], []
    for concept in concepts:
        key = folded(concept["title"])
        if key in nodes:
            skipped.append(nodes[key].title)
        elif key not in {folded(item["title"]) for item in wanted}:
            wanted.append(concept)
    made = boards.add_nodes(user, page, held, wanted)
    nodes.update(zip((folded(concept["title"]) for concept in wanted), made, strict=True))
    return Added(page=page, nodes=made, skipped=skipped, connections=_connect(user, page, picked, nodes))


def _connect(user, page, picked, nodes):
    joined = {(link.from_node_id, link.to_node_id) for link in boards.board_of_page(user, page.id).connections}
    count = 0
    for suggestion in picked:
        source = nodes.get(folded(suggestion.title))
        for lead in suggestion.leads_to:
            target = nodes.get(folded(lead))
            if source is None or target is None or source.id == target.id or (source.id, target.id) in joined:
                continue
            try:
                boards.connect(user, page.id, source.id, target.id)
            except Conflict:  # the same connection, drawn by another request meanwhile
                continue
            joined.add((source.id, target.id))
            count += 1
    return count


def _line(value, limit):
    text = " ".join(str(value).split()) if isinstance(value, str) else ""
    return text[:limit].rstrip()


# The task's wording ------------------------------------------------------------------------------


@cache
def _template():
    environment = Environment(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True)
    return environment.from_string(PROMPT.read_text(encoding="utf-8"))


def _task(kind, **context):
    return _template().render(kind=kind, **context).strip()
