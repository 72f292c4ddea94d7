"""The shell every signed-in page lives in: navigation, themes, errors, health, language."""

import pytest
from flask_login import login_required

from app import create_app, events
from app.extensions import db
from app.profile.models import User
from tests.conftest import csrf_token_from, make_user, sign_in, standalone_app


def test_the_dashboard_shows_the_navigation(signed_in):
    page = signed_in.get("/dashboard").get_data(as_text=True)
    for label in (
        "Dashboard",
        "Routines",
        "Habits",
        "Tasks",
        "Goals",
        "Notebook",
        "Ideas",
        "Mood",
        "Configuration",
    ):
        assert f"<span>{label}</span>" in page
    assert 'class="bottom-bar"' in page


def test_every_navigation_link_leads_to_its_own_page(app, signed_in):
    from app.web.navigation import AREAS

    with app.test_request_context():
        targets = {area.slug: area.url for area in AREAS}
    for slug, target in targets.items():
        assert signed_in.get(target).status_code == 200, slug
    assert signed_in.get("/soon/notebook").status_code == 404  # every area is built: no "coming soon" page


def test_the_theme_follows_the_users_setting(app, signed_in, user_id):
    assert 'data-theme="system"' in signed_in.get("/dashboard").get_data(as_text=True)
    with app.app_context():
        db.session.get(User, user_id).theme = "dark"
        db.session.commit()
    assert 'data-theme="dark"' in signed_in.get("/dashboard").get_data(as_text=True)


def test_a_portuguese_user_gets_portuguese(app, client):
    make_user(app, email="rita@example.com", name="Rita", language="pt")
    sign_in(client, email="rita@example.com")
    page = client.get("/dashboard", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Olá, Rita" in page
    assert "<span>Hábitos</span>" in page


def test_not_found_is_a_full_page_or_a_fragment(signed_in):
    full = signed_in.get("/nowhere")
    fragment = signed_in.get("/nowhere", headers={"HX-Request": "true"})
    assert full.status_code == fragment.status_code == 404
    assert "<html" in full.get_data(as_text=True) and 'class="sidebar"' in full.get_data(as_text=True)
    assert "<html" not in fragment.get_data(as_text=True)
    assert 'data-status="404"' in fragment.get_data(as_text=True)
    assert "HX-Request" in full.headers["Vary"]


def test_a_signed_out_404_uses_the_plain_layout(client):
    page = client.get("/nowhere").get_data(as_text=True)
    assert 'data-status="404"' in page and 'class="sidebar"' not in page


@pytest.fixture
def fragile_app():
    """An app with two extra routes: one that crashes and one that announces domains."""
    app = standalone_app()

    @app.get("/crash")
    def crash():
        raise RuntimeError("secret internals")

    @app.post("/announce")
    @login_required
    def announce():
        from flask_login import current_user

        events.announce(current_user, "habits", "routines")
        return "ok"

    return app


def test_an_unexpected_error_is_a_friendly_500_without_internals(fragile_app):
    client = fragile_app.test_client()
    full = client.get("/crash")
    fragment = client.get("/crash", headers={"HX-Request": "true"})
    assert full.status_code == fragment.status_code == 500
    assert "secret internals" not in full.get_data(as_text=True)
    assert "Something went wrong" in full.get_data(as_text=True)
    assert "<html" not in fragment.get_data(as_text=True)


def test_announced_domains_become_an_hx_trigger_header(fragile_app):
    make_user(fragile_app)
    client = fragile_app.test_client()
    sign_in(client)
    token = csrf_token_from(client.get("/dashboard"))
    response = client.post("/announce", headers={"X-CSRFToken": token})
    assert response.headers["HX-Trigger"] == "domain:habits, domain:routines"
    assert "HX-Trigger" not in client.get("/dashboard").headers


def test_healthz_reports_the_database(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json == {"status": "ok", "database": True}


def test_healthz_says_when_the_database_is_unreachable():
    app = create_app("test", SQLALCHEMY_DATABASE_URI="postgresql+psycopg://nobody@127.0.0.1:1/none")
    response = app.test_client().get("/healthz")
    assert response.status_code == 503
    assert response.json["database"] is False
