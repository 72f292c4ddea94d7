"""Registration, sign-in, lockout, sign-out and password reset, as a visitor sees them."""

import re

from app.extensions import db
from app.profile.models import User
from tests.conftest import PASSWORD, csrf_token_from, make_user, sign_in


def register(client, **fields):
    token = csrf_token_from(client.get("/register"))
    data = {
        "name": "Carla",
        "email": "carla@example.com",
        "password": "a quiet morning walk",
        "language": "en",
    }
    data.update(fields)
    return client.post("/register", data={**data, "csrf_token": token})


def user_by_email(app, email):
    with app.app_context():
        return db.session.scalar(db.select(User).where(User.email == email))


def test_registration_signs_the_new_user_in(client, app):
    response = register(client, timezone="America/Sao_Paulo")
    assert response.status_code == 302
    assert response.headers["Location"].endswith("/onboarding")  # a new account lands on the setup assistant
    assert b"Hello, Carla" in client.get("/dashboard").data
    user = user_by_email(app, "carla@example.com")
    assert user.timezone == "America/Sao_Paulo"
    assert user.password_hash.startswith("$argon2id$")


def test_registration_normalises_the_email(client, app):
    register(client, email="  Carla@Example.COM ")
    assert user_by_email(app, "carla@example.com") is not None


def test_registration_without_a_usable_timezone_falls_back_to_utc(client, app):
    register(client, timezone="Mars/Olympus")
    assert user_by_email(app, "carla@example.com").timezone == "UTC"


def test_refused_registration_keeps_what_was_typed(client):
    response = register(client, email="not-an-email", password="short")
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert 'value="Carla"' in page
    assert 'value="not-an-email"' in page
    assert "Enter a valid email address." in page
    assert "Use at least 8 characters." in page
    assert "short" not in re.findall(r'value="([^"]*)"', page)  # a password is never echoed back


def test_a_very_common_password_is_refused(client):
    response = register(client, password="password123")
    assert response.status_code == 422
    assert "too common" in response.get_data(as_text=True)


def test_an_email_can_only_register_once(client, app):
    make_user(app, email="carla@example.com")
    response = register(client, email="CARLA@example.com")
    assert response.status_code == 422
    assert "already exists" in response.get_data(as_text=True)


def test_the_language_defaults_from_the_browser(client):
    page = client.get("/register", headers={"Accept-Language": "pt-BR,pt;q=0.9"}).get_data(as_text=True)
    assert '<option value="pt" selected>' in page
    assert "Crie sua conta" in page


def test_sign_in_and_out(client, user_id):
    response = sign_in(client)
    assert response.status_code == 302
    assert client.get("/dashboard").status_code == 200
    token = csrf_token_from(client.get("/dashboard"))
    assert client.post("/logout", data={"csrf_token": token}).status_code == 302
    assert client.get("/dashboard").status_code == 302


def test_wrong_password_is_refused_without_saying_which_part(client, user_id):
    response = sign_in(client, password="not the password")
    assert response.status_code == 422
    assert "Email or password is incorrect." in response.get_data(as_text=True)
    assert 'value="ana@example.com"' in response.get_data(as_text=True)


def test_ten_failures_make_the_next_attempt_wait_even_with_the_right_password(client, user_id):
    for _ in range(10):
        assert sign_in(client, password="wrong guess!").status_code == 422
    response = sign_in(client)
    assert response.status_code == 429
    assert "paused for 2 seconds" in response.get_data(as_text=True)
    assert client.get("/dashboard").status_code == 302


def test_a_wait_on_one_email_leaves_others_alone(client, app, user_id):
    make_user(app, email="bruno@example.com")
    for _ in range(10):
        sign_in(client, password="wrong guess!")
    assert sign_in(client, email="bruno@example.com").status_code == 302


def test_sign_in_starts_a_fresh_session(client, user_id):
    with client.session_transaction() as session:
        session["planted"] = "by an attacker"
    sign_in(client)
    with client.session_transaction() as session:
        assert "planted" not in session
        assert session.get("_user_id")


def test_next_redirects_only_to_local_paths(client, user_id):
    for target, expected in [
        ("/habits", "/habits"),
        ("https://evil.example/", "/dashboard"),
        ("//evil.example/", "/dashboard"),
        ("/\\evil.example", "/dashboard"),
    ]:
        token = csrf_token_from(client.get("/login"))
        response = client.post(
            "/login",
            data={"email": "ana@example.com", "password": PASSWORD, "next": target, "csrf_token": token},
        )
        assert response.headers["Location"] == expected, target
        client.post("/logout", data={"csrf_token": csrf_token_from(client.get("/dashboard"))})


def test_a_protected_page_sends_visitors_to_sign_in_and_back(client, user_id):
    response = client.get("/notebook")
    assert response.status_code == 302
    assert "/login?next=/notebook" in response.headers["Location"]


def test_an_htmx_request_without_a_session_is_told_where_to_go(client):
    response = client.get("/dashboard", headers={"HX-Request": "true"})
    assert response.status_code == 401
    assert response.headers["HX-Redirect"].startswith("/login")


def test_logout_is_post_only(signed_in):
    assert signed_in.get("/logout").status_code == 405
    assert signed_in.get("/dashboard").status_code == 200


def request_reset(client, email):
    token = csrf_token_from(client.get("/forgot-password"))
    return client.post("/forgot-password", data={"email": email, "csrf_token": token})


def reset_link(app):
    body = app.extensions["mail"].outbox[-1].get_content()
    return re.search(r"https?://[^/\s]+(/reset-password/\S+)", body).group(1)


def test_forgot_password_mails_a_link_and_answers_the_same_for_unknown_emails(client, app, user_id):
    known = request_reset(client, "ana@example.com")
    unknown = request_reset(client, "nobody@example.com")
    assert len(app.extensions["mail"].outbox) == 1
    assert app.extensions["mail"].outbox[0]["To"] == "ana@example.com"
    assert known.status_code == unknown.status_code == 200
    assert "If an account exists" in known.get_data(as_text=True)
    assert "If an account exists" in unknown.get_data(as_text=True)


def test_the_reset_link_works_once_and_ends_old_sessions(client, app, user_id):
    old_session = app.test_client()
    sign_in(old_session)
    request_reset(client, "ana@example.com")
    link = reset_link(app)
    token = csrf_token_from(client.get(link))
    response = client.post(link, data={"password": "a brand new phrase", "csrf_token": token})
    assert response.status_code == 302
    assert sign_in(client, password="a brand new phrase").status_code == 302
    assert old_session.get("/dashboard").status_code == 302  # signed out by the reset
    again = client.get(link)
    assert "invalid or has already been used" in again.get_data(as_text=True)


def test_an_expired_reset_link_is_refused(client, app, user_id):
    request_reset(client, "ana@example.com")
    link = reset_link(app)
    app.config["PASSWORD_RESET_MAX_AGE"] = -1
    try:
        response = client.get(link)
    finally:
        app.config["PASSWORD_RESET_MAX_AGE"] = 15 * 60
    assert response.status_code == 422
    assert "has expired" in response.get_data(as_text=True)


def test_a_tampered_reset_link_is_refused(client, app, user_id):
    request_reset(client, "ana@example.com")
    response = client.get(reset_link(app) + "x")
    assert response.status_code == 422
    assert "invalid" in response.get_data(as_text=True)


def test_the_reset_refuses_a_weak_password_and_keeps_the_link(client, app, user_id):
    request_reset(client, "ana@example.com")
    link = reset_link(app)
    token = csrf_token_from(client.get(link))
    response = client.post(link, data={"password": "qwerty", "csrf_token": token})
    assert response.status_code == 422
    assert "Use at least 8 characters." in response.get_data(as_text=True)
    assert client.get(link).status_code == 200
