"""/privacy says what the running configuration does: the chain in its order, each provider's
establishment and legal basis, what is blocked and why, the calls outside the chain, the export's
sections and the way to delete. Readable signed out (sign-up links to it) and signed in, in both
languages, and linked from sign-up, the shell and the assistant panel."""

import re

import pytest

from app import domains
from app.llm import build_chain
from app.llm.settings import CATALOGUE, PRODUCTION_BLOCKED, ChainSettings
from app.web import privacy
from tests.conftest import make_user, sign_in, standalone_app

LINE_UP = {
    "BEYOU_LLM_ORDER": "gemini,mistral,deepseek,nvidia",
    "BEYOU_LLM_BLOCKED": "deepseek",
    "BEYOU_LLM_GEMINI_API_KEY": "key",
    "BEYOU_LLM_GEMINI_BASE_URL": "http://127.0.0.1:9",
    "BEYOU_LLM_MISTRAL_API_KEY": "key",
    "BEYOU_LLM_MISTRAL_BASE_URL": "http://127.0.0.1:9/v1",
}


def states(page):
    """(provider, state) in the order the page lists them."""
    return re.findall(r'data-provider="(\w+)" data-state="(\w+)"', page)


def test_every_provider_of_the_catalogue_has_its_establishment_and_legal_basis():
    assert set(privacy.PROTECTION) == set(CATALOGUE)
    # The pinned production blocklist is exactly the providers no legal basis allows.
    assert {name for name, facts in privacy.PROTECTION.items() if not facts.allowed_in_production} == set(
        PRODUCTION_BLOCKED
    )


def test_the_page_states_the_running_chain_in_its_order_and_what_is_blocked():
    app = standalone_app(LLM_ENV=LINE_UP)
    page = app.test_client().get("/privacy").get_data(as_text=True)
    assert states(page)[:2] == [("gemini", "chain"), ("mistral", "chain")]
    assert dict(states(page)) == {
        "gemini": "chain",
        "mistral": "chain",
        "deepseek": "blocked",
        "nvidia": "skipped",
        "glm": "unused",
        "local": "unused",
    }
    assert "United States" in page and "EU-US Data Privacy Framework" in page and "France" in page
    assert "Blocked by this server's settings: it never receives a byte." in page


def test_production_says_the_blocklist_is_pinned_in_code():
    settings = ChainSettings.from_env(
        {"BEYOU_ENV": "production", "MISTRAL_API_KEY": "k", "GEMINI_API_KEY": "k", "BEYOU_LLM_BLOCKED": ""}
    )
    lines = {line.name: line for line in privacy.providers(build_chain(settings))}
    assert [name for name, line in lines.items() if line.state == "chain"] == ["mistral", "gemini"]
    assert {name for name, line in lines.items() if line.pinned} == set(PRODUCTION_BLOCKED)
    assert all(lines[name].state == "blocked" for name in PRODUCTION_BLOCKED)


def test_without_a_chain_the_page_says_nothing_is_sent(client):
    page = client.get("/privacy").get_data(as_text=True)
    assert "No AI provider is configured on this server" in page
    assert all(state != "chain" for _name, state in states(page))


LOCAL_ONLY = {"BEYOU_LLM_ORDER": "local", "BEYOU_LLM_LOCAL_MODEL": "qwen2.5-coder-1.5b"}


@pytest.mark.parametrize(
    ("base_url", "where"),
    [("http://127.0.0.1:8081/v1", "machine"), ("http://localhost:11434/v1", "machine"),
     ("http://192.168.1.20:8000/v1", "network")],
)  # fmt: skip
def test_a_chain_of_the_operator_s_own_model_says_no_provider_receives_anything(base_url, where):
    app = standalone_app(LLM_ENV={**LOCAL_ONLY, "BEYOU_LLM_LOCAL_BASE_URL": base_url})
    page = app.test_client().get("/privacy").get_data(as_text=True)
    assert f'data-testid="privacy-kept-here" data-where="{where}"' in page
    assert "no AI provider receives anything" in page or "No AI provider receives anything" in page


@pytest.mark.parametrize(
    "settings",
    [
        {"LLM_ENV": {**LOCAL_ONLY, "BEYOU_LLM_LOCAL_BASE_URL": "https://models.example.com/v1"}},
        {"LLM_ENV": {**LOCAL_ONLY, "BEYOU_LLM_ORDER": "local,mistral", "BEYOU_LLM_MISTRAL_API_KEY": "k",
                     "BEYOU_LLM_LOCAL_BASE_URL": "http://127.0.0.1:8081/v1"}},
        {"LLM_ENV": {**LOCAL_ONLY, "BEYOU_LLM_LOCAL_BASE_URL": "http://127.0.0.1:8081/v1"},
         "EMBEDDINGS_API_KEY": "k"},
    ],
    ids=["a-server-elsewhere", "a-provider-after-it", "embeddings-sent-out"],
)  # fmt: skip
def test_nothing_is_said_to_stay_here_while_anything_goes_out(settings):
    page = standalone_app(**settings).test_client().get("/privacy").get_data(as_text=True)
    assert "privacy-kept-here" not in page


def test_calls_outside_the_chain_say_whether_they_are_configured(client):
    page = client.get("/privacy").get_data(as_text=True)
    for call in privacy.OUTSIDE_THE_CHAIN:
        if call.service in (None, "tavily"):  # the source search the settings choose by default
            assert re.search(rf'data-outbound="{call.setting}">.*?not configured on this server', page, re.S)
    configured = standalone_app(EMBEDDINGS_API_KEY="k", SOURCE_SEARCH_API_KEY="k")
    page = configured.test_client().get("/privacy").get_data(as_text=True)
    assert re.search(r'data-outbound="EMBEDDINGS_BASE_URL">.*?sent to api.mistral.ai\.', page, re.S)
    assert re.search(r'data-outbound="SOURCE_SEARCH_BASE_URL">.*?sent to api.tavily.com\.', page, re.S)
    elsewhere = standalone_app(EMBEDDINGS_API_KEY="k", EMBEDDINGS_BASE_URL="https://embed.example.eu/v1")
    assert "sent to embed.example.eu." in elsewhere.test_client().get("/privacy").get_data(as_text=True)


def test_the_source_search_named_is_the_one_the_settings_choose(client):
    tavily = client.get("/privacy").get_data(as_text=True)
    assert "it goes to Tavily" in tavily and "Google Search" not in tavily
    gemini_off = standalone_app(SOURCE_SEARCH="gemini", SOURCE_SEARCH_API_KEY="k").test_client()
    page = gemini_off.get("/privacy").get_data(as_text=True)
    assert "by Google Gemini with Google Search" in page and "it goes to Google Gemini" in page
    assert 'data-outbound="SOURCE_SEARCH_BASE_URL"' not in page and "Tavily" not in page
    gemini_on = standalone_app(SOURCE_SEARCH="gemini", SOURCE_SEARCH_GEMINI_API_KEY="k").test_client()
    page = gemini_on.get("/privacy").get_data(as_text=True)
    assert re.search(
        r'data-outbound="SOURCE_SEARCH_GEMINI_BASE_URL">.*?by Google Gemini with Google Search.*?'
        r"sent to generativelanguage.googleapis.com\.",
        page,
        re.S,
    )


def test_every_declared_export_section_has_a_name_a_person_reads():
    declared = {section for domain in domains.DOMAINS for section in domain.export}
    assert set(privacy.EXPORT_SECTION_NAMES) == declared


def test_the_export_sections_named_are_the_declared_ones_in_words_not_keys(client):
    page = client.get("/privacy").get_data(as_text=True)
    declared = [section for domain in domains.DOMAINS for section in domain.export]
    yours = page.split('data-testid="privacy-yours"', 1)[1]
    assert re.findall(r'data-section="(\w+)"', yours) == declared
    assert "<code>" not in yours  # the file's keys (study_sessions, xp_days …) are for programs
    assert ">Study sessions</li>" in yours and ">Mood levels and your private journal</li>" in yours


def test_signed_out_it_is_a_public_page_and_signed_in_it_offers_export_and_deletion(app, signed_in):
    signed_out = app.test_client().get("/privacy")
    assert signed_out.status_code == 200
    assert 'class="public-page"' in signed_out.get_data(as_text=True)
    assert "/configuration/export" not in signed_out.get_data(as_text=True)
    page = signed_in.get("/privacy").get_data(as_text=True)
    assert 'class="app-shell"' in page
    assert 'href="/configuration/export"' in page and 'href="/configuration#config-danger"' in page


def test_the_page_reads_in_portuguese(app):
    make_user(app, email="rita@example.com", name="Rita", language="pt")
    reader = app.test_client()
    sign_in(reader, email="rita@example.com")
    page = reader.get("/privacy").get_data(as_text=True)
    assert "Privacidade" in page and "O que uma mensagem ao assistente leva" in page
    assert ">Sessões de estudo</li>" in page and ">Níveis de humor e seu diário privado</li>" in page


def test_sign_up_the_shell_and_the_assistant_panel_link_to_it(app, signed_in):
    assert 'href="/privacy"' in app.test_client().get("/register").get_data(as_text=True)
    assert 'href="/privacy"' in signed_in.get("/dashboard").get_data(as_text=True)
    assert 'href="/privacy"' in signed_in.get("/ai/agent/panel").get_data(as_text=True)
