"""The notebook AI's core over the wire fake (OpenAI-compatible and Gemini): what each mode's
prompt carries, the code's numbering and the citations it keeps, the refusals that come before
any model is asked, the study bucket and a failed chain."""

import pytest
from pydantic import BaseModel

from app.extensions import db
from app.notebook import services as notebook
from app.notebook.ai.services import (
    Mode,
    Passage,
    StudyAIAnswerUnusable,
    StudyAINotConfigured,
    StudyAIUnavailable,
    ask,
    citations_in,
    cited,
    passages_for,
)
from app.profile.models import User
from app.shared.errors import Invalid, Throttled
from tests.conftest import make_user
from tests.notebook_ai.conftest import NOTE, Reply, a_page, body_of, says


class Answer(BaseModel):
    answer: str


PROTOCOLS = [pytest.param("mistral", id="openai-compatible"), pytest.param("gemini", id="gemini")]


@pytest.fixture
def on(make_agent_app, request):
    """`on(provider, **config)`: Ana's account in an app whose chain is that one fake provider."""
    contexts = []

    def enter(provider, **config):
        app = make_agent_app(order=provider, **config)
        user_id = make_user(app)
        context = app.test_request_context()
        context.push()
        contexts.append(context)
        return db.session.get(User, user_id)

    yield enter
    for context in reversed(contexts):
        db.session.remove()
        context.pop()


# What each mode's prompt carries ---------------------------------------------------------------


@pytest.mark.parametrize("provider", PROTOCOLS)
def test_the_tutor_reads_the_notes_then_the_passages_retrieved_for_the_question(on, fake, provider):
    ana = on(provider)
    page = a_page(ana)
    fake.script(provider, says({"answer": "Ribosomes build proteins [2]."}))
    answer = ask(ana, page, Mode.TUTOR, "Answer the student's question.", Answer, question="What do ribosomes build?")
    assert answer.answer == "Ribosomes build proteins [2]."
    (request,) = fake.requests(provider)
    body = body_of(request)
    assert "[1] (Notes)\\n" + NOTE in body
    assert "[2] (Cell biology, passage 2)\\nRibosomes read messenger RNA" in body  # the best passage, first
    assert "What do ribosomes build?" in body and "Mode: TUTOR" in body and "set `beyond_passages` to true" in body
    assert "tools" not in request.body and request.streamed is False


@pytest.mark.parametrize("provider", PROTOCOLS)
def test_planning_is_given_no_passage_even_when_the_page_has_notes_and_sources(on, fake, provider):
    ana = on(provider)
    page = a_page(ana)
    fake.script(provider, says({"answer": "1. The cell's parts."}))
    ask(ana, page, Mode.PLANNING, "Draft a roadmap.", Answer, question="ribosomes membrane")
    body = body_of(fake.requests(provider)[0])
    assert "Mode: PLANNING" in body and '\\"Cells\\" of their topic \\"Biology\\"' in body
    for text in ("Mitochondria", "Ribosomes read", "lipid bilayer", "nucleus holds", "[1]", "Cite"):
        assert text not in body


@pytest.mark.parametrize("provider", PROTOCOLS)
def test_grounded_reads_the_passages_and_only_them(on, fake, provider):
    ana = on(provider)
    page = a_page(ana)
    fake.script(provider, says({"answer": "- The nucleus holds DNA [2]."}))
    ask(ana, page, Mode.GROUNDED, "Summarise the page.", Answer)
    body = body_of(fake.requests(provider)[0])
    assert "Mode: GROUNDED" in body and "Use only what the passages say" in body
    assert "An item no passage\\n  supports is left out" in body
    # No question: the notes, then every passage of the sources in their order.
    assert all(f"[{n}] (" in body for n in (1, 2, 3, 4)) and "[5]" not in body
    assert body.index("nucleus holds") < body.index("Ribosomes read") < body.index("lipid bilayer")
    assert "own knowledge" not in body.replace("Your own knowledge may shape the wording", "")


@pytest.mark.parametrize("provider", PROTOCOLS)
def test_supported_explains_from_its_own_knowledge_citing_where_the_passages_agree(on, fake, provider):
    ana = on(provider)
    page = a_page(ana)
    fake.script(provider, says({"answer": "ATP is the cell's energy currency [1]."}))
    ask(ana, page, Mode.SUPPORTED, "Explain ATP.", Answer, question="ATP")
    body = body_of(fake.requests(provider)[0])
    assert "Mode: SUPPORTED" in body and "from your own knowledge" in body and "[1] (Notes)" in body


def test_the_answer_is_written_in_the_student_s_language(on, fake):
    ana = on("mistral")
    ana.language = "pt"
    db.session.commit()
    fake.script("mistral", says({"answer": "Ribossomos [2]."}))
    ask(ana, a_page(ana), Mode.TUTOR, "Answer.", Answer, question="ribosomes")
    assert "Write in Brazilian Portuguese" in body_of(fake.requests("mistral")[0])


def test_a_question_nothing_matches_still_reads_the_page_s_sources_in_order(on):
    ana = on("mistral")
    page = a_page(ana, note=None)
    passages = passages_for(ana, page, "photosynthesis chlorophyll")
    assert [(p.kind, p.label, p.position) for p in passages] == [("source", "Cell biology", n) for n in (1, 2, 3)]
    assert [p.number for p in passages] == [1, 2, 3]
    assert passages[0].source_id is not None and passages[0].passage_id is not None


def test_notes_come_first_and_are_trimmed_to_their_budget(on):
    ana = on("mistral")
    page = a_page(ana, note=None, source=None)
    for letter in "abcde":
        notebook.add_note(ana, page.id, letter * 2_500)
    notebook.add_diagram(ana, page.id, "flowchart TD\n  A --> B")
    passages = passages_for(ana, page)
    assert [p.kind for p in passages] == ["note"] * 4  # 2,000 characters each, 8,000 in all
    assert [p.text[0] for p in passages] == list("abcd") and {len(p.text) for p in passages} == {2_000}


def test_past_the_budget_the_notes_nearest_the_question_are_read_in_the_page_s_order(on):
    ana = on("mistral")
    page = a_page(ana, note=None, source=None)
    for topic in ("osmosis", "diffusion", "mitosis", "meiosis", "ribosomes", "chloroplasts"):
        notebook.add_note(ana, page.id, f"About {topic}: " + f"{topic} " * 300)
    passages = passages_for(ana, page, "How do chloroplasts and ribosomes work?")
    topics = [p.text.split(":")[0] for p in passages]
    assert topics == ["About osmosis", "About diffusion", "About ribosomes", "About chloroplasts"]


# Refusals before any model is asked ------------------------------------------------------------


@pytest.mark.parametrize("mode", [Mode.TUTOR, Mode.GROUNDED, Mode.SUPPORTED])
def test_a_page_with_nothing_to_read_is_refused_with_zero_provider_calls(on, fake, mode):
    ana = on("mistral", STUDY_AI_RATE_LIMIT="1 per hour")
    empty = a_page(ana, note=None, source=None)
    notebook.add_diagram(ana, empty.id, "flowchart TD\n  A --> B")  # a diagram or a card is not read
    notebook.add_card(ana, empty.id, "What is a cell?", "The unit of life.")
    with pytest.raises(Invalid) as refused:
        ask(ana, empty, mode, "Answer.", Answer, question="What is a cell?")
    assert refused.value.key == "NOTEBOOK_NOTHING_TO_STUDY" and "nothing to study" in refused.value.message
    assert fake.requests() == []
    fake.script("mistral", says({"answer": "Fine."}))  # and the hour's one call was not spent
    assert ask(ana, a_page(ana, title="Other"), mode, "Answer.", Answer, question="cell").answer == "Fine."


def test_supported_may_explain_with_no_passage_fitting_when_the_page_has_something_to_read(on, fake):
    ana = on("mistral")
    page = a_page(ana)
    with pytest.raises(Invalid):  # the tutor and grounded outputs never answer from nothing
        ask(ana, page, Mode.GROUNDED, "Summarise.", Answer, passages=[])
    fake.script("mistral", says({"answer": "Osmosis is water crossing a membrane."}))
    ask(ana, page, Mode.SUPPORTED, "Explain osmosis.", Answer, passages=[])
    body = body_of(fake.requests("mistral")[0])
    assert "No passage of the page fits this request" in body and "[1] (" not in body


def test_planning_needs_nothing_to_read(on, fake):
    ana = on("mistral")
    fake.script("mistral", says({"answer": "Start with the cell."}))
    assert ask(ana, a_page(ana, note=None, source=None), Mode.PLANNING, "Plan.", Answer).answer


@pytest.mark.parametrize("provider", PROTOCOLS)
def test_the_study_bucket_refuses_with_the_time_it_refills_and_asks_no_model(on, fake, provider):
    ana = on(provider, STUDY_AI_RATE_LIMIT="2 per hour")
    page = a_page(ana)
    fake.script(provider, says({"answer": "One [1]."}), says({"answer": "Two [1]."}), says({"answer": "Three."}))
    ask(ana, page, Mode.TUTOR, "Answer.", Answer, question="cell")
    ask(ana, page, Mode.PLANNING, "Plan.", Answer)
    with pytest.raises(Throttled) as refused:
        ask(ana, page, Mode.TUTOR, "Answer.", Answer, question="cell")
    assert refused.value.key == "STUDY_AI_RATE_LIMITED" and refused.value.status == 429
    assert refused.value.message.startswith("You've asked the notebook's AI a lot this hour. You can ask again at ")
    assert refused.value.message.endswith(" UTC.")
    assert len(fake.requests(provider)) == 2


def test_the_default_bucket_is_sixty_an_hour_apart_from_the_assistant_s(agent_app):
    assert agent_app.config["STUDY_AI_RATE_LIMIT"] == "60 per hour"
    assert agent_app.config["STUDY_AI_RATE_LIMIT"] != agent_app.config["AGENT_RATE_LIMIT"]


def test_a_failed_chain_is_a_clean_study_ai_unavailable(on, fake):
    ana = on("mistral,gemini")
    fake.script("mistral", Reply.fails(500))
    fake.script("gemini", Reply.fails(429))
    with pytest.raises(StudyAIUnavailable) as refused:
        ask(ana, a_page(ana), Mode.TUTOR, "Answer.", Answer, question="cell")
    assert refused.value.key == "STUDY_AI_UNAVAILABLE" and refused.value.status == 503
    assert len(fake.requests()) == 2


def test_an_outage_is_not_billed_to_the_study_bucket_but_answers_are(on, fake):
    """Links failing before any answer give the unit back; an answer, read or not, keeps it."""
    ana = on("mistral", STUDY_AI_RATE_LIMIT="2 per hour")
    page = a_page(ana)
    fake.script("mistral", Reply.fails(503), Reply.fails(429))
    for _ in range(2):
        with pytest.raises(StudyAIUnavailable):
            ask(ana, page, Mode.PLANNING, "Plan.", Answer)
    fake.script("mistral", says({"answer": "One."}), Reply.says("Not JSON."), Reply.says("Still not."))
    ask(ana, page, Mode.PLANNING, "Plan.", Answer)
    with pytest.raises(StudyAIAnswerUnusable):
        ask(ana, page, Mode.PLANNING, "Plan.", Answer)
    with pytest.raises(Throttled):
        ask(ana, page, Mode.PLANNING, "Plan.", Answer)
    assert len(fake.requests("mistral")) == 5


def test_a_server_without_any_key_says_so_and_asks_nothing(on, fake):
    ana = on("mistral", LLM_ENV={})
    with pytest.raises(StudyAINotConfigured) as refused:
        ask(ana, a_page(ana), Mode.TUTOR, "Answer.", Answer, question="cell")
    assert refused.value.key == "STUDY_AI_NOT_CONFIGURED" and fake.requests() == []


# Citations -------------------------------------------------------------------------------------


def five():
    return [Passage(n, f"passage {n}", "note", "Notes") for n in range(1, 6)]


def test_an_invented_citation_is_dropped_and_real_ones_are_kept():
    text = "Cells divide [1]. Mitochondria make energy [9]. Membranes [2][9] filter [10, 3]."
    assert cited(text, five()) == "Cells divide [1]. Mitochondria make energy. Membranes [2] filter [3]."


def test_citation_forms_are_normalised_to_one_bracket_per_passage():
    text = "A [1, 2]. B [3;4]. C [2-4]. D [5][5]. E [ 1 ]. F [0]."
    assert cited(text, five()) == "A [1][2]. B [3][4]. C [2][3][4]. D [5]. E [1]. F."


def test_code_links_and_other_brackets_are_left_as_they_are():
    text = "Use `cells[9]` and\n```\nx = [9, 1]\n```\n[a link](https://example.com) [see 9] [2](x) [4]"
    assert cited(text, five()) == text.replace("[4]", "[4]")  # nothing to drop: [4] is real
    assert cited("Fine [7].", five()) == "Fine."


def test_citations_in_lists_the_cited_passages_once_in_the_order_first_cited():
    passages = five()
    found = citations_in("B [3][1]. Again [3, 9]. `[2]` is code, [4](https://example.com) a link.", passages)
    assert [p.number for p in found] == [3, 1]


def test_a_passage_survives_being_stored_beside_an_answer():
    passage = Passage(2, "Ribosomes", "source", "Cell biology", None, None, 41, 2)
    assert Passage.from_dict(passage.as_dict()) == passage
