"""The admin's view of the chain: each link's state, and the metrics — admins only."""

import pytest

from app.llm import ChatRequest, Message
from tests.conftest import sign_in, standalone_app


def chain_app():
    return standalone_app(
        LLM_ENV={
            "BEYOU_LLM_ORDER": "mistral,gemini,nvidia",
            "BEYOU_LLM_BLOCKED": "nvidia",
            "BEYOU_LLM_MISTRAL_API_KEY": "test-key",
            "BEYOU_LLM_MISTRAL_BASE_URL": "http://127.0.0.1:9/v1",
        }
    )


def admin_client(app):
    from tests.conftest import make_user

    make_user(app)
    app.test_cli_runner().invoke(args=["users", "make-admin", "ana@example.com"])
    client = app.test_client()
    sign_in(client)
    return client


def test_the_llm_page_shows_each_links_state():
    client = admin_client(chain_app())
    page = client.get("/admin/llm").get_data(as_text=True)
    assert 'data-link="mistral"' in page and "ready" in page
    assert 'data-link="gemini"' in page and "skipped" in page
    assert 'data-link="nvidia"' in page and "blocked" in page


def test_the_llm_page_says_when_nothing_is_configured(signed_in, app):
    app.test_cli_runner().invoke(args=["users", "make-admin", "ana@example.com"])
    page = signed_in.get("/admin/llm").get_data(as_text=True)
    assert "the assistant is not configured" in page


def test_metrics_are_for_admins_only(signed_in, app):
    assert signed_in.get("/admin/metrics").status_code == 403
    assert signed_in.get("/admin/llm").status_code == 403
    app.test_cli_runner().invoke(args=["users", "make-admin", "ana@example.com"])
    response = signed_in.get("/admin/metrics")
    assert response.status_code == 200
    assert "beyou_llm_attempts_total" in response.get_data(as_text=True)


def test_the_llm_page_counts_each_links_unusable_answers():
    """A link that answered twice with nothing readable shows 2; one that was never reached, 0."""
    from app.llm import current_chain
    from app.llm.structured import AnswerUnreadable
    from tests.chain.shapes import HabitSuggestion
    from tests.fakes import FakeProviders, Reply

    with FakeProviders() as fake:
        app = standalone_app(
            LLM_ENV={
                "BEYOU_LLM_ORDER": "mistral,gemini",
                "BEYOU_LLM_MISTRAL_API_KEY": "test-key",
                "BEYOU_LLM_MISTRAL_BASE_URL": fake.base_url("mistral"),
                "BEYOU_LLM_GEMINI_API_KEY": "test-key",
                "BEYOU_LLM_GEMINI_BASE_URL": fake.base_url("gemini", "gemini"),
            }
        )
        fake.script("mistral", Reply.says("Sure! Read."), Reply.says('{"name": 4}'))
        with app.app_context(), pytest.raises(AnswerUnreadable):
            current_chain().structured(ChatRequest(system="s", messages=[Message.user("a habit")]), HabitSuggestion)
        page = admin_client(app).get("/admin/llm").get_data(as_text=True)
    assert 'data-unusable="2"' in page.split('data-link="mistral"')[1].split("</tr>")[0]
    assert 'data-unusable="0"' in page.split('data-link="gemini"')[1].split("</tr>")[0]
    assert "Unusable answers" in page
