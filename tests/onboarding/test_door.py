"""The onboarding door over the wire fake: one structured call per step, its own bucket and
label, a clean AI_UNAVAILABLE (no model answered) or ONBOARDING_ANSWER_UNUSABLE (one did, unreadably)
with a way forward, and accepted suggestions written through the
ordinary services without ever duplicating a row."""

import json
import re
import time

from prometheus_client import REGISTRY

from app.categories import services as categories
from app.categories.models import Category
from app.extensions import db
from app.habits.models import Habit
from app.onboarding.models import OnboardingRun
from app.profile.models import User
from app.routines.models.routines import Routine, ScheduleDay
from app.tasks.models import Task
from tests.assistant.conftest import chain_env
from tests.onboarding.conftest import Reply, Wizard, a_wizard, says

CATEGORIES = {"categories": [{"name": "Health", "icon": "heart"}, {"name": "Work", "icon": "briefcase"}]}


def door_calls(outcome):
    return REGISTRY.get_sample_value("beyou_llm_door_calls_total", {"door": "onboarding", "outcome": outcome}) or 0


def rows(app, model):
    with app.app_context():
        found = sorted(db.session.scalars(db.select(model.name)))
        db.session.remove()
        return found


def step_of(html):
    return re.search(r'data-step="([A-Z]+)"', html).group(1)


def test_a_step_is_one_structured_call_whose_suggestions_are_shown(agent_app, fake):
    wizard = a_wizard(agent_app)
    fake.script("mistral", says(CATEGORIES))
    before = door_calls("ok")
    page = wizard.suggest("categories", "my health and my work")
    html = page.get_data(as_text=True)
    assert page.status_code == 200 and html.count('data-testid="suggestion"') == 2
    (request,) = fake.requests("mistral")
    body = json.dumps(request.body, ensure_ascii=False)
    assert request.streamed is False and "my health and my work" in body and "tools" not in request.body
    assert door_calls("ok") == before + 1
    assert rows(agent_app, Category) == []  # nothing is written before the person keeps it


def test_a_malformed_answer_gets_one_retry_with_a_json_only_warning(agent_app, fake):
    wizard = a_wizard(agent_app)
    fake.script("mistral", Reply.says("Sure! Health and Work."), says(CATEGORIES))
    html = wizard.suggest("categories", "my body, my job").get_data(as_text=True)
    assert html.count('data-testid="suggestion"') == 2
    first, second = fake.requests("mistral")
    warning = "Your previous answer was not valid JSON"
    assert warning in json.dumps(second.body) and warning not in json.dumps(first.body)


def test_no_model_answering_is_ai_unavailable_with_a_retry_and_the_manual_path(agent_app, fake):
    wizard = a_wizard(agent_app)
    fake.script("mistral", Reply.fails(500))
    fake.script("gemini", Reply.fails(429))
    page = wizard.suggest("categories", "my body, my job")
    html = page.get_data(as_text=True)
    assert page.status_code == 503 and 'data-key="AI_UNAVAILABLE"' in html
    assert "couldn&#39;t reach any AI model" in html and "Try again" in html
    assert 'href="/categories"' in html and 'href="/habits"' in html  # the ordinary pages, so no one is stuck
    assert "my body, my job" in html  # the words typed are kept


def test_providers_nothing_listens_for_are_still_ai_unavailable(make_agent_app, fake):
    nowhere = {"BEYOU_LLM_MISTRAL_BASE_URL": "http://127.0.0.1:9/v1", "BEYOU_LLM_GEMINI_BASE_URL": "http://127.0.0.1:9"}
    wizard = a_wizard(make_agent_app(LLM_ENV={**chain_env(fake), **nowhere}))
    page = wizard.suggest("categories", "my body, my job")
    html = page.get_data(as_text=True)
    assert page.status_code == 503 and 'data-key="AI_UNAVAILABLE"' in html
    assert "couldn&#39;t reach any AI model" in html and "my body, my job" in html


def test_without_a_model_the_wizard_says_it_is_not_set_up_and_offers_the_pages(make_agent_app, fake):
    """No retry can fix a server with no model: the wizard does not ask for words it cannot read,
    says why, and leads to the pages; a suggestion asked for anyway is refused in the same words."""
    wizard = a_wizard(make_agent_app(LLM_ENV={}))
    page = wizard.http.get("/onboarding").get_data(as_text=True)
    assert 'data-testid="onboarding-no-model"' in page and "none is set up on this server" in page
    assert 'data-testid="onboarding-suggest"' not in page and "Try again" not in page
    assert 'href="/habits"' in page and 'href="/routines"' in page
    refused = wizard.suggest("categories", "my body, my job")
    assert refused.status_code == 503 and "none is set up on this server" in refused.get_data(as_text=True)
    assert "couldn&#39;t reach" not in refused.get_data(as_text=True) and fake.requests() == []


def test_a_model_that_never_answers_ends_the_step_at_the_door_s_deadline(make_agent_app, fake):
    """A wizard's request waits on its model for AI_REQUEST_SECONDS at most, however long the
    links' own budgets are, and says the assistant took too long (not that none was reached)."""
    slow_links = {"BEYOU_LLM_FIRST_EVENT_TIMEOUT": "60", "BEYOU_LLM_TOTAL_TIMEOUT": "120"}
    wizard = a_wizard(make_agent_app(AI_REQUEST_SECONDS=1.5, LLM_ENV={**chain_env(fake), **slow_links}))
    fake.script("mistral", Reply(first_byte_delay=60))
    started = time.monotonic()
    page = wizard.suggest("categories", "my body, my job")
    took = time.monotonic() - started
    html = page.get_data(as_text=True)
    assert took < 1.5 + 4, took
    assert page.status_code == 503 and 'data-key="ONBOARDING_AI_TOO_SLOW"' in html
    assert "took more than 1.5 seconds" in html and "couldn&#39;t reach" not in html
    assert "my body, my job" in html and 'href="/habits"' in html


def test_an_answer_that_cannot_be_used_says_so_not_that_no_model_was_reached(agent_app, fake):
    wizard = a_wizard(agent_app)
    fake.script("mistral", Reply.says("nope"), Reply.says('{"categories": "Health"}'))
    before = door_calls("ai_answer_unusable")
    page = wizard.suggest("categories", "my body, my job")
    html = page.get_data(as_text=True)
    assert page.status_code == 502 and 'data-key="ONBOARDING_ANSWER_UNUSABLE"' in html
    assert "answer could not be used" in html and "couldn&#39;t reach" not in html and "Try again" in html
    assert 'href="/categories"' in html and "my body, my job" in html
    assert door_calls("ai_answer_unusable") == before + 1
    assert fake.requests("gemini") == []  # the repair asked the first link again, which answered


def test_an_empty_bucket_refuses_before_any_model_is_asked(make_agent_app, fake):
    app = make_agent_app(ONBOARDING_RATE_LIMIT="1 per hour")
    wizard = a_wizard(app)
    fake.script("mistral", says(CATEGORIES), says(CATEGORIES))
    wizard.suggest("categories", "my body")
    page = wizard.suggest("categories", "my body")
    assert page.status_code == 429 and 'data-key="ONBOARDING_RATE_LIMITED"' in page.get_data(as_text=True)
    assert len(fake.requests("mistral")) == 1


def test_an_outage_is_not_billed_to_the_bucket_but_an_answer_is(make_agent_app, fake):
    """Every link failing before an answer gives the unit back: two outages, then the hour's one
    call still answers, and is counted."""
    app = make_agent_app(order="mistral", ONBOARDING_RATE_LIMIT="1 per hour")
    wizard = a_wizard(app)
    fake.script("mistral", Reply.fails(503), Reply.fails(500), says(CATEGORIES))
    assert [wizard.suggest("categories", "my body").status_code for _ in range(3)] == [503, 503, 200]
    assert wizard.suggest("categories", "my body").status_code == 429
    assert len(fake.requests("mistral")) == 3


def test_answers_that_could_not_be_read_keep_their_unit(make_agent_app, fake):
    app = make_agent_app(order="mistral", ONBOARDING_RATE_LIMIT="1 per hour")
    wizard = a_wizard(app)
    fake.script("mistral", Reply.says("Health and work."), Reply.says("Health and work."))
    assert wizard.suggest("categories", "my body").status_code == 502
    assert wizard.suggest("categories", "my body").status_code == 429


def test_an_answer_in_a_fence_after_a_sentence_with_fields_of_its_own_is_read(agent_app, fake):
    """As OpenAI-compatible models send JSON (tests/chain/test_structured.py has the sources)."""
    wizard = a_wizard(agent_app)
    sent = {"categories": [{"name": "Health", "icon": "heart", "why": "you said body"}], "note": "two areas"}
    fake.script("mistral", Reply.says(f"Sure! Here are two categories:\n```json\n{json.dumps(sent)}\n```"))
    page = wizard.suggest("categories", "my body")
    assert page.status_code == 200 and "Health" in page.get_data(as_text=True)
    assert len(fake.requests("mistral")) == 1


def test_kept_suggestions_become_rows_with_the_person_s_edits_and_the_wizard_moves_on(agent_app, fake):
    wizard = a_wizard(agent_app)
    fake.script("mistral", says({"categories": [*CATEGORIES["categories"], {"name": "Chores"}]}))
    wizard.suggest("categories", "my body and my job")
    page = wizard.accept("categories", 0, 1, **{"name-1": "Career"})
    assert page.status_code == 200 and step_of(page.get_data(as_text=True)) == "ITEMS"
    assert rows(agent_app, Category) == ["Career", "Health"]


def test_the_wizard_resumes_where_it_was_on_another_device(agent_app, fake):
    wizard = a_wizard(agent_app)
    fake.script("mistral", says(CATEGORIES))
    wizard.suggest("categories", "my body and my job")
    elsewhere = Wizard(agent_app)  # a second sign-in of the same account
    html = elsewhere.http.get("/onboarding").get_data(as_text=True)
    assert step_of(html) == "CATEGORIES" and html.count('data-testid="suggestion"') == 2
    assert "my body and my job" in html


ITEMS = {
    "habits": [{"name": "Run", "importance": 4, "difficulty": 3, "categories": []},
               {"name": "Stretch", "importance": 2, "difficulty": 1, "categories": ["Health"]}],
    "tasks": [{"name": "Book a check-up", "importance": 5, "difficulty": 1, "categories": []}],
}  # fmt: skip


def delete_category(app, name):
    """The category goes (another tab) between the step's suggestions and the person's keep."""
    with app.app_context():
        categories.delete(db.session.scalar(db.select(User)), name)
        db.session.remove()


def test_a_refused_write_names_the_item_and_its_reason_and_lists_what_is_saved(agent_app, fake):
    wizard = a_wizard(agent_app)
    fake.script("mistral", says({"categories": [{"name": "Health"}]}), says(ITEMS))
    wizard.suggest("categories", "my body")
    wizard.accept("categories", 0)
    wizard.suggest("items", "run, stretch, a check-up")
    delete_category(agent_app, "Health")
    page = wizard.accept("items", 0, 1, 2)  # Stretch's category is gone: habits.create refuses it
    html = page.get_data(as_text=True)
    assert page.status_code == 422 and 'data-key="ONBOARDING_WRITE_REFUSED"' in html
    assert "“Stretch” could not be saved: We couldn&#39;t find that category." in html
    assert "AI" not in re.search(r'data-testid="onboarding-error".*?</div>', html, re.S).group(0)  # not the AI's fault
    assert re.search(r'data-testid="onboarding-saved".*Habits</a>: Run', html, re.S)
    assert step_of(html) == "ITEMS"


def test_retrying_a_half_failed_step_many_times_never_duplicates_a_row(agent_app, fake):
    wizard = a_wizard(agent_app)
    fake.script("mistral", says({"categories": [{"name": "Health"}]}), says(ITEMS))
    wizard.suggest("categories", "my body")
    wizard.accept("categories", 0)
    wizard.suggest("items", "run, stretch, a check-up")
    delete_category(agent_app, "Health")
    for _ in range(6):
        assert wizard.accept("items", 0, 1, 2).status_code == 422
    assert rows(agent_app, Habit) == ["Run"] and rows(agent_app, Task) == []  # the step stops at the refusal
    page = wizard.accept("items", 0, 2)  # drops the refused one: the rest is already there
    assert step_of(page.get_data(as_text=True)) == "ROUTINE"
    assert rows(agent_app, Habit) == ["Run"] and rows(agent_app, Task) == ["Book a check-up"]
    with agent_app.app_context():
        run = db.session.scalar(db.select(OnboardingRun))
        assert run.saved == {"categories": ["Health"], "habits": ["Run"], "tasks": ["Book a check-up"]}
        db.session.remove()


def test_a_double_click_on_keep_creates_each_row_once(agent_app, fake):
    wizard = a_wizard(agent_app)
    fake.script("mistral", says(CATEGORIES))
    wizard.suggest("categories", "my body and my job")
    first, second = wizard.accept("categories", 0, 1), wizard.accept("categories", 0, 1)
    assert first.status_code == 200 and second.status_code == 422
    assert 'data-key="ONBOARDING_STEP_CHANGED"' in second.get_data(as_text=True)
    assert rows(agent_app, Category) == ["Health", "Work"]


def test_a_name_the_account_already_has_is_skipped(agent_app, fake):
    wizard = a_wizard(agent_app)
    with agent_app.app_context():
        categories.create(db.session.scalar(db.select(User)), name="health", icon="heart")
        db.session.remove()
    fake.script("mistral", says(CATEGORIES))
    wizard.suggest("categories", "my body and my job")
    wizard.accept("categories", 0, 1)
    assert rows(agent_app, Category) == ["Work", "health"]


def test_the_routine_step_builds_a_scheduled_routine_through_the_routines_service(agent_app, fake):
    wizard = a_wizard(agent_app)
    routine = {"name": "Mornings", "weekdays": ["monday"], "sections": [
        {"name": "Early", "starts_at": "06:30", "ends_at": "08:00",
         "items": [{"name": "Run", "starts_at": "06:00", "ends_at": "07:00"}]}]}  # fmt: skip
    fake.script("mistral", says({"categories": [{"name": "Health"}]}), says(ITEMS), says(routine))
    wizard.suggest("categories", "my body")
    wizard.accept("categories", 0)
    wizard.suggest("items", "run")
    wizard.accept("items", 0, 2)
    wizard.suggest("routine", "early mornings on weekdays")
    page = wizard.accept("routine", 0, **{"weekdays-0": ["0", "2", "4"]})
    assert step_of(page.get_data(as_text=True)) == "GOALS"
    assert rows(agent_app, Routine) == ["Mornings"]
    with agent_app.app_context():
        assert sorted(db.session.scalars(db.select(ScheduleDay.weekday))) == [0, 2, 4]
        db.session.remove()


def test_going_on_without_adding_and_skipping_reveal_the_assistant(agent_app, fake):
    wizard = a_wizard(agent_app)
    for step, following in (("categories", "ITEMS"), ("items", "ROUTINE"), ("routine", "GOALS"), ("goals", "SUMMARY")):
        assert step_of(wizard.next(step).get_data(as_text=True)) == following
    assert "data-agent-open" not in wizard.http.get("/dashboard").get_data(as_text=True)
    finished = wizard.http.post("/onboarding/finish", data={"csrf_token": wizard.csrf})
    assert finished.status_code == 302 and finished.headers["Location"].endswith("/dashboard")
    assert "data-agent-open" in wizard.http.get("/dashboard").get_data(as_text=True)
    assert fake.requests("mistral") == []


def test_skipping_the_setup_reveals_the_assistant_and_it_stays_reachable(agent_app, fake):
    wizard = a_wizard(agent_app)
    wizard.http.post("/onboarding/skip", data={"csrf_token": wizard.csrf})
    assert "data-agent-open" in wizard.http.get("/dashboard").get_data(as_text=True)
    assert 'href="/onboarding"' in wizard.http.get("/configuration").get_data(as_text=True)
    wizard.http.post("/onboarding/restart", data={"csrf_token": wizard.csrf})
    assert step_of(wizard.http.get("/onboarding").get_data(as_text=True)) == "CATEGORIES"


def test_an_unknown_step_is_not_found(agent_app):
    wizard = a_wizard(agent_app)
    assert wizard.suggest("everything", "hi").status_code == 404


def test_the_summary_has_no_step_after_it_and_words_past_the_limit_are_refused(agent_app, fake):
    wizard = a_wizard(agent_app)
    too_long = wizard.suggest("categories", "x" * 1001)
    assert too_long.status_code == 422 and 'data-key="ONBOARDING_SAID_TOO_LONG"' in too_long.get_data(as_text=True)
    for step in ("categories", "items", "routine", "goals"):
        wizard.next(step)
    assert wizard.next("summary").status_code == 422
    assert fake.requests("mistral") == []


def test_a_gemini_link_gets_the_step_s_schema_and_its_answer_is_cleaned_the_same(make_agent_app, fake):
    app = make_agent_app(order="gemini")
    wizard = a_wizard(app)
    fake.script("gemini", says({"categories": [{"name": "Saude", "icon": "not-an-icon"}]}))
    html = wizard.suggest("categories", "saúde").get_data(as_text=True)
    assert 'value="saúde"' in html
    (request,) = fake.requests("gemini")
    assert "responseSchema" in json.dumps(request.body)
