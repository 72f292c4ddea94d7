"""The server's settings (BEYOU_* variables) are read when the app is created: a bad one stops the
boot with the variable's name and what it expects, instead of booting and failing every request
that reads it (issue #33: BEYOU_AGENT_RATE_LIMIT=1000 made every chat message a 500)."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from app import config, create_app

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("setting", "value", "variable", "expects"),
    [
        ("AGENT_RATE_LIMIT", "1000", "BEYOU_AGENT_RATE_LIMIT", "one rate limit"),
        ("STUDY_AI_RATE_LIMIT", "60 an hour", "BEYOU_STUDY_AI_RATE_LIMIT", "one rate limit"),
        ("AUTH_IP_LIMIT", "30 per hour; 5 per minute", "BEYOU_AUTH_IP_LIMIT", "one rate limit"),
        ("PROXY_COUNT", "one", "BEYOU_PROXY_COUNT", "a whole number"),
        ("LOGIN_LOCKOUT_ATTEMPTS", "0", "BEYOU_LOGIN_LOCKOUT_ATTEMPTS", "a whole number of at least 1"),
        ("SMTP_PORT", "70000", "BEYOU_SMTP_PORT", "a whole number from 1 to 65535"),
        ("AGENT_TURN_SECONDS", "2.5", "BEYOU_AGENT_TURN_SECONDS", "a whole number"),
        ("AGENT_HEARTBEAT_SECONDS", "15s", "BEYOU_AGENT_HEARTBEAT_SECONDS", "a number of seconds"),
        ("AGENT_LEASE_SECONDS", "0", "BEYOU_AGENT_LEASE_SECONDS", "above 0"),
        ("EMBEDDINGS_TIMEOUT", "nan", "BEYOU_EMBEDDINGS_TIMEOUT", "a number of seconds"),
        ("BRIEFING_WAIT_SECONDS", "-1", "BEYOU_BRIEFING_WAIT_SECONDS", "(0 or more)"),
        ("SMTP_STARTTLS", "flase", "BEYOU_SMTP_STARTTLS", "one of true"),
        ("PUBLIC_URL", "beyou.example", "BEYOU_PUBLIC_URL", "a URL"),
        ("EMBEDDINGS_BASE_URL", "ftp://embed.example", "BEYOU_EMBEDDINGS_BASE_URL", "a URL"),
        ("REDIS_URL", "localhost:6379", "BEYOU_REDIS_URL", "redis://"),
        ("SQLALCHEMY_DATABASE_URI", "postgres at db", "BEYOU_DATABASE_URL", "an SQLAlchemy URL"),
        ("MAIL_FROM", "Beyou", "BEYOU_MAIL_FROM", "a mail address"),
    ],
)
def test_a_bad_value_stops_the_boot_naming_the_variable_and_what_it_expects(setting, value, variable, expects):
    with pytest.raises(config.ConfigError) as refused:
        create_app("test", **{setting: value})
    message = str(refused.value)
    assert message.startswith(f"{variable} must be ") and expects in message
    assert (repr(value) in message) is (variable not in ("BEYOU_DATABASE_URL", "BEYOU_REDIS_URL"))


def test_a_bad_url_that_may_hold_a_password_is_not_repeated_in_the_log():
    with pytest.raises(config.ConfigError) as refused:
        create_app("test", REDIS_URL="redis//:s3cret@cache:6379/0", SQLALCHEMY_DATABASE_URI="pg://u:s3cret@db b")
    assert "s3cret" not in str(refused.value) and "not shown: it may hold a password" in str(refused.value)


def test_every_bad_value_is_named_at_once():
    with pytest.raises(config.ConfigError) as refused:
        create_app("test", AGENT_RATE_LIMIT="1000", SMTP_PORT="smtp", PUBLIC_URL="here")
    assert re.findall(r"BEYOU_\w+", str(refused.value)) == ["BEYOU_PUBLIC_URL", "BEYOU_SMTP_PORT",
                                                           "BEYOU_AGENT_RATE_LIMIT"]  # fmt: skip


def test_an_unknown_profile_is_refused_with_its_variable():
    with pytest.raises(config.ConfigError, match="BEYOU_ENV must be one of development, test, production"):
        create_app("staging")


def test_the_defaults_boot_and_are_read_as_their_kinds():
    app = create_app("test")
    settings = app.config
    assert (settings["PROXY_COUNT"], settings["SMTP_PORT"], settings["AGENT_TURN_SECONDS"]) == (0, 587, 180)
    assert settings["SMTP_STARTTLS"] is True and settings["REDIS_URL"] is None
    assert (settings["AGENT_HEARTBEAT_SECONDS"], settings["BRIEFING_WAIT_SECONDS"]) == (15.0, 8.0)
    assert settings["AGENT_RATE_LIMIT"] == "30 per hour" and type(settings["AGENT_RATE_LIMIT"]) is str


def test_a_database_url_is_kept_as_given_password_and_all():
    url = "postgresql+psycopg://beyou:s3cret@db.example:5432/beyou"
    assert create_app("test", SQLALCHEMY_DATABASE_URI=url).config["SQLALCHEMY_DATABASE_URI"] == url


def test_values_a_test_gives_are_read_too_so_limits_can_still_be_set_per_app():
    app = create_app("test", AGENT_RATE_LIMIT="2 per hour", AGENT_HEARTBEAT_SECONDS=0.2, BRIEFING_WAIT_SECONDS=0)
    assert (app.config["AGENT_RATE_LIMIT"], app.config["AGENT_HEARTBEAT_SECONDS"]) == ("2 per hour", 0.2)
    assert app.config["BRIEFING_WAIT_SECONDS"] == 0.0


def boot(**variables):
    """Create the app in a fresh interpreter with these variables, as a server process would."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BEYOU_")}
    env.update(BEYOU_ENV="test", **variables)
    script = (
        "import json; from app import create_app; app = create_app(); "
        "print(json.dumps({k: app.config[k] for k in ('SMTP_STARTTLS', 'PROXY_COUNT', 'AGENT_LEASE_SECONDS')}))"
    )
    return subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)  # fmt: skip


def test_a_server_started_with_a_bad_variable_does_not_start():
    started = boot(BEYOU_AGENT_RATE_LIMIT="1000")
    assert started.returncode != 0
    assert "ConfigError: BEYOU_AGENT_RATE_LIMIT must be one rate limit such as '30 per hour'" in started.stderr


def test_a_server_reads_its_variables_as_their_kinds():
    started = boot(BEYOU_SMTP_STARTTLS="off", BEYOU_PROXY_COUNT="2", BEYOU_AGENT_LEASE_SECONDS="45")
    assert started.returncode == 0, started.stderr
    assert json.loads(started.stdout.splitlines()[-1]) == {
        "SMTP_STARTTLS": False,
        "PROXY_COUNT": 2,
        "AGENT_LEASE_SECONDS": 45.0,
    }


# The configuration tables (docs/configuration.md) ----------------------------------------------------------------


def readme_variables():
    """Each variable a row of the settings' tables names (`A` / `B` rows name two): docs/configuration.md,
    and the tables of docs/production.md and docs/features.md beside what they configure."""
    tables = [line for page in ("configuration", "production", "features")
              for line in (ROOT / "docs" / f"{page}.md").read_text().splitlines()]  # fmt: skip
    rows = [line for line in tables if line.startswith("| `BEYOU_")]
    return {name for row in rows for name in re.findall(r"`(BEYOU_[A-Z_<>]+)`", row.split("|")[1])}


def read_variables():
    """Each variable the app reads by its whole name: the settings here, the LLM chain's, the
    HTTP client's and the server's (Procfile)."""
    names = set(config.VARIABLES.values())
    for source in ("app/config.py", "app/llm/settings.py", "app/llm/http.py", "Procfile"):
        names |= set(re.findall(r"\b(BEYOU_[A-Z_]+)\b(?![A-Z_<])", (ROOT / source).read_text()))
    return {name for name in names if not name.endswith("_")}


def test_every_variable_the_app_reads_is_in_the_settings_tables():
    read = {name for name in read_variables() if not re.fullmatch(r"BEYOU_LLM_[A-Z]+_(API_KEY|MODEL|BASE_URL)", name)}
    assert read - readme_variables() == set()


def test_every_variable_in_the_readme_is_read():
    tests_only = {"BEYOU_TEST_DATABASE_URL", "BEYOU_TEST_REDIS_URL"}
    per_link = {"BEYOU_LLM_<NAME>_API_KEY", "BEYOU_LLM_<NAME>_MODEL", "BEYOU_LLM_<NAME>_BASE_URL"}
    assert readme_variables() - read_variables() - tests_only - per_link == set()


# What production refuses that the other profiles let by --------------------------------------------

# Production also refuses to boot without a key for each pinned link; these never reach a provider.
PINNED_KEYS = {"BEYOU_LLM_MISTRAL_API_KEY": "unused", "BEYOU_LLM_GEMINI_API_KEY": "unused"}
STRONG = {"SECRET_KEY": "k" * 32, "PUBLIC_URL": "https://beyou.example", "LLM_ENV": PINNED_KEYS}


def test_production_boots_with_a_long_secret_key_and_an_https_address():
    assert create_app("production", **STRONG).config["PUBLIC_URL"] == "https://beyou.example"


@pytest.mark.parametrize("key", ["k" * 31, "dev-only-secret-change-me", ""])
def test_production_refuses_a_secret_key_shorter_than_32_characters_or_the_development_one(key):
    with pytest.raises(config.ConfigError) as refused:
        create_app("production", **{**STRONG, "SECRET_KEY": key})
    message = str(refused.value)
    assert message.startswith("BEYOU_SECRET_KEY must be at least 32 random characters in production")
    assert "never the development value" in message and (not key or key not in message)


def test_production_refuses_a_public_address_that_is_not_https():
    with pytest.raises(config.ConfigError) as refused:
        create_app("production", **{**STRONG, "PUBLIC_URL": "http://beyou.example"})
    assert str(refused.value) == (
        "BEYOU_PUBLIC_URL must be an https:// URL in production, whose cookies are Secure and never come back "
        "over http, not 'http://beyou.example'"
    )


DEVELOPMENT = {"SECRET_KEY": "dev-only-secret-change-me", "PUBLIC_URL": "http://127.0.0.1:5000"}


def test_production_refuses_the_development_defaults_naming_both():
    with pytest.raises(config.ConfigError) as refused:
        create_app("production", **DEVELOPMENT, LLM_ENV=PINNED_KEYS)
    assert re.findall(r"BEYOU_\w+ must", str(refused.value)) == ["BEYOU_SECRET_KEY must", "BEYOU_PUBLIC_URL must"]


def test_the_other_profiles_let_the_development_key_and_an_http_address_by():
    app = create_app("test", **DEVELOPMENT)
    assert (app.config["SECRET_KEY"], app.config["PUBLIC_URL"]) == tuple(DEVELOPMENT.values())
