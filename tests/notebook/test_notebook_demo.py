"""The demo account's notebook: two topics, a page inside a page, notes, a diagram and cards due."""

from app.notebook import services as notebook


def test_the_demo_notebook_has_two_topics_nested_pages_notes_a_diagram_and_cards_due(demo_account):
    topics = notebook.topics(demo_account)
    assert [topic.name for topic in topics] == ["Biology", "Spanish"]
    assert [(page.title, depth) for page, depth in notebook.page_tree(topics[0])] == [
        ("Cells", 0), ("Membranes", 1), ("Photosynthesis", 0),
    ]  # fmt: skip
    kinds = [block.kind for topic in topics for page in topic.pages for block in page.blocks]
    assert kinds.count("diagram") == 1 and kinds.count("note") == 4 and kinds.count("card") == 5
    due = notebook.due_cards(demo_account)
    assert len(due) == 4 and "What does photosynthesis make?" not in [card.text for card in due]
