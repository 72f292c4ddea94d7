"""CSRF, headers, cookies, per-IP limits and the admin wall."""

import re

import pytest
import redis

from app import create_app
from app.config import ConfigError
from app.llm import ChainConfigError
from tests.conftest import (
    PASSWORD,
    TEST_REDIS_URL,
    csrf_token_from,
    make_user,
    settings_for_tests,
    sign_in,
    standalone_app,
)

# Production refuses to boot without a key for each pinned link; these never reach a provider.
PRODUCTION_KEYS = {"BEYOU_LLM_MISTRAL_API_KEY": "unused", "BEYOU_LLM_GEMINI_API_KEY": "unused"}
# And without a long secret key and an https:// public address.
PRODUCTION = {"SECRET_KEY": "a-real-secret-of-forty-characters-or-so", "PUBLIC_URL": "https://beyou.example"}


def test_a_post_without_a_csrf_token_is_refused_and_changes_nothing(client, user_id):
    response = client.post("/login", data={"email": "ana@example.com", "password": PASSWORD})
    assert response.status_code == 400
    assert "Your form expired" in response.get_data(as_text=True)
    assert client.get("/dashboard").status_code == 302


def test_logout_without_a_token_keeps_the_session(signed_in):
    assert signed_in.post("/logout").status_code == 400
    assert signed_in.get("/dashboard").status_code == 200


def test_htmx_sends_the_token_in_a_header(signed_in):
    response = signed_in.post("/logout", headers={"X-CSRFToken": signed_in.csrf, "HX-Request": "true"})
    assert response.status_code == 302
    assert signed_in.get("/dashboard").status_code == 302


def test_a_wrong_csrf_header_is_refused(signed_in):
    response = signed_in.post("/logout", headers={"X-CSRFToken": "forged", "HX-Request": "true"})
    assert response.status_code == 400
    assert signed_in.get("/dashboard").status_code == 200


def test_pages_carry_the_security_headers(client):
    headers = client.get("/login").headers
    csp = headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert "frame-ancestors 'none'" in csp
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "same-origin"
    assert headers["X-Frame-Options"] == "DENY"


def test_every_response_denies_the_powerful_browser_features(app, signed_in):
    visitor = app.test_client()
    answers = [visitor.get("/login"), visitor.get("/no-such-page"), signed_in.get("/dashboard")]
    answers.append(visitor.get(re.search(r'src="(/static/[^"]+)"', answers[0].get_data(as_text=True)).group(1)))
    for answer in answers:
        policy = answer.headers["Permissions-Policy"]
        for feature in ("camera", "microphone", "geolocation", "payment", "usb", "clipboard-read", "fullscreen"):
            assert f"{feature}=()" in policy, (answer.request.path, feature)


def test_htmx_is_configured_for_same_origin_and_no_eval(client):
    page = client.get("/login").get_data(as_text=True)
    assert '"selfRequestsOnly": true' in page
    assert '"allowEval": false' in page
    assert "<script>" not in page  # no inline script anywhere


def test_session_cookies_are_httponly_and_lax(client, user_id):
    response = sign_in(client)
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie
    assert "SameSite=Lax" in cookie
    assert "Secure" not in cookie  # plain http in development and tests


def test_session_cookies_are_secure_in_production():
    app = standalone_app("production", **PRODUCTION, LLM_ENV=PRODUCTION_KEYS)
    make_user(app)
    client = app.test_client()
    https = {"base_url": "https://localhost", "headers": {"Referer": "https://localhost/login"}}
    token = csrf_token_from(client.get("/login", **https))
    response = client.post(
        "/login", data={"email": "ana@example.com", "password": PASSWORD, "csrf_token": token}, **https
    )
    assert response.status_code == 302
    cookie = response.headers["Set-Cookie"]
    assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Lax" in cookie


def test_production_refuses_to_boot_with_the_development_secret():
    settings = {**PRODUCTION, "SECRET_KEY": "dev-only-secret-change-me", "LLM_ENV": PRODUCTION_KEYS}
    with pytest.raises(ConfigError, match="BEYOU_SECRET_KEY must be at least 32 random characters"):
        create_app("production", **settings_for_tests(**settings))


def test_the_sign_up_and_reset_forms_share_a_per_ip_limit():
    app = standalone_app(AUTH_IP_LIMIT="3 per minute")
    client = app.test_client()
    token = csrf_token_from(client.get("/login"))
    statuses = [
        client.post("/forgot-password", data={"email": f"x{i}@example.com", "csrf_token": token}).status_code
        for i in range(3)
    ]
    assert statuses == [200, 200, 200]
    refused = client.post("/register", data={"email": "x@example.com", "csrf_token": token})
    assert refused.status_code == 429
    assert "Retry-After" in refused.headers
    assert "Too many requests" in refused.get_data(as_text=True)


def test_the_per_ip_limit_never_refuses_a_right_password():
    app = standalone_app(AUTH_IP_LIMIT="3 per minute")
    make_user(app)
    client = app.test_client()
    token = csrf_token_from(client.get("/login"))
    for i in range(4):
        client.post("/forgot-password", data={"email": f"x{i}@example.com", "csrf_token": token})
    assert sign_in(client).status_code == 302


def test_admin_pages_are_for_admins_only(app, client, user_id):
    assert client.get("/admin/").status_code == 302  # signed out: sign in first
    sign_in(client)
    assert client.get("/admin/").status_code == 403
    result = app.test_cli_runner().invoke(args=["users", "make-admin", "ana@example.com"])
    assert result.exit_code == 0, result.output
    assert client.get("/admin/").status_code == 200


def test_make_admin_names_an_unknown_email(app):
    result = app.test_cli_runner().invoke(args=["users", "make-admin", "ghost@example.com"])
    assert result.exit_code != 0
    assert "No account" in result.output


def test_seed_demo_is_idempotent(app):
    runner = app.test_cli_runner()
    first = runner.invoke(args=["seed-demo"])
    second = runner.invoke(args=["seed-demo"])
    assert "Created demo account demo@beyou.app" in first.output
    assert "Already there" in second.output and "beyou-demo-2026" in second.output
    assert sign_in(app.test_client(), email="demo@beyou.app", password="beyou-demo-2026").status_code == 302


@pytest.mark.skipif(not TEST_REDIS_URL, reason="BEYOU_TEST_REDIS_URL not set")
def test_with_redis_a_sign_in_wait_holds_across_worker_processes():
    """Two apps stand for two workers: failures counted by one make the next attempt on the other
    wait, and what Redis holds names neither the email nor the address."""
    first, second = standalone_app(), standalone_app()
    for app in (first, second):
        make_user(app)
    for _ in range(10):
        sign_in(first.test_client(), password="wrong guess!")
    response = sign_in(second.test_client())
    assert response.status_code == 429 and response.headers["Retry-After"] == "2"
    keys = b" ".join(redis.Redis.from_url(TEST_REDIS_URL).keys("*sign-in/pair/*"))
    assert keys and b"ana@example.com" not in keys and b"127.0.0.1" not in keys


def test_production_refuses_to_boot_without_keys_for_its_pinned_links():
    with pytest.raises(ChainConfigError) as refused:
        create_app("production", **settings_for_tests(**PRODUCTION, LLM_ENV={}))
    assert "mistral" in str(refused.value)
