"""A link that failed rests for a while; the last link is always tried; workers share the rest."""

import os
import uuid

import pytest

from app.llm import ChainExhausted, ChatRequest, Message
from tests.fakes import Reply
from tests.fakes.wire import gemini_error_body


def ask():
    return ChatRequest(messages=[Message.user("hello")])


def answered_by(chain):
    return [e for e in chain.stream(ask())][-1].link


def test_failed_link_is_skipped_during_its_cooldown(fake, make_chain, clock):
    fake.script("mistral", Reply.fails(500))
    chain = make_chain("mistral,gemini")
    assert answered_by(chain) == "gemini"

    clock.advance(29)
    assert answered_by(chain) == "gemini"
    assert len(fake.requests("mistral")) == 1


def test_cooldown_expires_after_thirty_seconds_for_ordinary_failures(fake, make_chain, clock):
    fake.script("mistral", Reply.fails(503))
    chain = make_chain("mistral,gemini")
    answered_by(chain)
    clock.advance(31)
    assert answered_by(chain) == "mistral"


def test_rate_limit_rests_the_link_for_five_minutes(fake, make_chain, clock):
    fake.script("mistral", Reply.fails(429))
    chain = make_chain("mistral,gemini")
    answered_by(chain)
    clock.advance(299)
    assert answered_by(chain) == "gemini"
    clock.advance(2)
    assert answered_by(chain) == "mistral"


def test_retry_after_header_is_honoured(fake, make_chain, clock):
    fake.script("mistral", Reply.fails(429, headers={"Retry-After": "7"}))
    chain = make_chain("mistral,gemini")
    answered_by(chain)
    (state, _) = chain.link_states()
    assert state.status == "cooling"
    assert state.cooling_until.timestamp() == pytest.approx(clock.now + 7)

    clock.advance(6)
    assert answered_by(chain) == "gemini"
    clock.advance(2)
    assert answered_by(chain) == "mistral"


def test_gemini_retry_delay_in_the_body_is_honoured(fake, make_chain, clock):
    fake.script("gemini", Reply.fails(429, body=gemini_error_body(429, retry_delay="12s")))
    chain = make_chain("gemini,mistral")
    answered_by(chain)
    gemini = chain.link_states()[0]
    assert gemini.cooling_until.timestamp() == pytest.approx(clock.now + 12)


def test_last_link_is_always_tried_even_while_cooling(fake, make_chain):
    fake.script("mistral", Reply.fails(500), Reply.says("back"))
    chain = make_chain("mistral")
    with pytest.raises(ChainExhausted):
        answered_by(chain)
    assert chain.link_states()[0].status == "cooling"
    assert answered_by(chain) == "mistral"


def test_all_cooling_links_but_the_last_are_skipped(fake, make_chain):
    fake.script("mistral", Reply.fails(500))
    fake.script("gemini", Reply.fails(500))
    chain = make_chain("mistral,gemini,glm")
    assert answered_by(chain) == "glm"
    assert answered_by(chain) == "glm"
    assert (len(fake.requests("mistral")), len(fake.requests("gemini"))) == (1, 1)


REDIS_URL = os.environ.get("BEYOU_TEST_REDIS_URL")


@pytest.fixture
def redis_prefix():
    if not REDIS_URL:
        pytest.skip("BEYOU_TEST_REDIS_URL not set")
    import redis

    prefix = f"beyou-test:{uuid.uuid4().hex}:"
    yield prefix
    client = redis.Redis.from_url(REDIS_URL)
    for key in client.scan_iter(prefix + "*"):
        client.delete(key)


def test_cooldowns_are_shared_between_workers_through_redis(fake, make_chain, redis_prefix):
    shared = {"BEYOU_REDIS_URL": REDIS_URL, "BEYOU_LLM_REDIS_PREFIX": redis_prefix}
    worker_a = make_chain("mistral,gemini", **shared)
    worker_b = make_chain("mistral,gemini", **shared)
    fake.script("mistral", Reply.fails(429, headers={"Retry-After": "60"}))

    assert answered_by(worker_a) == "gemini"
    assert answered_by(worker_b) == "gemini"
    assert len(fake.requests("mistral")) == 1
    assert worker_b.link_states()[0].status == "cooling"


def test_shared_cooldown_expires(fake, make_chain, clock, redis_prefix):
    shared = {"BEYOU_REDIS_URL": REDIS_URL, "BEYOU_LLM_REDIS_PREFIX": redis_prefix}
    worker_a = make_chain("mistral,gemini", **shared)
    worker_b = make_chain("mistral,gemini", **shared)
    fake.script("mistral", Reply.fails(500))
    answered_by(worker_a)
    clock.advance(31)
    assert answered_by(worker_b) == "mistral"
