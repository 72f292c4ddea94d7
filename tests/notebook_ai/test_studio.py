"""The studio over the wire fake: a summary, a study guide and a quiz made from the page's passages
only (GROUNDED), every citation real, nothing stored when nothing supports it; outputs listed
newest first, read, answered (a quiz) and deleted, on the page and through the service alike."""

import re

import pytest

from app.extensions import db
from app.notebook.ai import studio
from app.notebook.ai.models.studio import StudioOutput
from app.notebook.models.sources import NotebookSource
from app.profile.models import User
from app.shared.errors import DomainError, Invalid, NotFound
from tests.conftest import make_user
from tests.notebook_ai.conftest import NOTE, AgentClient, Reply, a_page, body_of, says

SUMMARY = {
    "supported": True,
    "title": "The cell's machinery",
    "text": "Mitochondria make ATP [1]. Ribosomes build proteins [3][9], behind a lipid membrane [4, 12].",
}
GUIDE = {
    "supported": True,
    "title": "Cell parts",
    "sections": [
        {
            "heading": "Organelles [2]",
            "points": ["The nucleus holds DNA [2].", "Golgi ships proteins.", "Made up [7]."],
        },
        {"heading": "Invented", "points": ["Lysosomes digest [8]."]},
    ],
    "terms": [
        {"term": "Ribosome", "definition": "Builds proteins from amino acids [3]."},
        {"term": "Centriole", "definition": "Organises the spindle."},
    ],
}
QUIZ = {
    "supported": True,
    "title": "Cells check",
    "questions": [
        {"question": "What makes ATP?", "choices": ["Ribosomes", "Mitochondria", "Nucleus"], "answer": 1,
         "explanation": "Mitochondria make most of the cell's ATP [1]."},
        {"question": "Where is DNA?", "choices": ["Nucleus", "Membrane"], "answer": 0,
         "explanation": "The nucleus holds it [2]."},
        {"question": "Unsupported?", "choices": ["A", "B"], "answer": 0, "explanation": "Because [9]."},
        {"question": "Broken index", "choices": ["A", "B"], "answer": 5, "explanation": "See [1]."},
    ],
}  # fmt: skip


@pytest.fixture
def ana(in_app):
    return in_app


def test_a_summary_is_written_from_the_page_s_passages_only_and_stored_with_the_ones_it_cites(ana, fake):
    page = a_page(ana)
    a_page(ana, title="Rome", note="Caesar crossed the Rubicon.", source="The Senate met in the Curia.")
    fake.script("mistral", says(SUMMARY))
    output = studio.generate(ana, page.id, "summary")
    (request,) = fake.requests("mistral")
    body = body_of(request)
    assert "Mode: GROUNDED" in body and "Use only what the passages say" in body
    assert "Mode: TUTOR" not in body and "Mode: SUPPORTED" not in body
    assert "[1] (Notes)\\n" + NOTE in body and "[4] (Cell biology, passage 3)" in body and "[5]" not in body
    assert "Write a summary of the passages" in body and "never fill it from your own knowledge" in body
    assert "Rubicon" not in body and "Senate" not in body  # another page's material is not this page's
    assert request.streamed is False and "tools" not in request.body
    assert output.kind == "summary" and output.title == "The cell's machinery"
    # The invented [9] and [12] are gone before anything is stored; [3, …] became [3].
    kept = "Mitochondria make ATP [1]. Ribosomes build proteins [3], behind a lipid membrane [4]."
    assert output.content == {"text": kept}
    assert [(p["number"], p["kind"], p["label"]) for p in output.passages] == [
        (1, "note", "Notes"), (3, "source", "Cell biology"), (4, "source", "Cell biology"),
    ]  # fmt: skip
    assert output.passages[1]["text"].startswith("Ribosomes read messenger RNA") and output.passages[1]["position"] == 2


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param({"supported": False}, id="the-model-says-so"),
        pytest.param({"supported": True, "title": "Made up", "text": "Cells sing [9]."}, id="cites-nothing-real"),
        pytest.param({"supported": True, "title": "Uncited", "text": "Cells are small."}, id="cites-nothing"),
    ],
)
def test_a_summary_nothing_supports_is_not_produced_and_nothing_is_stored(ana, fake, answer):
    page = a_page(ana)
    fake.script("mistral", says(answer))
    with pytest.raises(Invalid) as refused:
        studio.generate(ana, page.id, "summary")
    assert refused.value.key == "STUDY_AI_SUMMARY_UNSUPPORTED"
    assert "No summary was made" in refused.value.message
    assert db.session.scalars(db.select(StudioOutput)).all() == []


def test_a_study_guide_keeps_only_the_points_and_terms_a_real_passage_supports(ana, fake):
    page = a_page(ana)
    fake.script("mistral", says(GUIDE))
    guide = studio.generate(ana, page.id, "guide")
    assert guide.content == {
        "sections": [{"heading": "Organelles", "points": ["The nucleus holds DNA [2]."]}],
        "terms": [{"term": "Ribosome", "definition": "Builds proteins from amino acids [3]."}],
    }
    assert [p["number"] for p in guide.passages] == [2, 3]
    assert "up to 6 sections" in body_of(fake.requests("mistral")[0])


def test_a_quiz_keeps_the_questions_a_passage_explains_and_marks_the_answers_given(ana, fake):
    page = a_page(ana)
    fake.script("mistral", says(QUIZ))
    quiz = studio.generate(ana, page.id, "quiz")
    assert [q["question"] for q in quiz.content["questions"]] == ["What makes ATP?", "Where is DNA?"]
    assert quiz.content["questions"][0]["answer"] == 1
    marks = studio.check_quiz(ana, quiz.id, {0: "1", 1: "1"})
    assert marks == [{"chosen": 1, "answer": 1, "right": True}, {"chosen": 1, "answer": 0, "right": False}]
    assert studio.check_quiz(ana, quiz.id, {0: "7"})[0]["chosen"] is None  # a choice that isn't there


def test_a_focus_retrieves_its_passages_and_is_kept_with_the_output(ana, fake):
    page = a_page(ana)
    fake.script("mistral", says({**SUMMARY, "text": "The membrane is a lipid bilayer [2]."}))
    output = studio.generate(ana, page.id, "summary", focus="  lipid   bilayer ")
    body = body_of(fake.requests("mistral")[0])
    assert "Centre it on what the passages say about: lipid bilayer" in body and "Question:" not in body
    assert "[2] (Cell biology, passage 3)\\nThe cell membrane is a lipid bilayer" in body  # retrieved first
    assert output.focus == "lipid bilayer" and output.passages[0]["position"] == 3


def test_a_page_with_nothing_to_read_is_refused_before_any_model_is_asked(ana, fake):
    page = a_page(ana, note=None, source=None)
    with pytest.raises(Invalid) as refused:
        studio.generate(ana, page.id, "quiz")
    assert refused.value.key == "NOTEBOOK_NOTHING_TO_STUDY" and fake.requests() == []


@pytest.mark.parametrize(
    ("kind", "focus", "key"),
    [("poem", None, "STUDY_AI_OUTPUT_KIND_INVALID"), ("summary", "x" * 201, "INVALID_INPUT")],
)
def test_a_bad_request_is_refused_before_any_model_is_asked(ana, fake, kind, focus, key):
    with pytest.raises(Invalid) as refused:
        studio.generate(ana, a_page(ana).id, kind, focus)
    assert refused.value.key == key and fake.requests() == []


def test_outputs_are_listed_newest_first_and_deleted(ana, fake):
    page = a_page(ana)
    fake.script("mistral", says(SUMMARY), says(QUIZ))
    summary = studio.generate(ana, page.id, "summary")
    quiz = studio.generate(ana, page.id, "quiz")
    assert [output.kind for output in studio.outputs(ana, page.id)] == ["quiz", "summary"]
    studio.delete_output(ana, quiz.id)
    assert studio.outputs(ana, page.id) == [summary]


def test_a_page_keeps_at_most_its_limit_of_outputs(ana, fake, monkeypatch):
    monkeypatch.setattr(studio, "OUTPUTS_PER_PAGE", 1)
    page = a_page(ana)
    fake.script("mistral", says(SUMMARY))
    studio.generate(ana, page.id, "summary")
    with pytest.raises(Invalid) as refused:
        studio.generate(ana, page.id, "summary")
    assert refused.value.key == "STUDY_AI_OUTPUTS_FULL" and len(fake.requests()) == 1


def test_another_user_s_output_is_unknown(ana, fake, agent_app):
    fake.script("mistral", says(SUMMARY))
    output = studio.generate(ana, a_page(ana).id, "summary")
    bruno = db.session.get(User, make_user(agent_app, email="bruno@example.com", name="Bruno"))
    checked = lambda user, output_id: studio.check_quiz(user, output_id, {})  # noqa: E731
    for act in (studio.get_output, studio.delete_output, checked):
        with pytest.raises(NotFound) as refused:
            act(bruno, output.id)
        assert refused.value.key == "STUDY_AI_OUTPUT_NOT_FOUND"
    with pytest.raises(DomainError):
        studio.outputs(bruno, output.page_id)
    assert studio.get_output(ana, output.id) == output


# On the page ------------------------------------------------------------------------------------


def studio_client(app, page_id):
    client = AgentClient(app)
    client.page = f"/notebook/pages/{page_id}"
    return client


def page_of(agent_app, ana_user):
    with agent_app.test_request_context():
        user = db.session.get(User, ana_user)
        page_id = a_page(user).id
        db.session.remove()
    return page_id


def test_the_page_makes_a_summary_shows_it_open_with_its_citations_and_a_toast(agent_app, fake):
    page_id = page_of(agent_app, make_user(agent_app))
    ana = studio_client(agent_app, page_id)
    empty = ana.http.get(ana.page).get_data(as_text=True)
    assert 'data-testid="studio"' in empty and 'data-testid="studio-no-outputs"' in empty
    fake.script("mistral", says(SUMMARY))
    made = ana.post(f"{ana.page}/studio/outputs", kind="summary", focus="")
    assert made.status_code == 200 and "studio:outputs" in made.headers["HX-Trigger"]
    assert "Summary ready: \\u201cThe cell's machinery\\u201d." in made.headers["HX-Trigger"]
    listed = ana.http.get(f"{ana.page}/studio/outputs", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert listed.count('data-testid="studio-output"') == 1
    assert "open" in listed.split('data-testid="studio-output"')[1][:80]  # the newest is shown unfolded
    output_id = re.search(r'id="output-([0-9a-f-]{36})"', listed).group(1)
    # Each citation links to its passage, listed under the output with what it said.
    assert f'href="#output-{output_id}-3"' in listed and f'id="output-{output_id}-3"' in listed
    assert "[3] Cell biology, passage 2" in listed and "Ribosomes read messenger RNA" in listed
    assert "[9]" not in listed and "[12]" not in listed
    alone = ana.http.get(f"/notebook/studio/outputs/{output_id}")
    assert alone.status_code == 200 and "The cell&#39;s machinery" in alone.get_data(as_text=True)


def test_a_refusal_keeps_the_typed_focus_and_leaves_the_outputs_alone(agent_app, fake):
    page_id = page_of(agent_app, make_user(agent_app))
    ana = studio_client(agent_app, page_id)
    fake.script("mistral", says({"supported": False}))
    refused = ana.post(f"{ana.page}/studio/outputs", kind="guide", focus="photosynthesis")
    html = refused.get_data(as_text=True)
    assert refused.status_code == 422 and 'data-testid="studio-refusal"' in html
    assert "No study guide was made" in html and 'value="photosynthesis"' in html
    assert "HX-Trigger" not in refused.headers  # nothing changed: no list refreshes
    with agent_app.app_context():
        assert db.session.scalars(db.select(StudioOutput)).all() == []


def test_a_failed_chain_is_said_in_the_form_and_stores_nothing(agent_app, fake):
    page_id = page_of(agent_app, make_user(agent_app))
    ana = studio_client(agent_app, page_id)
    fake.script("mistral", Reply.fails(500))
    fake.script("gemini", Reply.fails(503))
    failed = ana.post(f"{ana.page}/studio/outputs", kind="quiz", focus="ribosomes")
    html = failed.get_data(as_text=True)
    assert failed.status_code == 503 and "couldn&#39;t reach any AI model" in html and 'value="ribosomes"' in html
    with agent_app.app_context():
        assert db.session.scalars(db.select(StudioOutput)).all() == []


def test_an_answer_that_cannot_be_used_is_said_in_the_form_and_stores_nothing(agent_app, fake):
    page_id = page_of(agent_app, make_user(agent_app))
    ana = studio_client(agent_app, page_id)
    fake.script("mistral", Reply.says("Here is your quiz!"), Reply.says("Here it is again!"))
    failed = ana.post(f"{ana.page}/studio/outputs", kind="quiz", focus="ribosomes")
    html = failed.get_data(as_text=True)
    assert failed.status_code == 502 and "answer could not be used" in html and 'value="ribosomes"' in html
    assert "couldn&#39;t reach" not in html
    with agent_app.app_context():
        assert db.session.scalars(db.select(StudioOutput)).all() == []


def test_an_empty_bucket_is_refused_on_the_page_with_the_time_it_refills(make_agent_app, fake):
    app = make_agent_app(STUDY_AI_RATE_LIMIT="1 per hour")
    page_id = page_of(app, make_user(app))
    ana = studio_client(app, page_id)
    fake.script("mistral", says(SUMMARY), says(SUMMARY))
    assert ana.post(f"{ana.page}/studio/outputs", kind="summary").status_code == 200
    throttled = ana.post(f"{ana.page}/studio/outputs", kind="summary", focus="ribosomes")
    html = throttled.get_data(as_text=True)
    assert throttled.status_code == 429 and "You can ask again at" in html and 'value="ribosomes"' in html
    assert len(fake.requests("mistral")) == 1


def test_a_quiz_is_answered_on_the_page(agent_app, fake):
    page_id = page_of(agent_app, make_user(agent_app))
    ana = studio_client(agent_app, page_id)
    fake.script("mistral", says(QUIZ))
    ana.post(f"{ana.page}/studio/outputs", kind="quiz")
    listed = ana.http.get(f"{ana.page}/studio/outputs", headers={"HX-Request": "true"}).get_data(as_text=True)
    quiz_id = re.search(r'id="quiz-([0-9a-f-]{36})"', listed).group(1)
    assert listed.count('data-testid="studio-question"') == 2 and "Show the answer" in listed
    checked = ana.post(f"/notebook/studio/outputs/{quiz_id}/check", q0="1", q1="1").get_data(as_text=True)
    assert "1 of 2 right." in checked and checked.count("is-right") == 1 and checked.count("is-wrong") == 1
    assert "The answer: Nucleus" in checked and "Try again" in checked
    plain = ana.http.post(f"/notebook/studio/outputs/{quiz_id}/check", data={"q0": "1", "csrf_token": ana.csrf})
    assert plain.status_code == 200 and "1 of 2 right." in plain.get_data(as_text=True)  # a page of its own


def test_deleting_an_output_asks_first_then_refreshes_the_list(agent_app, fake):
    page_id = page_of(agent_app, make_user(agent_app))
    ana = studio_client(agent_app, page_id)
    fake.script("mistral", says(SUMMARY))
    ana.post(f"{ana.page}/studio/outputs", kind="summary")
    with agent_app.app_context():
        output_id = db.session.scalar(db.select(StudioOutput.id))
    asked = ana.http.get(f"/notebook/studio/outputs/{output_id}/delete", headers={"HX-Request": "true"})
    assert "will be deleted for good" in asked.get_data(as_text=True)
    gone = ana.post(f"/notebook/studio/outputs/{output_id}/delete")
    assert gone.status_code == 204 and "studio:outputs" in gone.headers["HX-Trigger"]
    with agent_app.app_context():
        assert db.session.scalars(db.select(StudioOutput)).all() == []


def test_another_user_s_output_is_not_found_on_the_page(agent_app, fake):
    page_id = page_of(agent_app, make_user(agent_app))
    ana = studio_client(agent_app, page_id)
    fake.script("mistral", says(SUMMARY))
    ana.post(f"{ana.page}/studio/outputs", kind="summary")
    with agent_app.app_context():
        output_id = db.session.scalar(db.select(StudioOutput.id))
    make_user(agent_app, email="bruno@example.com", name="Bruno")
    bruno = AgentClient(agent_app, email="bruno@example.com")
    assert bruno.http.get(f"/notebook/studio/outputs/{output_id}").status_code == 404
    assert bruno.post(f"/notebook/studio/outputs/{output_id}/delete").status_code == 404
    assert bruno.post(f"/notebook/pages/{page_id}/studio/outputs", kind="summary").status_code == 404


def test_a_citation_in_code_stays_code_and_each_real_one_is_a_chip_naming_its_passage(agent_app, fake):
    page_id = page_of(agent_app, make_user(agent_app))
    ana = studio_client(agent_app, page_id)
    fake.script("mistral", says({**SUMMARY, "text": "Ribosomes build proteins [3]. In code: `cells[3]`."}))
    ana.post(f"{ana.page}/studio/outputs", kind="summary")
    listed = ana.http.get(f"{ana.page}/studio/outputs", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert listed.count('data-testid="studio-cite"') == 1 and "<code>cells[3]</code>" in listed
    assert 'aria-label="Passage 3: Cell biology, passage 2"' in listed


def test_without_javascript_a_summary_opens_on_its_own_page(agent_app, fake):
    page_id = page_of(agent_app, make_user(agent_app))
    ana = studio_client(agent_app, page_id)
    fake.script("mistral", says(SUMMARY))
    made = ana.http.post(f"{ana.page}/studio/outputs", data={"kind": "summary", "csrf_token": ana.csrf})
    assert made.status_code == 302 and "/notebook/studio/outputs/" in made.headers["Location"]
    alone = ana.http.get(made.headers["Location"]).get_data(as_text=True)
    assert "Summary ready" in alone and 'data-testid="studio-summary"' in alone
    refused = ana.http.post(f"{ana.page}/studio/outputs", data={"kind": "poem", "csrf_token": ana.csrf})
    assert refused.status_code == 302
    assert "Choose a summary, a study guide or a quiz." in ana.http.get(f"{ana.page}").get_data(as_text=True)


def test_a_cited_passage_links_to_where_it_is_now_until_it_is_deleted(agent_app, fake):
    page_id = page_of(agent_app, make_user(agent_app))
    ana = studio_client(agent_app, page_id)
    fake.script("mistral", says(SUMMARY))
    ana.post(f"{ana.page}/studio/outputs", kind="summary")
    listed = ana.http.get(f"{ana.page}/studio/outputs", headers={"HX-Request": "true"}).get_data(as_text=True)
    links = re.findall(r'href="([^"]+)" data-testid="studio-passage-link"', listed)
    assert links[0].startswith(f"{ana.page}#block-") and links[1].endswith("/passage?at=2#passage-2")
    assert ana.http.get(links[1].replace("&amp;", "&")).status_code == 200  # the passage in its source
    with agent_app.app_context():
        source_id = db.session.scalar(db.select(NotebookSource.id))
    ana.post(f"/notebook/sources/{source_id}/delete")
    listed = ana.http.get(f"{ana.page}/studio/outputs", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert listed.count('data-testid="studio-passage-link"') == 1 and "No longer on this page." in listed
    assert "Ribosomes read messenger RNA" in listed  # what it said is still readable


@pytest.mark.parametrize(("kind", "answer"), [("summary", SUMMARY), ("guide", GUIDE), ("quiz", QUIZ)])
def test_each_output_is_made_over_the_gemini_protocol_too(make_agent_app, fake, kind, answer):
    app = make_agent_app(order="gemini")
    user_id = make_user(app)
    with app.test_request_context():
        ana = db.session.get(User, user_id)
        fake.script("gemini", says(answer))
        output = studio.generate(ana, a_page(ana).id, kind)
        (request,) = fake.requests("gemini")
        schema = request.body["generationConfig"]["responseSchema"]
        assert "Mode: GROUNDED" in body_of(request) and set(schema["properties"]) == set(answer)
        assert output.kind == kind and output.passages
        db.session.remove()


def test_a_server_without_any_model_says_so_and_offers_nothing_to_make(make_agent_app, fake):
    app = make_agent_app(LLM_ENV={})
    page_id = page_of(app, make_user(app))
    html = studio_client(app, page_id).http.get(f"/notebook/pages/{page_id}").get_data(as_text=True)
    assert 'data-testid="studio-off"' in html and "isn&#39;t configured on this server" in html
    assert 'data-testid="studio-generate"' not in html and 'data-testid="studio-cards-form"' not in html
    assert 'data-testid="studio-no-outputs"' in html  # what was made before stays readable
