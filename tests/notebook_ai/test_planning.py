"""The board's roadmap over the wire fake (OpenAI-compatible and Gemini): a PLANNING prompt carries
the page's title, topic and board and none of its notes or sources; the student's picks go on the
board through the board's services, with their connections, and a double submit adds nothing; a
refusal (empty bucket, no model) keeps the board and the draft; another student's page is unknown."""

import re

import pytest

from app.extensions import db
from app.notebook import boards
from app.notebook.ai import reading_aid
from app.notebook.ai.reading_aid import RoadmapAnswer, Suggestion
from app.notebook.models.board import BoardConnection, BoardNode
from app.profile.models import User
from tests.conftest import make_user
from tests.notebook_ai.conftest import NOTE, AgentClient, Reply, a_page, body_of, says

ROADMAP = {
    "concepts": [
        {"title": "Cell membrane", "description": "Already on the board.", "leads_to": []},
        {"title": "Organelles", "description": "The cell's working parts.", "leads_to": ["Mitochondria", "Nowhere"]},
        {"title": "Mitochondria", "description": "Where the cell makes ATP.", "leads_to": ["Cell membrane"]},
        {"title": "Protein synthesis", "description": "From RNA to protein.", "leads_to": []},
    ]
}
PROTOCOLS = [pytest.param("mistral", id="openai-compatible"), pytest.param("gemini", id="gemini")]


class Student(AgentClient):
    """Ana, signed in, on her page "Cells" (a note, a source, and "Cell membrane" on its board)."""

    def __init__(self, app, email="ana@example.com"):
        super().__init__(app, email)
        with app.test_request_context():
            user = db.session.scalar(db.select(User).where(User.email == email))
            self.page_id = str(a_page(user).id)
            boards.add_node(user, self.page_id, "Cell membrane", "The cell's border.")
            db.session.remove()

    def draft(self, **carried):
        return self.post(f"/notebook/pages/{self.page_id}/roadmap", **carried)

    def add(self, *picked, draft=ROADMAP["concepts"][1:], page_id=None):
        return self.http.post(
            f"/notebook/pages/{page_id or self.page_id}/roadmap/add",
            data={"csrf_token": self.csrf, "pick": [str(index) for index in picked], **carried(draft)},
            headers={"HX-Request": "true"},
        )

    def board(self):
        with self.app.app_context():
            nodes = db.session.scalars(db.select(BoardNode).order_by(BoardNode.position)).all()
            titles = [node.title for node in nodes]
            by_id = {node.id: node.title for node in nodes}
            links = sorted((by_id[link.from_node_id], by_id[link.to_node_id])
                           for link in db.session.scalars(db.select(BoardConnection)))  # fmt: skip
            db.session.remove()
        return titles, links


def carried(concepts):
    """The draft's hidden fields, as the panel's form sends them back."""
    fields = {}
    for index, concept in enumerate(concepts):
        fields[f"title-{index}"] = concept["title"]
        fields[f"description-{index}"] = concept.get("description") or ""
        fields[f"leads_to-{index}"] = concept.get("leads_to", [])
    return fields


def picked(html):
    return [int(index) for index in re.findall(r'id="roadmap-pick-(\d+)" checked', html)]


def suggested(html):
    return re.findall(r'<label for="roadmap-pick-\d+" class="roadmap-item-title">([^<]+)</label>', html)


@pytest.mark.parametrize("provider", PROTOCOLS)
def test_a_planning_prompt_carries_the_page_and_its_board_and_no_passage(make_agent_app, fake, provider):
    app = make_agent_app(order=provider)
    make_user(app)
    ana = Student(app)
    fake.script(provider, says(ROADMAP))
    response = ana.draft()
    html = response.get_data(as_text=True)
    assert response.status_code == 200, html
    (request,) = fake.requests(provider)
    body = body_of(request)
    assert "Mode: PLANNING" in body and "Cells" in body and "Biology" in body
    assert "Cell membrane" in body and "The cell's border." in body  # the board as it is
    assert "Mitochondria make most" not in body and NOTE[:30] not in body  # not the note
    assert "Ribosomes read messenger RNA" not in body and "Cell biology" not in body  # nor the source
    assert "[1]" not in body and "Numbered passages" not in body
    assert suggested(html) == ["Organelles", "Mitochondria", "Protein synthesis"]
    assert "already on your board: Cell membrane" in html
    assert picked(html) == [0, 1, 2]  # every concept picked to begin with


def test_picked_concepts_go_on_the_board_with_their_connections_and_a_second_submit_adds_nothing(agent_app):
    make_user(agent_app)
    ana = Student(agent_app)
    response = ana.add(0, 1)  # Organelles and Mitochondria; not Protein synthesis
    html = response.get_data(as_text=True)
    assert response.status_code == 200, html
    assert "2 concepts added to the board." in html and "2 connections drawn." in html
    assert "Protein synthesis" in suggested(html) and "Organelles" not in suggested(html)  # still to add
    assert "concepts added to the board" in response.headers["HX-Trigger"]  # a toast
    assert "domain:notebook" in response.headers["HX-Trigger"]  # the board refreshes
    expected = (
        ["Cell membrane", "Organelles", "Mitochondria"],
        [("Mitochondria", "Cell membrane"), ("Organelles", "Mitochondria")],
    )
    assert ana.board() == expected
    again = ana.add(0, 1).get_data(as_text=True)  # the same draft, submitted twice
    assert ana.board() == expected
    assert "Already on the board, so not added again: Organelles, Mitochondria." in again


def test_a_title_the_board_has_in_another_letter_case_is_not_added_again(agent_app):
    make_user(agent_app)
    ana = Student(agent_app)
    ana.add(0, draft=[{"title": "cell  MEMBRANE", "description": "Twice?"}])
    assert ana.board() == (["Cell membrane"], [])


def test_select_all_and_select_none_redraw_the_draft_as_it_was_carried(agent_app):
    make_user(agent_app)
    ana = Student(agent_app)
    form = {"choose": "none", **carried(ROADMAP["concepts"][1:])}
    html = ana.post(f"/notebook/pages/{ana.page_id}/roadmap/choose", **form).get_data(as_text=True)
    assert suggested(html) == ["Organelles", "Mitochondria", "Protein synthesis"] and picked(html) == []
    form["choose"] = "all"
    html = ana.post(f"/notebook/pages/{ana.page_id}/roadmap/choose", **form).get_data(as_text=True)
    assert picked(html) == [0, 1, 2]
    assert ana.board() == (["Cell membrane"], [])


def test_nothing_picked_is_refused_and_the_draft_stays(agent_app):
    make_user(agent_app)
    ana = Student(agent_app)
    response = ana.add()
    html = response.get_data(as_text=True)
    assert response.status_code == 422 and 'data-key="STUDY_AI_ROADMAP_NONE_PICKED"' in html
    assert "Pick at least one concept" in html and len(suggested(html)) == 3
    assert ana.board() == (["Cell membrane"], [])


def test_an_empty_bucket_refuses_with_the_hour_and_keeps_the_board_and_the_draft(make_agent_app, fake):
    app = make_agent_app(order="mistral", STUDY_AI_RATE_LIMIT="1 per hour")
    make_user(app)
    ana = Student(app)
    fake.script("mistral", says(ROADMAP))
    assert ana.draft().status_code == 200
    response = ana.draft(**carried(ROADMAP["concepts"][1:3]), pick=["1"])
    html = response.get_data(as_text=True)
    assert response.status_code == 429 and 'data-key="STUDY_AI_RATE_LIMITED"' in html
    assert re.search(r"You can ask again at \d\d:\d\d UTC", html) and "Try again" in html
    assert suggested(html) == ["Organelles", "Mitochondria"] and picked(html) == [1]  # as it was on screen
    assert len(fake.requests("mistral")) == 1  # the refusal asked no model
    assert ana.board() == (["Cell membrane"], [])


def test_no_model_answering_is_said_and_keeps_the_board_and_the_draft(make_agent_app, fake):
    app = make_agent_app(order="mistral,gemini")
    make_user(app)
    ana = Student(app)
    fake.script("mistral", Reply.fails(500))
    fake.script("gemini", Reply.fails(429))
    response = ana.draft(**carried(ROADMAP["concepts"][1:3]), pick=["0", "1"])
    html = response.get_data(as_text=True)
    assert response.status_code == 503 and 'data-key="STUDY_AI_UNAVAILABLE"' in html
    assert "couldn&#39;t reach any AI model" in html and "Try again" in html
    assert suggested(html) == ["Organelles", "Mitochondria"] and picked(html) == [0, 1]
    assert ana.board() == (["Cell membrane"], [])


def test_another_students_page_is_unknown_and_no_model_is_asked(agent_app, fake):
    make_user(agent_app)
    make_user(agent_app, email="bia@example.com", name="Bia")
    ana = Student(agent_app)
    bia = AgentClient(agent_app, email="bia@example.com")
    assert bia.post(f"/notebook/pages/{ana.page_id}/roadmap").status_code == 404
    form = {"pick": ["0"], **carried(ROADMAP["concepts"][1:])}
    assert bia.post(f"/notebook/pages/{ana.page_id}/roadmap/add", **form).status_code == 404
    assert fake.requests() == []
    assert ana.board() == (["Cell membrane"], [])


def test_a_draft_keeps_only_clean_new_concepts_and_connections_it_can_draw(in_app):
    page = a_page(in_app, note=None, source=None)
    boards.add_node(in_app, page.id, "Cell membrane")
    answer = RoadmapAnswer.model_validate(
        {
            "concepts": [
                {"title": "  Organelles \n", "leads_to": ["mitochondria", "Organelles", "Ghost"]},
                {"title": "ORGANELLES", "description": "A repeat."},
                {"title": "", "description": "No title."},
                {"title": None},
                {"title": "Mitochondria", "description": "x" * 900, "leads_to": ["cell membrane"]},
                *({"title": f"Extra {number}"} for number in range(20)),
            ]
        }
    )
    draft = reading_aid._roadmap(page, boards.board_of_page(in_app, page.id), answer)
    assert [suggestion.title for suggestion in draft.suggestions][:2] == ["Organelles", "Mitochondria"]
    assert len(draft.suggestions) == reading_aid.ROADMAP_MAX
    assert draft.suggestions[0] == Suggestion("Organelles", None, ("Mitochondria",))
    assert draft.suggestions[1].leads_to == ("Cell membrane",)
    assert len(draft.suggestions[1].description) == reading_aid.DESCRIPTION_SHORT


def test_without_javascript_the_study_page_is_drawn_again_with_the_draft_then_what_was_added(agent_app, fake):
    make_user(agent_app)
    ana = Student(agent_app)
    assert "Suggest concepts" in ana.http.get(f"/notebook/pages/{ana.page_id}").get_data(as_text=True)  # a board
    fake.script("mistral", says(ROADMAP))
    response = ana.http.post(f"/notebook/pages/{ana.page_id}/roadmap", data={"csrf_token": ana.csrf})
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "<h1>Cells</h1>" in html and 'id="board"' in html
    assert suggested(html) == ["Organelles", "Mitochondria", "Protein synthesis"]
    form = {"csrf_token": ana.csrf, "pick": ["2"], **carried(ROADMAP["concepts"][1:])}
    response = ana.http.post(f"/notebook/pages/{ana.page_id}/roadmap/add", data=form)
    html = response.get_data(as_text=True)
    assert response.status_code == 200 and "1 concept added to the board." in html
    assert ana.board() == (["Cell membrane", "Protein synthesis"], [])
    assert ana.http.post(f"/notebook/pages/{ana.page_id}/roadmap/add", data=form).status_code == 200  # reloaded
    assert ana.board() == (["Cell membrane", "Protein synthesis"], [])


def test_a_draft_with_nothing_new_says_so(agent_app, fake):
    make_user(agent_app)
    ana = Student(agent_app)
    fake.script("mistral", says({"concepts": [{"title": "CELL MEMBRANE"}, {"title": "  "}]}))
    html = ana.draft().get_data(as_text=True)
    assert suggested(html) == [] and 'data-testid="roadmap-nothing-new"' in html
    assert "already on your board: Cell membrane" in html and 'data-testid="add-suggestions"' not in html
