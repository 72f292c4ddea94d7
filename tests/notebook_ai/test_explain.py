""" "Explain this" over the wire fake (OpenAI-compatible and Gemini): a SUPPORTED prompt carries the
page's passages (not the note being explained as one of them); the explanation's citations link
to their passages and an invented one is dropped; a refusal changes nothing and says why; another
student's note or concept is unknown and no model is asked."""

import re

import pytest

from app.extensions import db
from app.notebook import boards
from app.notebook import services as notebook
from app.notebook.models.pages import PageBlock
from app.profile.models import User
from tests.conftest import make_user
from tests.notebook_ai.conftest import NOTE, AgentClient, Reply, a_page, body_of, says

PROTOCOLS = [pytest.param("mistral", id="openai-compatible"), pytest.param("gemini", id="gemini")]
SECOND_NOTE = "Cells split the work between organelles."


class Student(AgentClient):
    """Ana, signed in, on her page "Cells": two notes, a source, a card and a concept on the board."""

    def __init__(self, app, email="ana@example.com"):
        super().__init__(app, email)
        with app.test_request_context():
            user = db.session.scalar(db.select(User).where(User.email == email))
            page = a_page(user)
            self.page_id = str(page.id)
            self.second_note_id = str(notebook.add_note(user, page.id, SECOND_NOTE).id)
            self.note_id = str(next(block.id for block in page.blocks if block.text == NOTE))
            self.card_id = str(notebook.add_card(user, page.id, "What makes ATP?", "Mitochondria").id)
            self.node_id = str(boards.add_node(user, page.id, "Ribosomes", "Protein factories.").id)
            db.session.remove()

    def explain_note(self, block_id=None):
        return self.post(f"/notebook/blocks/{block_id or self.note_id}/explain")

    def explain_concept(self, node_id=None):
        return self.post(f"/notebook/board/nodes/{node_id or self.node_id}/explain")

    def blocks(self):
        with self.app.app_context():
            texts = [block.text for block in db.session.scalars(db.select(PageBlock).order_by(PageBlock.position))]
            db.session.remove()
        return texts


def citations(html):
    """The citation links of an explanation: (number, where it leads)."""
    return re.findall(r'<a class="citation" href="([^"]+)"[^>]*>(\d+)</a>', html)


@pytest.mark.parametrize("provider", PROTOCOLS)
def test_explaining_a_note_reads_the_pages_passages_and_links_the_ones_it_cites(make_agent_app, fake, provider):
    app = make_agent_app(order=provider)
    make_user(app)
    ana = Student(app)
    fake.script(provider, says({"explanation": "Organelles divide the labour [1]. Ribosomes build proteins [2]."}))
    response = ana.explain_note()
    html = response.get_data(as_text=True)
    assert response.status_code == 200, html
    (request,) = fake.requests(provider)
    body = body_of(request)
    assert "Mode: SUPPORTED" in body and "Numbered passages" in body
    assert f"[1] (Notes)\\n{SECOND_NOTE}" in body  # the page's other note, numbered first
    assert "[2] (Cell biology" in body  # then the source
    assert NOTE in body and f"(Notes)\\n{NOTE}" not in body  # the note is the task, not a passage
    slot = f"explain-block-{ana.note_id}"
    assert citations(html) == [(f"#{slot}-passage-1", "1"), (f"#{slot}-passage-2", "2")]
    assert f'id="{slot}-passage-1"' in html and f'id="{slot}-passage-2"' in html  # each quoted under it
    assert f'href="#block-{ana.second_note_id}"' in html and SECOND_NOTE in html  # the note, on the page
    source = re.search(
        r'<a href="(/notebook/sources/[0-9a-f-]+/passage\?at=(\d)#passage-\2)"[^>]*>Cell biology, passage \2<', html
    )
    assert source, "the source passage links to its place in the source"
    assert ana.http.get(source.group(1)).status_code == 200  # where the tutor's citations lead
    assert "Explanation of “Mitochondria make most" in html


def test_an_invented_citation_is_dropped_before_the_student_sees_it(agent_app, fake):
    make_user(agent_app)
    ana = Student(agent_app)
    fake.script("mistral", says({"explanation": "Ribosomes build proteins [2][9]. Cells are old [7]."}))
    html = ana.explain_note().get_data(as_text=True)
    assert [number for _link, number in citations(html)] == ["2"]
    assert "[9]" not in html and "[7]" not in html and "Cells are old." in html
    assert html.count('data-testid="explanation-passage"') == 1


def test_explaining_a_concept_of_the_board_cites_the_page_and_names_the_concept(agent_app, fake):
    make_user(agent_app)
    ana = Student(agent_app)
    fake.script("mistral", says({"explanation": "Ribosomes read RNA [3]."}))
    response = ana.explain_concept()
    html = response.get_data(as_text=True)
    assert response.status_code == 200, html
    body = body_of(fake.requests("mistral")[0])
    assert 'Explain the concept \\"Ribosomes\\"' in body and "Protein factories." in body
    assert "Mode: SUPPORTED" in body and f"(Notes)\\n{NOTE}" in body  # every note of the page is a passage
    assert "Explanation of “Ribosomes”" in html and [number for _link, number in citations(html)] == ["3"]


def test_an_uncited_explanation_says_it_comes_from_the_ais_own_knowledge(agent_app, fake):
    make_user(agent_app)
    ana = Student(agent_app)
    fake.script("mistral", says({"explanation": "Ribosomes are **tiny** machines."}))
    html = ana.explain_concept().get_data(as_text=True)
    assert "<strong>tiny</strong>" in html and citations(html) == []
    assert "nothing on this page says the same" in html


def test_an_empty_bucket_refuses_with_the_hour_and_changes_nothing(make_agent_app, fake):
    app = make_agent_app(order="mistral", STUDY_AI_RATE_LIMIT="1 per hour")
    make_user(app)
    ana = Student(app)
    before = ana.blocks()
    fake.script("mistral", says({"explanation": "Once."}))
    assert ana.explain_note().status_code == 200
    response = ana.explain_concept()
    html = response.get_data(as_text=True)
    assert response.status_code == 429 and 'data-key="STUDY_AI_RATE_LIMITED"' in html and 'role="alert"' in html
    assert re.search(r"You can ask again at \d\d:\d\d UTC", html)
    assert len(fake.requests("mistral")) == 1 and ana.blocks() == before


def test_no_model_answering_is_said_and_changes_nothing(make_agent_app, fake):
    app = make_agent_app(order="mistral,gemini")
    make_user(app)
    ana = Student(app)
    before = ana.blocks()
    fake.script("mistral", Reply.fails(500))
    fake.script("gemini", Reply.fails(503))
    response = ana.explain_note()
    html = response.get_data(as_text=True)
    assert response.status_code == 503 and 'data-key="STUDY_AI_UNAVAILABLE"' in html
    assert "couldn&#39;t reach any AI model" in html and ana.blocks() == before


def test_only_notes_are_explained(agent_app, fake):
    make_user(agent_app)
    ana = Student(agent_app)
    response = ana.explain_note(ana.card_id)
    assert response.status_code == 422 and 'data-key="NOTEBOOK_EXPLAIN_NOTES_ONLY"' in response.get_data(as_text=True)
    assert fake.requests() == []


def test_another_students_note_or_concept_is_unknown_and_no_model_is_asked(agent_app, fake):
    make_user(agent_app)
    make_user(agent_app, email="bia@example.com", name="Bia")
    ana = Student(agent_app)
    bia = AgentClient(agent_app, email="bia@example.com")
    assert bia.post(f"/notebook/blocks/{ana.note_id}/explain").status_code == 404
    assert bia.post(f"/notebook/board/nodes/{ana.node_id}/explain").status_code == 404
    assert fake.requests() == []


def test_without_javascript_the_page_is_drawn_again_with_the_explanation_under_its_note(agent_app, fake):
    make_user(agent_app)
    ana = Student(agent_app)
    fake.script("mistral", says({"explanation": "Respiration happens in mitochondria [1]."}))
    response = ana.http.post(f"/notebook/blocks/{ana.note_id}/explain", data={"csrf_token": ana.csrf})
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "<h1>Cells</h1>" in html
    slot = re.search(rf'id="explain-block-{ana.note_id}" aria-live="polite"[^>]*>(.*?)</details>', html, re.DOTALL)
    assert slot and "Respiration happens in mitochondria" in slot.group(1)


def test_a_concept_on_a_page_with_nothing_to_read_is_refused_before_any_model_is_asked(agent_app, fake):
    make_user(agent_app)
    ana = AgentClient(agent_app)
    with agent_app.test_request_context():
        user = db.session.scalar(db.select(User).where(User.email == "ana@example.com"))
        node_id = boards.add_node(user, a_page(user, note=None, source=None).id, "Osmosis").id
        db.session.remove()
    response = ana.post(f"/notebook/board/nodes/{node_id}/explain")
    html = response.get_data(as_text=True)
    assert response.status_code == 422 and 'data-key="NOTEBOOK_NOTHING_TO_STUDY"' in html
    assert "Write a note or add a source" in html and fake.requests() == []


def test_the_only_note_of_a_page_is_explained_from_the_ais_own_knowledge(agent_app, fake):
    make_user(agent_app)
    ana = AgentClient(agent_app)
    with agent_app.test_request_context():
        user = db.session.scalar(db.select(User).where(User.email == "ana@example.com"))
        note_id = a_page(user, source=None).blocks[0].id
        db.session.remove()
    fake.script("mistral", says({"explanation": "ATP is the cell's energy currency [1]."}))
    html = ana.post(f"/notebook/blocks/{note_id}/explain").get_data(as_text=True)
    body = body_of(fake.requests("mistral")[0])
    assert "No passage of the page fits" in body and "[1] (Notes)" not in body  # it cannot agree with itself
    assert "energy currency.</p>" in html and citations(html) == []  # the invented [1] dropped
