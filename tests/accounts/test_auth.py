"""Registration, sign-in, lockout, sign-out and password reset, as a visitor sees them."""

import re

import pytest
from argon2 import PasswordHasher
from sqlalchemy import event

from app.extensions import db
from app.profile import accounts
from app.profile.models import User
from app.shared.errors import Invalid
from tests.conftest import PASSWORD, csrf_token_from, make_user, sign_in


def ask_to_sign_up(client, email="carla@example.com", language="en"):
    token = csrf_token_from(client.get("/register"))
    return client.post("/register", data={"email": email, "language": language, "csrf_token": token})


def sign_up_link(app, email="carla@example.com"):
    """The path of the link in the last mail to `email`."""
    (mail,) = [message for message in app.extensions["mail"].outbox if message["To"] == email][-1:]
    return re.search(r"https?://[^/\s]+(/register/\S+)", mail.get_content()).group(1)


def finish(client, link, **fields):
    """The link's form sent as a browser sends it (its read-only email included)."""
    page = client.get(link)
    email = re.search(r'name="email" type="email" value="([^"]*)"', page.get_data(as_text=True)).group(1)
    data = {"email": email, "name": "Carla", "password": "a quiet morning walk", **fields}
    return client.post(link, data={**data, "csrf_token": csrf_token_from(page)})


def register(client, email="carla@example.com", language="en", **fields):
    """The whole sign-up: the address, then the mailed link's page."""
    assert ask_to_sign_up(client, email, language).status_code == 200
    return finish(client, sign_up_link(client.application, accounts.normalise_email(email)), **fields)


def user_by_email(app, email):
    with app.app_context():
        return db.session.scalar(db.select(User).where(User.email == email))


def test_registration_signs_the_new_user_in_from_the_mailed_link(client, app):
    asked = ask_to_sign_up(client)
    assert asked.status_code == 200
    assert "Check your inbox at carla@example.com" in asked.get_data(as_text=True)
    assert user_by_email(app, "carla@example.com") is None  # nothing until the link is used
    (mail,) = app.extensions["mail"].outbox
    assert mail["Subject"] == "Finish creating your Beyou account"
    response = finish(client, sign_up_link(app), timezone="America/Sao_Paulo")
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


def test_a_refused_address_is_kept_as_typed(client, app):
    response = ask_to_sign_up(client, email="not-an-email")
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert 'value="not-an-email"' in page
    assert "Enter a valid email address." in page
    assert not app.extensions["mail"].outbox


def test_a_refused_name_or_password_keeps_the_name_and_never_echoes_the_password(client, app):
    ask_to_sign_up(client)
    response = finish(client, sign_up_link(app), name="C", password="short")
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert 'value="C"' in page and 'value="carla@example.com"' in page
    assert "Use at least 8 characters." in page
    assert "short" not in re.findall(r'value="([^"]*)"', page)  # a password is never echoed back
    assert user_by_email(app, "carla@example.com") is None


def test_a_very_common_password_is_refused(client, app):
    response = register(client, password="password123")
    assert response.status_code == 422
    assert "too common" in response.get_data(as_text=True)


def same_page(response, email):
    """The page without what differs by design: the address typed and the form's CSRF token."""
    page = response.get_data(as_text=True).replace(email, "EMAIL")
    return response.status_code, re.sub(r'(name="csrf[-_]token" (?:content|value)=)"[^"]+"', r"\1", page)


def test_registration_answers_alike_for_a_taken_email(app, user_id):
    taken = ask_to_sign_up(app.test_client(), email="ANA@example.com")
    free = ask_to_sign_up(app.test_client(), email="dora@example.com")
    assert same_page(taken, "ana@example.com") == same_page(free, "dora@example.com")
    assert "Check your inbox at ana@example.com" in taken.get_data(as_text=True)
    owner_notice, link = app.extensions["mail"].outbox
    assert owner_notice["To"] == "ana@example.com"
    assert owner_notice["Subject"] == "Someone tried to sign up to Beyou with your email"
    assert "/register/" not in owner_notice.get_content() and "/forgot-password" in owner_notice.get_content()
    assert link["To"] == "dora@example.com"


def test_asking_to_sign_up_costs_the_same_for_a_taken_email(app, user_id, monkeypatch):
    """The same statements, the same mails and the same password work (none: no password is
    hashed before the link is used), so the time it takes tells nothing either."""
    work = {"hashes": 0, "statements": 0}

    def counted(method):
        def run(self, *args, **kwargs):
            work["hashes"] += 1
            return method(self, *args, **kwargs)

        return run

    for name in ("hash", "verify"):
        monkeypatch.setattr(PasswordHasher, name, counted(getattr(PasswordHasher, name)))

    def statement(*_args):
        work["statements"] += 1

    with app.app_context():
        engine = db.engine
    costs = []
    for email in ("ana@example.com", "dora@example.com"):
        client = app.test_client()
        token = csrf_token_from(client.get("/register"))
        sent_before = len(app.extensions["mail"].outbox)
        work.update(hashes=0, statements=0)
        event.listen(engine, "before_cursor_execute", statement)
        try:
            client.post("/register", data={"email": email, "language": "en", "csrf_token": token})
        finally:
            event.remove(engine, "before_cursor_execute", statement)
        costs.append((work["hashes"], work["statements"], len(app.extensions["mail"].outbox) - sent_before))
    assert costs[0] == costs[1]
    assert costs[0][0] == 0 and costs[0][1] > 0 and costs[0][2] == 1


def test_an_address_gets_one_sign_up_mail_an_hour_whether_or_not_it_has_an_account(app, client, user_id):
    for email in ("ana@example.com", "dora@example.com"):
        first, again = ask_to_sign_up(client, email), ask_to_sign_up(client, email)
        assert same_page(first, email) == same_page(again, email)
    assert [mail["To"] for mail in app.extensions["mail"].outbox] == ["ana@example.com", "dora@example.com"]


def test_no_account_exists_until_its_link_is_used(app, client):
    ask_to_sign_up(client)
    assert sign_in(client, email="carla@example.com", password="a quiet morning walk").status_code == 422
    assert user_by_email(app, "carla@example.com") is None


def test_a_sign_up_link_works_until_its_account_exists(app, client):
    ask_to_sign_up(client)
    link = sign_up_link(app)
    assert finish(client, link).status_code == 302
    token = csrf_token_from(client.get("/dashboard"))
    client.post("/logout", data={"csrf_token": token})
    again = client.get(link)
    assert again.status_code == 422
    assert "This sign-up link was used already" in again.get_data(as_text=True)
    refused = client.post(link, data={"name": "Mallory", "password": "another long phrase", "csrf_token": token})
    assert refused.status_code in (400, 422)
    assert user_by_email(app, "carla@example.com").name == "Carla"


def test_an_address_registered_twice_at_the_same_moment_is_refused_not_a_server_error(app, monkeypatch):
    """Two uses of one link at once both pass the 'is it taken' read; the second commit meets the
    unique index, and is refused as taken instead of answering 500."""

    class TheOtherRequestCommitsFirst:
        def hash(self, password):
            db.session.add(User(name="Twin", email="carla@example.com", password_hash=hasher.hash(password)))
            db.session.commit()
            return hasher.hash(password)

    with app.app_context():
        hasher = accounts._hasher()
        monkeypatch.setattr(accounts, "_hasher", TheOtherRequestCommitsFirst)
        with pytest.raises(Invalid) as refused:
            accounts.register(name="Carla", email="carla@example.com", password="a long enough phrase")
        assert refused.value.details == {"email": "EMAIL_TAKEN"}
        assert [u.name for u in db.session.scalars(db.select(User).where(User.email == "carla@example.com"))] == [
            "Twin"
        ]


def test_an_expired_sign_up_link_is_refused(app, client):
    ask_to_sign_up(client)
    link = sign_up_link(app)
    app.config["SIGN_UP_LINK_MAX_AGE"] = -1
    try:
        response = client.get(link)
    finally:
        app.config["SIGN_UP_LINK_MAX_AGE"] = 24 * 60 * 60
    assert response.status_code == 422
    assert "This sign-up link has expired" in response.get_data(as_text=True)


def test_a_forged_sign_up_link_is_refused(app, client):
    ask_to_sign_up(client)
    response = client.get(sign_up_link(app) + "x")
    assert response.status_code == 422
    assert "This sign-up link is not valid" in response.get_data(as_text=True)


def test_the_sign_up_mail_speaks_the_language_asked_for(app, client):
    ask_to_sign_up(client, language="pt")
    (mail,) = app.extensions["mail"].outbox
    assert mail["Subject"] == "Termine de criar sua conta no Beyou"
    finish(client, sign_up_link(app))
    assert user_by_email(app, "carla@example.com").language == "pt"


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
