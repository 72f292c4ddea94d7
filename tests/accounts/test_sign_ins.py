"""Sign-ins live on the server: signing out (here or everywhere) ends every copy of the cookies,
a remembered sign-in lasts thirty days, and a password reset ends them all."""

import re
from datetime import UTC, datetime, timedelta

from app.extensions import db
from app.profile.models import UserSession
from tests.conftest import PASSWORD, csrf_token_from, make_user, sign_in


def remembered_sign_in(client, email="ana@example.com"):
    token = csrf_token_from(client.get("/login"))
    return client.post("/login", data={"email": email, "password": PASSWORD, "remember": "on", "csrf_token": token})


def copy_of(app, client, *names):
    """Another browser holding copies of `client`'s cookies `names` (what a thief would copy)."""
    thief = app.test_client()
    for name in names:
        cookie = client.get_cookie(name)
        assert cookie is not None, f"no {name} cookie to copy"
        thief.set_cookie(name, cookie.value)
    return thief


def sign_out(client):
    token = csrf_token_from(client.get("/dashboard"))
    return client.post("/logout", data={"csrf_token": token})


def test_a_copied_session_cookie_stops_working_after_sign_out(app, client, user_id):
    sign_in(client)
    copy = copy_of(app, client, "session")
    assert copy.get("/dashboard").status_code == 200
    sign_out(client)
    assert copy.get("/dashboard").status_code == 302


def test_a_copied_remember_me_cookie_stops_working_after_sign_out(app, client, user_id):
    remembered_sign_in(client)
    assert copy_of(app, client, "remember_token").get("/dashboard").status_code == 200  # it alone signs in
    copied_later = copy_of(app, client, "remember_token")
    sign_out(client)
    assert copied_later.get("/dashboard").status_code == 302


def test_signing_out_ends_only_that_sign_in(app, client, user_id):
    sign_in(client)
    laptop = app.test_client()
    sign_in(laptop)
    sign_out(client)
    assert laptop.get("/dashboard").status_code == 200


def test_a_remembered_sign_in_lasts_thirty_days(app, client, user_id):
    response = remembered_sign_in(client)
    cookie = next(value for value in response.headers.getlist("Set-Cookie") if value.startswith("remember_token="))
    expires = datetime.strptime(re.search(r"Expires=([^;]+)", cookie).group(1), "%a, %d %b %Y %H:%M:%S GMT")
    assert timedelta(days=29) < expires.replace(tzinfo=UTC) - datetime.now(UTC) <= timedelta(days=30)
    with app.app_context():
        (row,) = db.session.scalars(db.select(UserSession)).all()
        assert row.expires_at - row.created_at == timedelta(days=30)


def test_a_sign_in_past_its_thirty_days_is_refused_on_the_server(app, client, user_id):
    remembered_sign_in(client)
    copy = copy_of(app, client, "remember_token")
    with app.app_context():
        db.session.execute(db.update(UserSession).values(expires_at=datetime.now(UTC) - timedelta(seconds=1)))
        db.session.commit()
    assert copy.get("/dashboard").status_code == 302
    assert client.get("/dashboard").status_code == 302


def test_the_sign_in_key_is_stored_only_as_a_digest(app, client, user_id):
    remembered_sign_in(client)
    with app.app_context():
        (row,) = db.session.scalars(db.select(UserSession)).all()
    assert row.id not in client.get_cookie("remember_token").value
    assert len(row.id) == 64


def test_sign_out_everywhere_ends_every_session_and_remember_me_cookie(app, client, user_id):
    sign_in(client)
    phone = app.test_client()
    remembered_sign_in(phone)
    phone_copy = copy_of(app, phone, "remember_token")
    token = csrf_token_from(client.get("/configuration"))
    response = client.post("/configuration/sign-out-everywhere", data={"csrf_token": token})
    assert response.status_code == 302 and response.headers["Location"].endswith("/login")
    assert "signed out on every device" in client.get("/login").get_data(as_text=True)
    for browser in (client, phone, phone_copy):
        assert browser.get("/dashboard").status_code == 302
    with app.app_context():
        assert db.session.scalar(db.select(db.func.count()).select_from(UserSession)) == 0


def test_sign_out_everywhere_leaves_other_accounts_signed_in(app, client, user_id, other_signed_in):
    sign_in(client)
    token = csrf_token_from(client.get("/configuration"))
    client.post("/configuration/sign-out-everywhere", data={"csrf_token": token})
    assert other_signed_in.get("/dashboard").status_code == 200


def test_sign_out_everywhere_asks_first_and_answers_htmx_with_a_redirect(signed_in):
    page = signed_in.get("/configuration").get_data(as_text=True)
    form = re.search(r'<form[^>]*data-testid="sign-out-everywhere"[^>]*>', page, re.S).group(0)
    assert "hx-confirm=" in form
    response = signed_in.post(
        "/configuration/sign-out-everywhere", headers={"X-CSRFToken": signed_in.csrf, "HX-Request": "true"}
    )
    assert response.headers["HX-Redirect"] == "/login"


def test_a_password_reset_ends_remembered_sign_ins_too(app, client, user_id):
    phone = app.test_client()
    remembered_sign_in(phone)
    phone_copy = copy_of(app, phone, "remember_token")
    token = csrf_token_from(client.get("/forgot-password"))
    client.post("/forgot-password", data={"email": "ana@example.com", "csrf_token": token})
    body = app.extensions["mail"].outbox[-1].get_content()
    link = re.search(r"https?://[^/\s]+(/reset-password/\S+)", body).group(1)
    token = csrf_token_from(client.get(link))
    client.post(link, data={"password": "a brand new phrase", "csrf_token": token})
    assert phone_copy.get("/dashboard").status_code == 302


def test_signing_up_with_a_taken_email_mails_its_owner_once_an_hour(app, client):
    make_user(app, email="carla@example.com", name="Carla")
    for _ in range(3):
        token = csrf_token_from(client.get("/register"))
        response = client.post(
            "/register",
            data={"email": "carla@example.com", "language": "en", "csrf_token": token},
        )
        assert response.status_code == 200  # answered as for a free address
    outbox = app.extensions["mail"].outbox
    assert [message["To"] for message in outbox] == ["carla@example.com"]
    assert "tried to create a Beyou account" in outbox[0].get_content()
    assert "/forgot-password" in outbox[0].get_content()
