"""The tutor on a study page, over the wire fake: a question answered from the page's numbered
passages, kept on the page, its citations resolving to the passage (a note block on the page, a
source passage between its neighbours); every refusal keeps the question typed."""

import re
import uuid

import pytest

from app.extensions import db
from app.notebook import services as notebook
from app.notebook.ai import services as notebook_ai
from app.notebook.ai.models.tutor import TutorExchange
from app.notebook.models.pages import PageBlock
from app.notebook.models.sources import NotebookSource
from app.profile import configuration
from app.profile.models import User
from tests.conftest import make_user
from tests.notebook_ai.conftest import AgentClient, Reply, a_page, body_of, says

ANSWER = {
    "answer": "Ribosomes build proteins [2]. The cell's energy comes from **ATP** [1, 9]. A made-up claim [7].",
    "beyond_passages": False,
}


class Student(AgentClient):
    """Ana in a browser, on one of her study pages."""

    def __init__(self, app, page_id, email="ana@example.com"):
        super().__init__(app, email=email)
        self.page_id = page_id

    def ask(self, question, htmx=True):
        headers = {"X-CSRFToken": self.csrf, **({"HX-Request": "true"} if htmx else {})}
        return self.http.post(f"/notebook/pages/{self.page_id}/tutor", data={"question": question}, headers=headers)

    def page(self):
        return self.http.get(f"/notebook/pages/{self.page_id}").get_data(as_text=True)


def a_student(app, **page):
    """Ana, signed in, with a page holding a note and a three-passage source (or what `page` says)."""
    user_id = make_user(app)
    with app.app_context():
        page_id = a_page(db.session.get(User, user_id), **page).id
        db.session.remove()
    return Student(app, page_id)


def rows(app, model, **where):
    with app.app_context():
        found = db.session.scalars(db.select(model).filter_by(**where)).all()
        db.session.expunge_all()
        db.session.remove()
        return found


def refusal_in(html):
    match = re.search(r'data-testid="tutor-refusal" data-key="([A-Z_]+)"', html)
    return match.group(1) if match else None


# Answering --------------------------------------------------------------------------------------


def test_an_answer_cites_the_page_s_passages_and_stays_on_the_page_after_a_reload(agent_app, fake):
    student = a_student(agent_app)
    fake.script("mistral", says(ANSWER))
    response = student.ask("What do ribosomes build?")
    assert response.status_code == 200 and "domain:study_ai" in response.headers["HX-Trigger"]
    form = response.get_data(as_text=True)
    assert 'data-testid="tutor-ask"' in form and "What do ribosomes build?" not in form  # a fresh form
    assert 'role="status" data-testid="tutor-answered"' in form  # said to a screen reader
    assert len(fake.requests("mistral")) == 1

    html = student.page()  # the reload
    (note,) = rows(agent_app, PageBlock, kind="note")
    (source,) = rows(agent_app, NotebookSource)
    assert "What do ribosomes build?" in html and "<strong>ATP</strong>" in html
    chips = re.findall(r'<a class="tutor-cite" href="([^"]+)"[^>]*>(\d+)</a>', html)
    assert chips == [(f"/notebook/sources/{source.id}/passage?at=2#passage-2", "2"),
                     (f"/notebook/pages/{student.page_id}#block-{note.id}", "1")]  # fmt: skip
    assert f'id="block-{note.id}"' in html  # the note chip's target is on the page
    assert "[7]" not in html and "[9]" not in html and "made-up claim." in html
    (exchange,) = rows(agent_app, TutorExchange)
    assert [p["number"] for p in exchange.passages] == [2, 1]  # only what the answer cites is kept


def test_a_source_citation_shows_the_passage_highlighted_between_its_neighbours(agent_app, fake):
    student = a_student(agent_app)
    fake.script("mistral", says(ANSWER))
    student.ask("What do ribosomes build?")
    url = re.search(r'<a class="tutor-cite" href="(/notebook/sources/[^"#]+)', student.page()).group(1)
    page = student.http.get(url.replace("&amp;", "&"))
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and "Passage 2 of 3" in html
    cited = re.search(r'<section class="tutor-passage is-cited" id="passage-2".*?</section>', html, re.DOTALL).group()
    assert "Ribosomes read messenger RNA" in cited
    assert "The nucleus holds the cell" in html and "lipid bilayer" in html  # its neighbours, not highlighted
    assert f'href="/notebook/pages/{student.page_id}#tutor"' in html


def test_the_model_remembers_nothing_but_the_page_shows_the_whole_conversation(agent_app, fake):
    student = a_student(agent_app)
    fake.script("mistral", says(ANSWER), says({"answer": "The membrane is a lipid bilayer [3]."}))
    student.ask("What do ribosomes build?")
    student.ask("What is the membrane made of?")
    second = body_of(fake.requests("mistral")[1])
    assert "What is the membrane made of?" in second and "What do ribosomes build?" not in second
    html = student.page()
    assert html.count('data-testid="tutor-exchange"') == 2
    assert html.index("What do ribosomes build?") < html.index("What is the membrane made of?")


def test_the_answer_s_markdown_is_sanitised_like_the_chat_s(agent_app, fake):
    student = a_student(agent_app)
    fake.script("mistral", says({"answer": 'Hi <script>alert(1)</script><img src=x onerror="alert(2)"> [1]'}))
    student.ask("Anything?")
    html = student.page()
    assert "<script>alert(1)" not in html and "<img src=x" not in html and 'class="tutor-cite"' in html


def test_a_number_in_code_is_not_a_citation_chip(agent_app, fake):
    student = a_student(agent_app)
    fake.script("mistral", says({"answer": "Index it as `cells[1]`:\n\n```\nx = y[2]\n```\n\nSee [1]."}))
    student.ask("How do I index a list?")
    answer = re.search(r'data-testid="tutor-answer">(.*?)</div>', student.page(), re.DOTALL).group(1)
    assert answer.count('data-testid="tutor-cite"') == 1 and "<code>cells[1]</code>" in answer and "y[2]" in answer


def test_going_beyond_the_material_is_marked(agent_app, fake):
    student = a_student(agent_app)
    fake.script("mistral", says({"answer": "Your notes don't cover it; in general, yes.", "beyond_passages": True}))
    student.ask("Do plants have mitochondria?")
    assert 'data-testid="tutor-beyond"' in student.page()


def test_a_citation_to_a_note_deleted_since_is_shown_without_a_dead_link(agent_app, fake):
    student = a_student(agent_app)
    fake.script("mistral", says(ANSWER))
    student.ask("What do ribosomes build?")
    (note,) = rows(agent_app, PageBlock, kind="note")
    student.post(f"/notebook/blocks/{note.id}/delete")
    html = student.page()
    assert f"#block-{note.id}" not in html and 'class="tutor-cite tutor-cite-gone"' in html


def test_without_javascript_the_question_posts_and_the_page_reloads_at_the_answer(agent_app, fake):
    student = a_student(agent_app)
    fake.script("mistral", says(ANSWER))
    response = student.ask("What do ribosomes build?", htmx=False)
    assert response.status_code == 302
    assert response.headers["Location"].endswith(f"/notebook/pages/{student.page_id}#tutor-latest")
    assert 'id="tutor-latest"' in student.page()


def test_a_server_without_any_model_says_so_instead_of_offering_to_ask(make_agent_app, fake):
    student = a_student(make_agent_app(LLM_ENV={}))
    html = student.page()
    assert 'data-testid="tutor-off"' in html and "isn&#39;t configured on this server" in html
    assert 'data-testid="tutor-ask"' not in html


# Refusals keep the question ---------------------------------------------------------------------


def test_a_page_with_nothing_to_read_refuses_before_any_model_is_asked(agent_app, fake):
    student = a_student(agent_app, note=None, source=None)
    response = student.ask("What is a cell?")
    html = response.get_data(as_text=True)
    assert response.status_code == 422 and refusal_in(html) == "NOTEBOOK_NOTHING_TO_STUDY"
    assert ">What is a cell?</textarea>" in html and fake.requests() == []


def test_the_hour_s_questions_spent_keeps_the_question_and_says_when(make_agent_app, fake):
    student = a_student(make_agent_app(STUDY_AI_RATE_LIMIT="1 per hour"))
    fake.script("mistral", says(ANSWER), says(ANSWER))
    student.ask("First?")
    response = student.ask("Second question, kept?")
    html = response.get_data(as_text=True)
    assert response.status_code == 429 and refusal_in(html) == "STUDY_AI_RATE_LIMITED"
    assert re.search(r"You can ask again at \d\d:\d\d UTC", html) and ">Second question, kept?</textarea>" in html
    assert len(fake.requests("mistral")) == 1


def test_no_model_answering_keeps_the_question(agent_app, fake):
    student = a_student(agent_app)
    fake.script("mistral", Reply.fails(500))
    fake.script("gemini", Reply.fails(503))
    response = student.ask("Will this be kept?")
    html = response.get_data(as_text=True)
    assert response.status_code == 503 and refusal_in(html) == "STUDY_AI_UNAVAILABLE"
    assert ">Will this be kept?</textarea>" in html and rows(agent_app, TutorExchange) == []


def test_an_answer_that_cannot_be_used_says_so_and_keeps_the_question(agent_app, fake):
    student = a_student(agent_app)
    fake.script("mistral", Reply.says("The cell is small."), Reply.says('{"answer": 3}'))
    response = student.ask("Will this be kept?")
    html = response.get_data(as_text=True)
    assert response.status_code == 502 and refusal_in(html) == "STUDY_AI_ANSWER_UNUSABLE"
    assert "answer could not be used" in html and "couldn&#39;t reach" not in html
    assert ">Will this be kept?</textarea>" in html and rows(agent_app, TutorExchange) == []


def test_without_javascript_a_refusal_shows_the_page_with_the_question_kept(agent_app, fake):
    student = a_student(agent_app, note=None, source=None)
    response = student.ask("Typed without JS", htmx=False)
    html = response.get_data(as_text=True)
    assert response.status_code == 422 and "<h1>Cells</h1>" in html
    assert refusal_in(html) == "NOTEBOOK_NOTHING_TO_STUDY" and ">Typed without JS</textarea>" in html


@pytest.mark.parametrize(("question", "key"), [("   ", "STUDY_AI_TUTOR_QUESTION_REQUIRED"),
                                                ("x" * 2001, "STUDY_AI_TUTOR_QUESTION_TOO_LONG")])  # fmt: skip
def test_an_empty_or_overlong_question_is_refused_at_its_field(agent_app, fake, question, key):
    student = a_student(agent_app)
    response = student.ask(question)
    assert response.status_code == 422 and refusal_in(response.get_data(as_text=True)) == key
    assert fake.requests() == []


# Clearing, ownership, export --------------------------------------------------------------------


def test_clearing_the_conversation_keeps_the_notes_and_sources(agent_app, fake):
    student = a_student(agent_app)
    fake.script("mistral", says(ANSWER))
    student.ask("What do ribosomes build?")
    confirm = student.http.get(f"/notebook/pages/{student.page_id}/tutor/clear", headers={"HX-Request": "true"})
    assert "Clear this conversation?" in confirm.get_data(as_text=True)
    response = student.post(f"/notebook/pages/{student.page_id}/tutor/clear")
    assert response.status_code == 204 and "Conversation cleared." in response.headers["HX-Trigger"]
    html = student.page()
    assert 'data-testid="tutor-empty"' in html and "What do ribosomes build?" not in html
    assert len(rows(agent_app, PageBlock)) == 1 and len(rows(agent_app, NotebookSource)) == 1


def test_without_javascript_clearing_asks_first_then_reloads_the_page_with_a_notice(agent_app, fake):
    student = a_student(agent_app)
    fake.script("mistral", says(ANSWER))
    student.ask("What do ribosomes build?")
    confirm = student.http.get(f"/notebook/pages/{student.page_id}/tutor/clear").get_data(as_text=True)
    assert "<!doctype html>" in confirm and f'action="/notebook/pages/{student.page_id}/tutor/clear"' in confirm
    response = student.http.post(f"/notebook/pages/{student.page_id}/tutor/clear", data={"csrf_token": student.csrf})
    assert response.status_code == 302 and response.headers["Location"].endswith("#tutor")
    html = student.page()
    assert "Conversation cleared." in html and 'data-testid="tutor-empty"' in html


def test_another_student_s_page_and_source_are_unknown(agent_app, fake):
    student = a_student(agent_app)
    (source,) = rows(agent_app, NotebookSource)
    make_user(agent_app, email="bruno@example.com", name="Bruno")
    bruno = Student(agent_app, student.page_id, email="bruno@example.com")
    assert bruno.ask("Whose page?").status_code == 404
    assert bruno.http.get(f"/notebook/sources/{source.id}/passage?at=1").status_code == 404
    assert bruno.http.get(f"/notebook/pages/{student.page_id}/tutor", headers={"HX-Request": "true"}).status_code == 404
    assert student.http.get(f"/notebook/sources/{source.id}/passage?at=9").status_code == 404
    assert student.http.get(f"/notebook/sources/{uuid.uuid4()}/passage?at=1").status_code == 404
    assert fake.requests() == []


def test_the_conversation_is_in_the_export_and_goes_with_its_page(agent_app, fake):
    student = a_student(agent_app)
    fake.script("mistral", says(ANSWER))
    student.ask("What do ribosomes build?")
    with agent_app.app_context():
        ana = db.session.scalar(db.select(User))
        (exported,) = configuration.export(ana)["study_tutor"]
        assert exported["question"] == "What do ribosomes build?" and [c["number"] for c in exported["cited"]] == [2, 1]
        notebook.delete_page(ana, student.page_id)
        db.session.remove()
    assert rows(agent_app, TutorExchange) == []


def test_the_tutor_speaks_portuguese(agent_app, fake):
    user_id = make_user(agent_app, language="pt")
    with agent_app.app_context():
        page_id = a_page(db.session.get(User, user_id)).id
        db.session.remove()
    html = Student(agent_app, page_id).page()
    assert "Pergunte ao tutor" in html and "Sua pergunta" in html


def test_the_demo_account_s_cells_page_gives_the_tutor_notes_and_a_source_to_read(demo_account):
    cells = notebook.resolve_page(demo_account, "Cells")
    passages = notebook_ai.passages_for(demo_account, cells, "What does the membrane do?")
    assert passages[0].kind == "note" and "smallest unit of life" in passages[0].text
    assert {p.label for p in passages if p.kind == "source"} == {"Chapter 3: The cell"}
