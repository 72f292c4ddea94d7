"""A request that waits on a model ends within the door's deadline (AI_REQUEST_SECONDS), whatever
the links do: a provider that keeps its stream alive with comments and never answers, or one that
trickles its JSON, holds neither the student nor a worker past it. The page says the AI took too
long (not that no model could be reached), keeps the typed question, stores nothing, and the
hour's bucket gets its unit back. Bounds are generous: these run on a loaded machine."""

import time

from app.llm.settings import Timeouts
from app.notebook.ai.models.tutor import TutorExchange
from tests.notebook_ai.conftest import Reply
from tests.notebook_ai.test_explain import Student as Explainer
from tests.notebook_ai.test_tutor import a_student, refusal_in, rows

DEADLINE = 1.5
# Link budgets far beyond the door's deadline, as in production (60 s first event, 120 s in all).
SLOW_LINKS = {"BEYOU_LLM_FIRST_EVENT_TIMEOUT": "60", "BEYOU_LLM_TOTAL_TIMEOUT": "120"}


def app_with_a_deadline(make_agent_app, fake):
    from tests.assistant.conftest import chain_env

    return make_agent_app(
        order="mistral,gemini",
        AI_REQUEST_SECONDS=DEADLINE,
        STUDY_AI_RATE_LIMIT="1 per hour",
        LLM_ENV={**chain_env(fake, "mistral,gemini"), **SLOW_LINKS},
    )


def test_a_model_that_never_answers_ends_the_tutor_s_request_at_the_door_s_deadline(make_agent_app, fake):
    app = app_with_a_deadline(make_agent_app, fake)
    student = a_student(app)
    fake.script("mistral", Reply(first_byte_delay=60))
    started = time.monotonic()
    response = student.ask("Will this be kept?")
    took = time.monotonic() - started
    html = response.get_data(as_text=True)
    assert DEADLINE <= took < DEADLINE + 4, took
    assert response.status_code == 503 and refusal_in(html) == "STUDY_AI_TOO_SLOW"
    assert "took more than 1.5 seconds" in html and "couldn&#39;t reach" not in html
    assert ">Will this be kept?</textarea>" in html and rows(app, TutorExchange) == []
    assert fake.requests("gemini") == [], "the deadline passed before a second link was worth starting"


def test_the_deadline_gives_the_hour_s_unit_back(make_agent_app, fake):
    app = app_with_a_deadline(make_agent_app, fake)
    student = a_student(app)
    fake.script("mistral", Reply(first_byte_delay=60))
    assert student.ask("First?").status_code == 503
    fake.script("mistral", Reply.says('{"answer": "Cells make proteins [1].", "beyond_passages": false}'))
    assert student.ask("Second?").status_code == 200


def test_a_json_answer_that_trickles_ends_explain_at_the_door_s_deadline(make_agent_app, fake):
    app = app_with_a_deadline(make_agent_app, fake)
    from tests.conftest import make_user

    make_user(app)
    ana = Explainer(app)
    fake.script("mistral", Reply(garbage_after=0, tail="trickle"))  # a document that never ends
    started = time.monotonic()
    response = ana.explain_note()
    took = time.monotonic() - started
    assert took < DEADLINE + 4, took
    assert response.status_code == 503 and "took more than 1.5 seconds" in response.get_data(as_text=True)


def test_at_production_values_the_door_s_deadline_ends_a_call_before_any_link_s_own_budget(app):
    """The door's deadline is what a waiting person meets: it must come before a link's first-event
    and total budgets (or those would answer first, after minutes), and before the 60 s a proxy
    in front of the app waits for an answer."""
    seconds = app.config["AI_REQUEST_SECONDS"]
    assert seconds == 30
    links = Timeouts()
    assert seconds < links.first_event < links.total
    assert seconds < 60
