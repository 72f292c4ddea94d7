"""The demo account's notebook: two topics, a page inside a page, notes, a diagram and cards due."""

from app.extensions import db
from app.notebook import services as notebook
from app.profile.models import User
from tests.conftest import standalone_app


def test_the_demo_notebook_has_two_topics_nested_pages_notes_a_diagram_and_cards_due():
    app = standalone_app()
    assert app.test_cli_runner().invoke(args=["seed-demo"]).exit_code == 0
    with app.app_context():
        demo = db.session.scalar(db.select(User).where(User.email == app.config["DEMO_EMAIL"]))
        topics = notebook.topics(demo)
        assert [topic.name for topic in topics] == ["Biology", "Spanish"]
        assert [(page.title, depth) for page, depth in notebook.page_tree(topics[0])] == [
            ("Cells", 0), ("Membranes", 1), ("Photosynthesis", 0),
        ]  # fmt: skip
        kinds = [block.kind for topic in topics for page in topic.pages for block in page.blocks]
        assert kinds.count("diagram") == 1 and kinds.count("note") == 4 and kinds.count("card") == 5
        due = notebook.due_cards(demo)
        assert len(due) == 4 and "What does photosynthesis make?" not in [card.text for card in due]
