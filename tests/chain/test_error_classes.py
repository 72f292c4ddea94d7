"""A provider's refusal is classed by its own detail, and the link rests as that detail says: a
per-minute limit for its retry delay, a per-day one until the provider's reset (Gemini: midnight
Pacific time), a model's tool call that did not parse (Groq's `tool_use_failed`) like any answer
that does not read. The admin page and the metrics say which limit was hit."""

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from app.llm import AssistantReply, ChatRequest, Message, current_chain
from tests.chain.conftest import env_for
from tests.chain.shapes import HabitSuggestion
from tests.chain.test_admin_llm import admin_client
from tests.conftest import standalone_app
from tests.fakes import Reply
from tests.fakes.wire import gemini_quota_body, groq_error_event, groq_rate_limit, groq_tool_use_failed

PER_MINUTE = "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"
PER_DAY = "GenerateRequestsPerDayPerProjectPerModel-FreeTier"
INPUT_TOKENS_PER_MINUTE = "GenerateContentInputTokensPerModelPerMinute-FreeTier"


def answered_by(chain):
    reply = AssistantReply()
    for event in chain.stream(ChatRequest(messages=[Message.user("hello")])):
        reply.absorb(event)
    return reply.completed.link


def state_of(chain, link):
    return {state.name: state for state in chain.link_states()}[link]


def pacific_midnight_after(now):
    here = datetime.fromtimestamp(now, ZoneInfo("America/Los_Angeles"))
    return datetime.combine(here.date() + timedelta(days=1), datetime.min.time(), here.tzinfo).timestamp()


@pytest.mark.parametrize(
    ("quota_id", "limit"), [(PER_MINUTE, "per-minute requests"), (INPUT_TOKENS_PER_MINUTE, "per-minute input tokens")]
)
def test_a_gemini_per_minute_limit_is_a_rate_limit_resting_its_retry_delay(
    fake, make_chain, clock, metric, quota_id, limit
):
    metric.mark("beyou_llm_limits_hit_total", link="gemini", limit=limit)
    fake.script("gemini", Reply.fails(429, body=gemini_quota_body(quota_id, retry_delay="26s")))
    chain = make_chain("gemini,mistral")
    assert answered_by(chain) == "mistral"

    gemini = state_of(chain, "gemini")
    assert (gemini.last_error.kind, gemini.last_error.status) == ("rate_limited", 429)
    assert gemini.last_error.detail == f"{limit} ({quota_id})"
    assert gemini.cooling_until.timestamp() == pytest.approx(clock.now + 26)
    assert limit in gemini.detail
    assert metric.delta("beyou_llm_limits_hit_total", link="gemini", limit=limit) == 1

    clock.advance(25)
    assert answered_by(chain) == "mistral"
    clock.advance(2)
    assert answered_by(chain) == "gemini"


def test_a_gemini_daily_quota_rests_the_link_until_midnight_pacific(fake, make_chain, clock):
    """Google's RetryInfo says seconds even when the day's quota is spent: the reset is what counts."""
    body = gemini_quota_body(PER_MINUTE, PER_DAY, retry_delay="41s")
    fake.script("gemini", Reply.fails(429, body=body))
    chain = make_chain("gemini,mistral")
    assert answered_by(chain) == "mistral"

    gemini = state_of(chain, "gemini")
    assert gemini.last_error.kind == "quota"
    assert gemini.last_error.detail == f"per-day requests ({PER_DAY})"
    reset = pacific_midnight_after(clock.now)
    assert gemini.cooling_until.timestamp() == pytest.approx(reset)

    clock.advance(reset - clock.now - 1)
    assert answered_by(chain) == "mistral"
    clock.advance(2)
    assert answered_by(chain) == "gemini"


def test_the_daily_reset_follows_pacific_summer_time(fake, make_chain, clock):
    clock.now = datetime(2027, 7, 1, 12, 0, tzinfo=ZoneInfo("UTC")).timestamp()  # 05:00 in California (PDT)
    fake.script("gemini", Reply.fails(429, body=gemini_quota_body(PER_DAY, retry_delay="3s")))
    chain = make_chain("gemini,mistral")
    answered_by(chain)
    assert state_of(chain, "gemini").cooling_until.isoformat() == "2027-07-02T07:00:00+00:00"


def test_groq_tool_use_failed_in_the_stream_is_a_malformed_answer_with_its_status(fake, make_chain, clock):
    failed = groq_tool_use_failed('<function=createHabit{"name": "Read"}</function>', streamed=True)
    fake.script("local", Reply.says(error_after=0, stream_error=groq_error_event(failed)))
    chain = make_chain("local,gemini")
    assert answered_by(chain) == "gemini"

    groq = state_of(chain, "local")
    error = groq.last_error
    assert (error.kind, error.status, error.detail) == ("malformed", 400, "tool_use_failed")
    assert "Failed to call a function" in error.message
    assert groq.cooling_until.timestamp() == pytest.approx(clock.now + 30)


def test_groq_tool_use_failed_as_a_400_is_a_malformed_answer_too(fake, make_chain):
    fake.script("local", Reply.fails(400, body=groq_tool_use_failed("<function=createHabit>")))
    fake.script("gemini", Reply.says('{"name": "Read", "importance": 3}'))
    chain = make_chain("local,gemini")
    assert chain.structured(ChatRequest(messages=[Message.user("a habit?")]), HabitSuggestion).name == "Read"
    groq = state_of(chain, "local")
    error = groq.last_error
    assert (error.kind, error.status, error.detail) == ("malformed", 400, "tool_use_failed")


@pytest.mark.parametrize(
    ("window", "measure", "kind"), [("minute", "tokens", "rate_limited"), ("day", "requests", "quota")]
)
def test_an_openai_compatible_limit_named_in_the_message_is_read(fake, make_chain, clock, window, measure, kind):
    headers = {"Retry-After": "17"}
    fake.script("local", Reply.fails(429, body=groq_rate_limit(window, measure), headers=headers))
    chain = make_chain("local,gemini")
    assert answered_by(chain) == "gemini"
    groq = state_of(chain, "local")
    assert (groq.last_error.kind, groq.last_error.detail) == (kind, f"per-{window} {measure}")
    assert groq.cooling_until.timestamp() == pytest.approx(clock.now + 17)  # no documented reset: its Retry-After


def test_the_admin_page_and_the_metrics_say_which_limit_was_hit(fake):
    app = standalone_app(LLM_ENV=env_for(fake, "gemini,mistral"))
    fake.script("gemini", Reply.fails(429, body=gemini_quota_body(PER_DAY, retry_delay="41s")))
    with app.app_context():
        assert answered_by(current_chain()) == "mistral"
    client = admin_client(app)
    page = client.get("/admin/llm").get_data(as_text=True)
    assert "quota (429)" in page and f"per-day requests ({PER_DAY})" in page
    assert "(quota: per-day requests" in page
    metrics = client.get("/admin/metrics").get_data(as_text=True)
    assert 'beyou_llm_limits_hit_total{limit="per-day requests",link="gemini"}' in metrics
