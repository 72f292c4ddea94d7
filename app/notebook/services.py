"""The study notebook's topics, pages and blocks, and the spaced review of its flashcards.

A page is found by its id or its exact title. Titles may repeat across topics, so a title two
pages share is refused with every candidate and its topic — never a guess — and a title that
matches nothing answers with the topics there are.

A page's blocks are notes (Markdown), diagrams (Mermaid source, drawn in the browser; here only
what can be checked without drawing it: not empty, not oversize, a known diagram type first)
and flashcards. Every write commits whole or not at all, then announces `notebook`.
"""

import re
from datetime import timedelta

from app.events import announce
from app.extensions import db
from app.notebook.models.pages import (
    CARD_SIDE_MAX,
    DIAGRAM_MAX,
    NOTE_MAX,
    PAGE_TITLE_MAX,
    TOPIC_NAME_MAX,
    NotebookPage,
    NotebookTopic,
    PageBlock,
)
from app.shared.days import today_for
from app.shared.errors import Invalid, NotFound
from app.shared.fields import UNSET, as_uuid, given, refuse_if
from app.shared.ownership import owned

# The first word of every diagram type Mermaid 12 draws; source starting otherwise is refused
# before it is saved (what only drawing can find is shown beside the source in the browser).
DIAGRAM_TYPES = (
    "flowchart", "graph", "sequenceDiagram", "classDiagram", "classDiagram-v2", "stateDiagram",
    "stateDiagram-v2", "erDiagram", "journey", "gantt", "pie", "quadrantChart", "requirementDiagram",
    "gitGraph", "C4Context", "C4Container", "C4Component", "C4Dynamic", "C4Deployment", "mindmap",
    "timeline", "zenuml", "sankey-beta", "sankey", "xychart-beta", "xychart", "block-beta", "block",
    "packet-beta", "packet", "kanban", "architecture-beta", "architecture", "radar-beta", "treemap-beta",
)  # fmt: skip
STEPS = {"up": -1, "down": 1}
GRADES = ("again", "good", "easy")
EASE_MIN = 130


def topics(user):
    """The user's topics in their order, each with its pages loaded."""
    return db.session.scalars(
        db.select(NotebookTopic)
        .where(NotebookTopic.user_id == user.id)
        .order_by(NotebookTopic.position, NotebookTopic.created_at)
    ).all()


def get_topic(user, topic_id):
    return owned(NotebookTopic, topic_id, user, key="NOTEBOOK_TOPIC_NOT_FOUND")


def get_page(user, page_id):
    return owned(NotebookPage, page_id, user, key="NOTEBOOK_PAGE_NOT_FOUND")


def resolve_page(user, ref):
    """The user's page by id or exact title (spaces squeezed, letter case kept).

    No match answers NOTEBOOK_PAGE_NOT_FOUND with the topics' names; several answer
    NOTEBOOK_PAGE_AMBIGUOUS with each candidate's title, topic and id.
    """
    page_id = as_uuid(ref)
    if page_id is not None:
        return get_page(user, page_id)
    title = " ".join(str(ref or "").split())
    matches = (
        db.session.scalars(
            db.select(NotebookPage)
            .join(NotebookTopic, NotebookTopic.id == NotebookPage.topic_id)
            .where(NotebookPage.user_id == user.id, NotebookPage.title == title)
            .order_by(NotebookTopic.position, NotebookPage.position)
        ).all()
        if title
        else []
    )
    if not matches:
        names = ", ".join(topic.name for topic in topics(user)) or "—"
        raise NotFound("NOTEBOOK_PAGE_NOT_FOUND_BY_TITLE", ref=title, topics=names)
    if len(matches) > 1:
        candidates = "; ".join(f"{page.title} ({page.topic.name}, id {page.id})" for page in matches)
        raise Invalid("NOTEBOOK_PAGE_AMBIGUOUS", ref=title, candidates=candidates)
    return matches[0]


def pages_inside(user, page):
    """The ids of every page nested under `page`, at any depth (not `page` itself)."""
    rows = db.session.execute(
        db.select(NotebookPage.id, NotebookPage.parent_id).where(
            NotebookPage.user_id == user.id, NotebookPage.topic_id == page.topic_id
        )
    ).all()
    children = {}
    for page_id, parent_id in rows:
        children.setdefault(parent_id, []).append(page_id)
    found, waiting = set(), [page.id]
    while waiting:
        for child in children.get(waiting.pop(), ()):
            if child not in found:
                found.add(child)
                waiting.append(child)
    return found


def create_topic(user, name):
    """A new topic at the end of the list."""
    clean = _text(name, TOPIC_NAME_MAX, "name", "NOTEBOOK_TOPIC_NAME_REQUIRED", "NOTEBOOK_TOPIC_NAME_TOO_LONG")
    topic = NotebookTopic(user_id=user.id, name=clean, position=len(topics(user)))
    db.session.add(topic)
    db.session.commit()
    announce(user, "notebook")
    return topic


def create_page(user, topic_id, title, parent_id=None):
    """A new page at the end of its topic (or of its parent page, when nested in one)."""
    topic = get_topic(user, topic_id)
    clean = _text(title, PAGE_TITLE_MAX, "title", "NOTEBOOK_PAGE_TITLE_REQUIRED", "NOTEBOOK_PAGE_TITLE_TOO_LONG")
    parent = None
    if parent_id:
        parent = get_page(user, parent_id)
        if parent.topic_id != topic.id:
            raise Invalid("NOTEBOOK_PARENT_OTHER_TOPIC")
    siblings = [page for page in topic.pages if page.parent_id == (parent.id if parent else None)]
    page = NotebookPage(
        user_id=user.id, topic=topic, parent_id=parent.id if parent else None, title=clean, position=len(siblings)
    )
    db.session.add(page)
    db.session.commit()
    announce(user, "notebook")
    return page


def _text(value, limit, field, empty_key, long_key):
    text = " ".join(str(value or "").split())
    problems = {}
    if not text:
        problems[field] = empty_key
    elif len(text) > limit:
        problems[field] = long_key
    refuse_if(problems)
    return text


def page_data(page):
    """A page as the assistant and the export read it."""
    return {
        "id": str(page.id),
        "title": page.title,
        "topic": page.topic.name,
        "topicId": str(page.topic_id),
        "parentId": str(page.parent_id) if page.parent_id else None,
    }


def block_data(block):
    """A block as the export writes it: its kind, text (and a card's back and schedule)."""
    data = {"id": str(block.id), "pageId": str(block.page_id), "kind": block.kind, "text": block.text}
    if block.kind == "card":
        data.update(
            back=block.back,
            dueOn=block.due_on.isoformat() if block.due_on else None,
            intervalDays=block.interval_days,
            ease=block.ease / 100,
        )
    return data


# Topics --------------------------------------------------------------------------------------


def rename_topic(user, topic_id, name):
    topic = get_topic(user, topic_id)
    topic.name = _text(name, TOPIC_NAME_MAX, "name", "NOTEBOOK_TOPIC_NAME_REQUIRED", "NOTEBOOK_TOPIC_NAME_TOO_LONG")
    db.session.commit()
    announce(user, "notebook")
    return topic


def move_topic(user, topic_id, direction):
    """One place up or down the list of topics; at either end it stays."""
    topic = get_topic(user, topic_id)
    _step(topics(user), topic, direction)
    db.session.commit()
    announce(user, "notebook")
    return topic


def what_topic_takes(user, topic_id):
    """What deleting the topic takes along, said before it happens: its pages and their blocks
    (and, with them, each page's board and sources)."""
    topic = get_topic(user, topic_id)
    page_ids = [page.id for page in topic.pages]
    return {"pages": len(page_ids), "blocks": _count_blocks(user, page_ids)}


def delete_topic(user, topic_id):
    topic = get_topic(user, topic_id)
    db.session.delete(topic)
    db.session.flush()
    _renumber(topics(user))
    db.session.commit()
    announce(user, "notebook")


# Pages ---------------------------------------------------------------------------------------


def page_tree(topic):
    """The topic's pages in reading order, each as (page, depth): a page, then the pages inside it."""
    children = {}
    for page in sorted(topic.pages, key=lambda page: (page.position, page.created_at)):
        children.setdefault(page.parent_id, []).append(page)
    tree = []

    def visit(parent_id, depth):
        for page in children.get(parent_id, ()):
            tree.append((page, depth))
            visit(page.id, depth + 1)

    visit(None, 0)
    return tree


def rename_page(user, page_id, title):
    page = get_page(user, page_id)
    page.title = _text(title, PAGE_TITLE_MAX, "title", "NOTEBOOK_PAGE_TITLE_REQUIRED", "NOTEBOOK_PAGE_TITLE_TOO_LONG")
    db.session.commit()
    announce(user, "notebook")
    return page


def move_page(user, page_id, direction):
    """One place up or down among the pages beside it (same topic, same parent)."""
    page = get_page(user, page_id)
    _step(_siblings(page), page, direction)
    db.session.commit()
    announce(user, "notebook")
    return page


def what_page_takes(user, page_id):
    """What deleting the page takes along: the pages inside it and every one's blocks."""
    page = get_page(user, page_id)
    inside = pages_inside(user, page)
    return {"pages": len(inside), "blocks": _count_blocks(user, [page.id, *inside])}


def delete_page(user, page_id):
    """The page, the pages inside it at any depth, and all their blocks, in one commit (the
    foreign keys cascade on every database the app runs on)."""
    page = get_page(user, page_id)
    siblings = [other for other in _siblings(page) if other.id != page.id]
    db.session.delete(page)  # the database's cascades take the pages inside it and their blocks
    db.session.flush()
    _renumber(siblings)
    db.session.commit()
    announce(user, "notebook")


def _siblings(page):
    return sorted(
        (other for other in page.topic.pages if other.parent_id == page.parent_id),
        key=lambda other: (other.position, other.created_at),
    )


# Blocks --------------------------------------------------------------------------------------


def blocks(user, page_id):
    """The page's blocks in order."""
    return get_page(user, page_id).blocks


def get_block(user, block_id):
    return owned(PageBlock, block_id, user, key="NOTEBOOK_BLOCK_NOT_FOUND")


def add_note(user, page_id, text):
    """A Markdown note at the end of the page."""
    page = get_page(user, page_id)
    return _appended(user, page, "note", _note(text))


def add_diagram(user, page_id, source):
    """A Mermaid diagram at the end of the page; source Mermaid cannot start drawing is refused."""
    page = get_page(user, page_id)
    return _appended(user, page, "diagram", check_diagram(source))


def add_card(user, page_id, front, back):
    """A flashcard at the end of the page, due for review at once."""
    page = get_page(user, page_id)
    clean_front, clean_back = _card(front, back)
    return _appended(user, page, "card", clean_front, back=clean_back, due_on=today_for(user))


def edit_block(user, block_id, text, back=UNSET):
    """New text for a block (a card's front, and its back when given), checked like a new one."""
    block = get_block(user, block_id)
    if block.kind == "note":
        block.text = _note(text)
    elif block.kind == "diagram":
        block.text = check_diagram(text)
    else:
        block.text, block.back = _card(text, back if given(back) else block.back)
    db.session.commit()
    announce(user, "notebook")
    return block


def move_block(user, block_id, direction):
    """One place up or down the page; the first block stays first, the last stays last."""
    block = get_block(user, block_id)
    _step(block.page.blocks, block, direction)
    db.session.commit()
    announce(user, "notebook")
    return block


def delete_block(user, block_id):
    block = get_block(user, block_id)
    page = block.page
    db.session.delete(block)
    db.session.flush()
    db.session.refresh(page)
    _renumber(page.blocks)
    db.session.commit()
    announce(user, "notebook")


def check_diagram(source):
    """Mermaid source cleaned of surrounding blank lines, or the refusal: empty, oversize, or not
    starting (after front matter and %% comments) with a diagram type Mermaid knows."""
    text = str(source or "").strip("\n\r ")
    problems = {}
    if not text.strip():
        problems["text"] = "NOTEBOOK_DIAGRAM_REQUIRED"
    elif len(text) > DIAGRAM_MAX:
        problems["text"] = "NOTEBOOK_DIAGRAM_TOO_LONG"
    elif _diagram_type(text) not in DIAGRAM_TYPES:
        problems["text"] = "NOTEBOOK_DIAGRAM_TYPE_UNKNOWN"
    refuse_if(problems)
    return text


def _diagram_type(text):
    lines = iter(text.splitlines())
    for line in lines:
        line = line.strip()
        if line == "---":  # front matter (a title, a config) runs to the next ---
            for inner in lines:
                if inner.strip() == "---":
                    break
            continue
        if not line or line.startswith("%%"):
            continue
        return re.split(r"[\s;:{]", line, maxsplit=1)[0]
    return None


def _appended(user, page, kind, text, **fields):
    block = PageBlock(user_id=user.id, page=page, kind=kind, text=text, position=len(page.blocks), **fields)
    db.session.add(block)
    db.session.commit()
    announce(user, "notebook")
    return block


def _note(value):
    text = str(value or "").strip()
    problems = {}
    if not text:
        problems["text"] = "NOTEBOOK_NOTE_REQUIRED"
    elif len(text) > NOTE_MAX:
        problems["text"] = "NOTEBOOK_NOTE_TOO_LONG"
    refuse_if(problems)
    return text


def _card(front, back):
    problems = {}
    sides = {}
    for field, value in (("text", front), ("back", back)):
        sides[field] = str(value or "").strip()
        if not sides[field]:
            problems[field] = "NOTEBOOK_CARD_SIDE_REQUIRED"
        elif len(sides[field]) > CARD_SIDE_MAX:
            problems[field] = "NOTEBOOK_CARD_SIDE_TOO_LONG"
    refuse_if(problems)
    return sides["text"], sides["back"]


# Spaced review -------------------------------------------------------------------------------


def due_cards(user, today=None):
    """The cards due on or before the user's today, the most overdue first (then in page order)."""
    today = today or today_for(user)
    return db.session.scalars(
        db.select(PageBlock)
        .join(NotebookPage, NotebookPage.id == PageBlock.page_id)
        .where(PageBlock.user_id == user.id, PageBlock.kind == "card", PageBlock.due_on <= today)
        .order_by(PageBlock.due_on, NotebookPage.title, PageBlock.position)
    ).all()


def review_card(user, block_id, grade, today=None):
    """Record how a card was recalled (again / good / easy) and schedule its next review."""
    card = get_block(user, block_id)
    if card.kind != "card":
        raise Invalid("NOTEBOOK_NOT_A_CARD")
    if grade not in GRADES:
        raise Invalid("NOTEBOOK_GRADE_INVALID")
    card.interval_days, card.ease, card.streak = next_review(card.interval_days, card.ease, card.streak, grade)
    card.due_on = (today or today_for(user)) + timedelta(days=card.interval_days)
    db.session.commit()
    announce(user, "notebook")
    return card


def next_review(interval_days, ease, streak, grade):
    """SM-2, simplified to three answers: (the next interval in days, the new ease in hundredths,
    the new streak of recalled reviews).

    "again" starts the card over (due tomorrow) and makes it harder; "good" waits 1 day, then 6,
    then the last interval times the ease; "easy" makes the card easier and waits longer still.
    """
    if grade == "again":
        return 1, max(EASE_MIN, ease - 20), 0
    if grade == "easy":
        ease += 15
    streak += 1
    if streak == 1:
        interval = 1
    elif streak == 2:
        interval = 6
    else:
        interval = max(interval_days + 1, round(interval_days * ease / 100))
    if grade == "easy":
        interval = max(interval + 1, round(interval * 1.3))
    return interval, ease, streak


# Order ---------------------------------------------------------------------------------------


def _step(rows, row, direction):
    """Swap `row` with its neighbour in `direction` among `rows` (renumbered 0…n-1 first)."""
    if direction not in STEPS:
        raise Invalid("NOTEBOOK_DIRECTION_INVALID")
    ordered = sorted(rows, key=lambda other: (other.position, other.created_at))
    index = ordered.index(row)
    target = index + STEPS[direction]
    if 0 <= target < len(ordered):
        ordered[index], ordered[target] = ordered[target], ordered[index]
    for position, other in enumerate(ordered):
        other.position = position


def _renumber(rows):
    for position, row in enumerate(sorted(rows, key=lambda other: (other.position, other.created_at))):
        row.position = position


def _count_blocks(user, page_ids):
    if not page_ids:
        return 0
    return db.session.scalar(
        db.select(db.func.count()).where(PageBlock.user_id == user.id, PageBlock.page_id.in_(page_ids))
    )
