"""Boot rules of the line-up: order, blocklist, keys, production pins."""

import logging
import os
import subprocess

import click
import pytest

from app import ROOT, create_app
from app.llm import ChainConfigError, ChainSettings, LLMNotConfigured, build_chain
from app.llm.messages import ChatRequest, Message

KEYS = {f"BEYOU_LLM_{n.upper()}_API_KEY": "k" for n in ("mistral", "gemini", "glm", "nvidia", "deepseek")}


def test_defaults_follow_the_factory_order():
    settings = ChainSettings.from_env(KEYS)
    assert [link.name for link in settings.links] == ["mistral", "gemini", "glm", "nvidia", "deepseek"]
    assert settings.links[0].model == "mistral-small-latest"
    assert settings.links[0].base_url == "https://api.mistral.ai/v1"
    assert settings.timeouts.connect == 10 and settings.timeouts.first_event == 60 and settings.timeouts.total == 120


def test_blocklist_beats_the_order():
    settings = ChainSettings.from_env({**KEYS, "BEYOU_LLM_ORDER": "glm,mistral", "BEYOU_LLM_BLOCKED": "GLM"})
    assert [link.name for link in settings.links] == ["mistral"]


def test_empty_chain_refuses_to_boot_naming_both_lists():
    with pytest.raises(ChainConfigError) as refusal:
        ChainSettings.from_env({**KEYS, "BEYOU_LLM_ORDER": "mistral,glm", "BEYOU_LLM_BLOCKED": "glm,mistral"})
    assert "BEYOU_LLM_ORDER" in str(refusal.value) and "BEYOU_LLM_BLOCKED" in str(refusal.value)


def test_unknown_link_name_refuses_to_boot():
    with pytest.raises(ChainConfigError, match="openrouter"):
        ChainSettings.from_env({**KEYS, "BEYOU_LLM_ORDER": "mistral,openrouter"})


def test_unknown_name_in_the_blocklist_refuses_to_boot():
    with pytest.raises(ChainConfigError, match="deepsek"):
        ChainSettings.from_env({**KEYS, "BEYOU_LLM_BLOCKED": "deepsek"})


def test_production_pins_order_and_blocklist():
    settings = ChainSettings.from_env({**KEYS, "BEYOU_ENV": "production"})
    assert [link.name for link in settings.links] == ["mistral", "gemini"]
    assert set(settings.blocked) >= {"glm", "deepseek"}


def test_production_blocklist_cannot_be_removed_by_the_environment():
    env = {**KEYS, "BEYOU_ENV": "production", "BEYOU_LLM_ORDER": "deepseek,mistral,glm", "BEYOU_LLM_BLOCKED": ""}
    settings = ChainSettings.from_env(env)
    assert [link.name for link in settings.links] == ["mistral"]


def test_production_environment_may_add_to_the_blocklist():
    env = {**KEYS, "BEYOU_ENV": "production", "BEYOU_LLM_BLOCKED": "gemini"}
    settings = ChainSettings.from_env(env)
    assert [link.name for link in settings.links] == ["mistral"]
    assert {"glm", "deepseek", "gemini"} <= set(settings.blocked)


def test_production_order_of_only_blocked_links_refuses_to_boot():
    with pytest.raises(ChainConfigError, match="BEYOU_LLM_BLOCKED"):
        ChainSettings.from_env({**KEYS, "BEYOU_ENV": "production", "BEYOU_LLM_ORDER": "glm,deepseek"})


def test_production_link_without_key_refuses_to_boot():
    env = {"BEYOU_ENV": "production", "BEYOU_LLM_MISTRAL_API_KEY": "k"}
    with pytest.raises(ChainConfigError, match="gemini"):
        ChainSettings.from_env(env)


def test_development_skips_a_keyless_link():
    settings = ChainSettings.from_env({"BEYOU_LLM_GEMINI_API_KEY": "k"})
    assert [link.name for link in settings.links] == ["gemini"]
    assert "mistral" in settings.skipped
    assert "mistral skipped" in settings.describe()[1]


def test_conventional_key_names_are_accepted():
    settings = ChainSettings.from_env(
        {"BEYOU_LLM_ORDER": "mistral,gemini", "MISTRAL_API_KEY": "a", "GEMINI_API_KEY": "b"}
    )
    assert [(link.name, link.api_key) for link in settings.links] == [("mistral", "a"), ("gemini", "b")]


def test_every_link_base_url_and_model_are_configurable():
    env = {
        "BEYOU_LLM_ORDER": "gemini",
        "GEMINI_API_KEY": "b",
        "BEYOU_LLM_GEMINI_BASE_URL": "http://127.0.0.1:9/gemini",
        "BEYOU_LLM_GEMINI_MODEL": "gemini-3-flash",
    }
    (link,) = ChainSettings.from_env(env).links
    assert (link.base_url, link.model) == ("http://127.0.0.1:9/gemini", "gemini-3-flash")


def test_local_link_needs_base_url_and_model_but_no_key():
    assert ChainSettings.from_env({"BEYOU_LLM_ORDER": "local"}).links == ()
    env = {
        "BEYOU_LLM_ORDER": "local",
        "BEYOU_LLM_LOCAL_BASE_URL": "http://127.0.0.1:11434/v1",
        "BEYOU_LLM_LOCAL_MODEL": "qwen3",
    }
    (link,) = ChainSettings.from_env(env).links
    assert (link.name, link.api_key, link.model) == ("local", None, "qwen3")


def test_development_without_any_key_runs_but_says_the_assistant_is_not_configured():
    chain = build_chain(ChainSettings.from_env({}))
    assert chain.configured is False
    with pytest.raises(LLMNotConfigured) as refusal:
        chain.stream(ChatRequest(messages=[Message.user("hi")]))
    assert refusal.value.key == "AI_NOT_CONFIGURED"
    assert "BEYOU_LLM_MISTRAL_API_KEY" in refusal.value.hint


def test_the_app_refuses_to_boot_on_a_bad_line_up():
    with pytest.raises(ChainConfigError) as refused:
        create_app("test", LLM_ENV={"BEYOU_LLM_ORDER": "mistral", "BEYOU_LLM_BLOCKED": "mistral"})
    assert "BEYOU_LLM_ORDER" in str(refused.value) and "BEYOU_LLM_BLOCKED" in str(refused.value)


def test_the_app_stores_the_chain_built_from_config_overrides():
    app = create_app("test", LLM_ENV={"BEYOU_LLM_ORDER": "mistral", "BEYOU_LLM_MISTRAL_API_KEY": "k"})
    chain = app.extensions["llm_chain"]
    assert chain.link_names == ["mistral"]
    chain.close()


def test_timeouts_are_configurable():
    env = {"BEYOU_LLM_CONNECT_TIMEOUT": "2", "BEYOU_LLM_FIRST_EVENT_TIMEOUT": "5", "BEYOU_LLM_TOTAL_TIMEOUT": "9"}
    timeouts = ChainSettings.from_env({**env, "BEYOU_LLM_IDLE_TIMEOUT": "4"}).timeouts
    assert (timeouts.connect, timeouts.first_event, timeouts.idle, timeouts.total) == (2, 5, 4, 9)


def test_an_empty_order_says_it_names_no_link():
    with pytest.raises(ChainConfigError) as refusal:
        ChainSettings.from_env({**KEYS, "BEYOU_LLM_ORDER": " , "})
    message = str(refusal.value)
    assert "BEYOU_LLM_ORDER names no link" in message
    assert "(empty)" not in message and "BEYOU_LLM_BLOCKED" not in message


def test_a_maintenance_command_keeps_the_line_up_to_itself():
    """`make run` runs `flask db upgrade` and `flask seed-demo` before serving: only serving says it."""
    environment = {k: v for k, v in os.environ.items() if not k.startswith("BEYOU_") and not k.endswith("_API_KEY")}
    command = [str(ROOT / ".venv" / "bin" / "flask"), "--app", "wsgi", "routes"]
    finished = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=60)
    assert finished.returncode == 0, finished.stderr
    assert "LLM" not in finished.stderr + finished.stdout


def test_serving_says_the_line_up_once_in_one_paragraph(caplog):
    caplog.set_level(logging.INFO, logger="app.llm")
    with click.Context(click.Command("run"), info_name="run"):
        create_app("test", LLM_ENV={"BEYOU_LLM_ORDER": "mistral,gemini", "BEYOU_LLM_GEMINI_API_KEY": "k"})
    (record,) = [r for r in caplog.records if "LLM" in r.getMessage()]
    assert record.levelno == logging.WARNING  # a link is missing: whoever starts the server should see it
    assert record.getMessage().splitlines() == [
        "LLM link mistral skipped: no API key (BEYOU_LLM_MISTRAL_API_KEY)",
        "LLM chain: gemini(gemini-2.5-flash)",
    ]
