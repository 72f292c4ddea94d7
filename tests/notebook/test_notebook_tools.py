"""The notebook's page tools: listStudyTopics reads the tree, addStudyNotes and addStudyDiagram
append to a page named by id or exact title (never a guess), showDiagram draws and saves nothing."""

from app.agent import registry
from app.assistant import tool_calls
from app.extensions import db
from app.notebook import services as notebook
from app.notebook.models.pages import PageBlock


def run(user, name, **arguments):
    return tool_calls.run(registry.ToolContext(user=user, chat=None, page="/notebook"), name, arguments)


def a_page(user, title="Cells", topic_name="Biology", parent=None):
    topic = next((topic for topic in notebook.topics(user) if topic.name == topic_name), None)
    topic = topic or notebook.create_topic(user, topic_name)
    return notebook.create_page(user, topic.id, title, parent.id if parent else None)


def blocks(user):
    return [
        (block.kind, block.text) for block in db.session.scalars(db.select(PageBlock).order_by(PageBlock.created_at))
    ]


def test_list_study_topics_reads_each_topic_s_page_tree(ana):
    cells = a_page(ana)
    a_page(ana, "Membranes", parent=cells)
    a_page(ana, "Rome", topic_name="History")
    outcome = run(ana, "listStudyTopics")
    biology, history = outcome.result["items"]
    assert biology["name"] == "Biology" and history["name"] == "History"
    assert [(page["title"], page["depth"], page["parentId"]) for page in biology["pages"]] == [
        ("Cells", 0, None), ("Membranes", 1, str(cells.id)),
    ]  # fmt: skip


def test_add_study_notes_appends_a_note_to_the_page_named_by_its_exact_title(ana):
    page = a_page(ana)
    outcome = run(ana, "addStudyNotes", page="Cells", text="# Mitosis\nOne cell becomes two.")
    assert outcome.error_key is None and outcome.domains == ("notebook",)
    assert outcome.result["pageId"] == str(page.id) and outcome.result["kind"] == "note"
    assert blocks(ana) == [("note", "# Mitosis\nOne cell becomes two.")]


def test_a_title_two_pages_share_is_refused_with_each_candidate_and_its_topic(ana):
    a_page(ana)
    other = a_page(ana, topic_name="History")
    outcome = run(ana, "addStudyNotes", page="Cells", text="Which one?")
    assert outcome.error_key == "NOTEBOOK_PAGE_AMBIGUOUS"
    assert "Cells (Biology" in outcome.result["message"] and "Cells (History" in outcome.result["message"]
    assert str(other.id) in outcome.result["message"]
    assert blocks(ana) == []
    assert run(ana, "addStudyNotes", page=str(other.id), text="This one").error_key is None


def test_a_title_that_matches_nothing_answers_with_the_topics(ana):
    a_page(ana)
    outcome = run(ana, "addStudyNotes", page="Mitosis", text="Lost")
    assert outcome.error_key == "NOTEBOOK_PAGE_NOT_FOUND_BY_TITLE" and "Biology" in outcome.result["message"]


def test_an_empty_or_oversize_note_is_refused_and_nothing_is_saved(ana):
    a_page(ana)
    assert run(ana, "addStudyNotes", page="Cells", text="  ").error_key == "INVALID_INPUT"
    outcome = run(ana, "addStudyNotes", page="Cells", text="x" * 20_001)
    assert outcome.error_key == "INVALID_INPUT" and outcome.result["details"]["text"].startswith("A note holds at most")
    assert blocks(ana) == []


def test_add_study_diagram_keeps_valid_source_and_refuses_an_unknown_type(ana):
    a_page(ana)
    refused = run(ana, "addStudyDiagram", page="Cells", source="A --> B")
    assert (
        refused.error_key == "INVALID_INPUT" and "Start the diagram with its type" in refused.result["details"]["text"]
    )
    assert blocks(ana) == []
    kept = run(ana, "addStudyDiagram", page="Cells", source="flowchart TD\n  A --> B")
    assert kept.error_key is None and kept.domains == ("notebook",)
    assert blocks(ana) == [("diagram", "flowchart TD\n  A --> B")]


def test_show_diagram_hands_the_source_back_to_draw_and_saves_nothing(ana):
    outcome = run(ana, "showDiagram", source="mindmap\n  root((Cells))")
    assert outcome.error_key is None and outcome.domains == ()
    assert outcome.result == {"shown": True, "diagram": "mindmap\n  root((Cells))"}
    assert blocks(ana) == []
    assert run(ana, "showDiagram", source="").error_key == "INVALID_INPUT"


def test_the_writes_link_to_the_notebook_and_show_diagram_is_a_read():
    for name in ("addStudyNotes", "addStudyDiagram"):
        tool = registry.REGISTRY[name]
        assert (tool.kind, tool.domain, tool.page) == ("write", "notebook", "/notebook")
    assert registry.REGISTRY["showDiagram"].kind == "read"
    assert "showDiagram" in registry.REGISTRY["addStudyDiagram"].description


def test_a_shown_diagram_is_drawn_inside_the_saved_answer(app_context):
    from flask import render_template_string

    from app.assistant.runner import Segments

    segments = Segments()
    segments.tool(tool_calls.ToolOutcome(registry.REGISTRY["showDiagram"], "showDiagram",
                                       {"shown": True, "diagram": "graph TD\n A-->B"}, None, ()))  # fmt: skip
    assert segments.items[0]["diagram"] == "graph TD\n A-->B"
    html = render_template_string(
        '{% from "assistant/_macros.html" import segments_html %}{{ segments_html(items, render) }}',
        items=segments.items,
        render=str,
    )
    assert "data-mermaid" in html and "graph TD\n A--&gt;B" in html
