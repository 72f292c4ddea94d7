"""The notebook's services: topics and pages in order, what a delete takes along, blocks checked,
ordered and edited, and nothing half-saved when a block is refused."""

from datetime import date

import pytest

from app.extensions import db
from app.notebook import services as notebook
from app.notebook.models.pages import DIAGRAM_MAX, NOTE_MAX, NotebookPage, PageBlock
from app.shared.errors import Invalid, NotFound


def a_page(user, title="Cells", topic_name="Biology", parent=None):
    topic = next((topic for topic in notebook.topics(user) if topic.name == topic_name), None)
    topic = topic or notebook.create_topic(user, topic_name)
    return notebook.create_page(user, topic.id, title, parent.id if parent else None)


def texts(user, page):
    return [block.text for block in notebook.blocks(user, page.id)]


def test_topics_move_up_and_down_and_stay_put_at_either_end(ana):
    biology, history, maths = (notebook.create_topic(ana, name) for name in ("Biology", "History", "Maths"))
    notebook.move_topic(ana, maths.id, "up")
    notebook.move_topic(ana, biology.id, "up")
    assert [topic.name for topic in notebook.topics(ana)] == ["Biology", "Maths", "History"]
    notebook.move_topic(ana, history.id, "down")
    assert [topic.name for topic in notebook.topics(ana)] == ["Biology", "Maths", "History"]


def test_renaming_a_topic_squeezes_spaces_and_refuses_an_empty_name(ana):
    topic = notebook.create_topic(ana, "Biology")
    assert notebook.rename_topic(ana, topic.id, "  Human   biology ").name == "Human biology"
    with pytest.raises(Invalid) as refusal:
        notebook.rename_topic(ana, topic.id, "   ")
    assert refusal.value.details == {"name": "NOTEBOOK_TOPIC_NAME_REQUIRED"}
    assert notebook.get_topic(ana, topic.id).name == "Human biology"


def test_deleting_a_topic_says_first_what_it_takes_then_takes_its_pages_and_blocks(ana):
    cells = a_page(ana, "Cells")
    a_page(ana, "Membranes", parent=cells)
    notebook.add_note(ana, cells.id, "Cells are small.")
    notebook.add_card(ana, cells.id, "Smallest unit of life?", "The cell")
    keep = a_page(ana, "Rome", topic_name="History")
    assert notebook.what_topic_takes(ana, cells.topic_id) == {"pages": 2, "blocks": 2}
    notebook.delete_topic(ana, cells.topic_id)
    assert [topic.name for topic in notebook.topics(ana)] == ["History"]
    assert db.session.scalars(db.select(NotebookPage.title)).all() == ["Rome"]
    assert db.session.scalar(db.select(db.func.count()).select_from(PageBlock)) == 0
    assert notebook.topics(ana)[0].position == 0 and keep.position == 0


def test_pages_read_as_a_tree_and_titles_may_repeat_across_topics(ana):
    cells = a_page(ana, "Cells")
    a_page(ana, "Membranes", parent=cells)
    a_page(ana, "Genetics")
    a_page(ana, "Cells", topic_name="History")
    biology = notebook.topics(ana)[0]
    assert [(page.title, depth) for page, depth in notebook.page_tree(biology)] == [
        ("Cells", 0), ("Membranes", 1), ("Genetics", 0),
    ]  # fmt: skip
    with pytest.raises(Invalid) as refusal:
        notebook.resolve_page(ana, "Cells")
    assert refusal.value.key == "NOTEBOOK_PAGE_AMBIGUOUS" and "History" in refusal.value.message


def test_a_page_moves_only_among_the_pages_beside_it(ana):
    cells = a_page(ana, "Cells")
    inner_a = a_page(ana, "Membranes", parent=cells)
    inner_b = a_page(ana, "Organelles", parent=cells)
    genetics = a_page(ana, "Genetics")
    notebook.move_page(ana, inner_b.id, "up")
    notebook.move_page(ana, genetics.id, "up")
    biology = notebook.topics(ana)[0]
    db.session.refresh(biology)
    assert [page.title for page, _ in notebook.page_tree(biology)] == ["Genetics", "Cells", "Organelles", "Membranes"]
    assert inner_a.position == 1


def test_deleting_a_page_takes_the_pages_inside_it_at_any_depth_and_their_blocks(ana):
    cells = a_page(ana, "Cells")
    membranes = a_page(ana, "Membranes", parent=cells)
    lipids = a_page(ana, "Lipids", parent=membranes)
    notebook.add_note(ana, lipids.id, "Fat.")
    a_page(ana, "Genetics")
    assert notebook.what_page_takes(ana, cells.id) == {"pages": 2, "blocks": 1}
    notebook.delete_page(ana, cells.id)
    assert db.session.scalars(db.select(NotebookPage.title)).all() == ["Genetics"]
    assert db.session.scalar(db.select(db.func.count()).select_from(PageBlock)) == 0
    assert notebook.resolve_page(ana, "Genetics").position == 0


def test_blocks_are_added_at_the_end_in_order(ana):
    page = a_page(ana)
    notebook.add_note(ana, page.id, "  # Cells\n\nThe unit of life.  ")
    notebook.add_diagram(ana, page.id, "\nflowchart TD\n  A --> B\n")
    card = notebook.add_card(ana, page.id, "Unit of life?", "The cell")
    assert texts(ana, page) == ["# Cells\n\nThe unit of life.", "flowchart TD\n  A --> B", "Unit of life?"]
    assert [block.kind for block in notebook.blocks(ana, page.id)] == ["note", "diagram", "card"]
    assert card.back == "The cell" and card.due_on is not None


def test_blocks_move_up_and_down_and_the_ends_stay(ana):
    page = a_page(ana)
    first, second, third = (notebook.add_note(ana, page.id, text) for text in ("one", "two", "three"))
    notebook.move_block(ana, third.id, "up")
    assert texts(ana, page) == ["one", "three", "two"]
    notebook.move_block(ana, first.id, "up")
    notebook.move_block(ana, second.id, "down")
    assert texts(ana, page) == ["one", "three", "two"]
    notebook.move_block(ana, first.id, "down")
    assert texts(ana, page) == ["three", "one", "two"]
    assert [block.position for block in notebook.blocks(ana, page.id)] == [0, 1, 2]


def test_a_block_moved_in_a_direction_that_is_not_up_or_down_is_refused(ana):
    page = a_page(ana)
    block = notebook.add_note(ana, page.id, "one")
    with pytest.raises(Invalid) as refusal:
        notebook.move_block(ana, block.id, "sideways")
    assert refusal.value.key == "NOTEBOOK_DIRECTION_INVALID"


def test_deleting_a_block_closes_the_gap(ana):
    page = a_page(ana)
    _, middle, _ = (notebook.add_note(ana, page.id, text) for text in ("one", "two", "three"))
    notebook.delete_block(ana, middle.id)
    assert texts(ana, page) == ["one", "three"]
    assert [block.position for block in notebook.blocks(ana, page.id)] == [0, 1]


@pytest.mark.parametrize(
    ("text", "key"),
    [("   ", "NOTEBOOK_NOTE_REQUIRED"), ("x" * (NOTE_MAX + 1), "NOTEBOOK_NOTE_TOO_LONG")],
)
def test_an_empty_or_oversize_note_is_refused_and_nothing_is_saved(ana, text, key):
    page = a_page(ana)
    with pytest.raises(Invalid) as refusal:
        notebook.add_note(ana, page.id, text)
    assert refusal.value.details == {"text": key}
    assert texts(ana, page) == []


@pytest.mark.parametrize(
    ("source", "key"),
    [
        ("", "NOTEBOOK_DIAGRAM_REQUIRED"),
        ("graph TD\n" + "A-->B\n" * DIAGRAM_MAX, "NOTEBOOK_DIAGRAM_TOO_LONG"),
        ("A --> B", "NOTEBOOK_DIAGRAM_TYPE_UNKNOWN"),
        ("%% only a comment", "NOTEBOOK_DIAGRAM_TYPE_UNKNOWN"),
        ("flowchat TD\n A --> B", "NOTEBOOK_DIAGRAM_TYPE_UNKNOWN"),
    ],
)
def test_diagram_source_mermaid_cannot_start_is_refused_and_nothing_is_saved(ana, source, key):
    page = a_page(ana)
    with pytest.raises(Invalid) as refusal:
        notebook.add_diagram(ana, page.id, source)
    assert refusal.value.details == {"text": key}
    assert texts(ana, page) == []


@pytest.mark.parametrize(
    "source",
    [
        "sequenceDiagram\n  Ana->>Bruno: Hi",
        "%% the cycle\nflowchart LR; A-->B",
        "---\ntitle: Cells\n---\ngraph TD\n  A-->B",
        "mindmap\n  root((Cells))",
        "stateDiagram-v2\n  [*] --> Still",
    ],
)
def test_diagram_source_starting_with_a_known_type_is_kept_as_typed(ana, source):
    page = a_page(ana)
    assert notebook.add_diagram(ana, page.id, source).text == source


def test_a_card_needs_both_sides(ana):
    page = a_page(ana)
    with pytest.raises(Invalid) as refusal:
        notebook.add_card(ana, page.id, "Unit of life?", " ")
    assert refusal.value.details == {"back": "NOTEBOOK_CARD_SIDE_REQUIRED"}
    assert texts(ana, page) == []


def test_editing_a_block_checks_it_like_a_new_one_and_keeps_the_old_text_on_refusal(ana):
    page = a_page(ana)
    diagram = notebook.add_diagram(ana, page.id, "graph TD\n A-->B")
    card = notebook.add_card(ana, page.id, "Front", "Back")
    with pytest.raises(Invalid):
        notebook.edit_block(ana, diagram.id, "A-->B")
    db.session.rollback()
    assert notebook.get_block(ana, diagram.id).text == "graph TD\n A-->B"
    notebook.edit_block(ana, diagram.id, "graph LR\n A-->C")
    notebook.edit_block(ana, card.id, "New front")
    assert texts(ana, page) == ["graph LR\n A-->C", "New front"]
    assert notebook.get_block(ana, card.id).back == "Back"


def test_another_user_s_page_and_block_are_not_found(ana, bruno):
    page = a_page(bruno)
    block = notebook.add_note(bruno, page.id, "Bruno's")
    with pytest.raises(NotFound):
        notebook.add_note(ana, page.id, "Taken over")
    with pytest.raises(NotFound) as refusal:
        notebook.edit_block(ana, block.id, "Taken over")
    assert refusal.value.key == "NOTEBOOK_BLOCK_NOT_FOUND"
    assert notebook.get_block(bruno, block.id).text == "Bruno's"


def test_each_write_announces_the_notebook(ana, monkeypatch):
    heard = []
    monkeypatch.setattr(notebook, "announce", lambda user, domain: heard.append(domain))
    page = a_page(ana)
    block = notebook.add_note(ana, page.id, "one")
    notebook.move_block(ana, block.id, "down")
    notebook.edit_block(ana, block.id, "two")
    notebook.delete_block(ana, block.id)
    assert heard == ["notebook"] * 6


def test_the_export_writes_every_block_with_a_card_s_schedule(ana):
    page = a_page(ana)
    notebook.add_note(ana, page.id, "one")
    card = notebook.add_card(ana, page.id, "Q", "A")
    notebook.review_card(ana, card.id, "good", today=date(2026, 3, 1))
    from app.notebook.export import export_notebook_blocks

    note, exported = export_notebook_blocks(ana)
    assert note == {"id": note["id"], "pageId": str(page.id), "kind": "note", "text": "one"}
    assert exported["back"] == "A" and exported["dueOn"] == "2026-03-02" and exported["intervalDays"] == 1
