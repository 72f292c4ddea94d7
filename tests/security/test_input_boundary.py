"""What a request may carry: a NUL character is removed at the door (PostgreSQL cannot store one)
and the user is told; a body too large is refused before it is read; days, months, weekdays,
times and numbers are read strictly; signed-in answers are never stored by caches; the
development mail log reaches the console."""

import logging
import logging.handlers
import re

import pytest

from app import create_app
from app.categories.models import Category
from app.extensions import db
from app.feedback.models import Feedback
from app.profile.models import User
from app.routines import schedules
from app.routines import services as routines
from app.shared.values import whole_number_from
from app.web.forms import ECHO_MAX
from tests.conftest import PASSWORD, csrf_token_from, make_user, settings_for_tests, sign_in

NOTICE = "invisible NUL character"


def post_form(client, url, **fields):
    token = csrf_token_from(client.get(url))
    return client.post(url, data={**fields, "csrf_token": token})


def the_user(app, email="ana@example.com"):
    with app.app_context():
        return db.session.scalar(db.select(User).where(User.email == email))


# NUL characters -------------------------------------------------------------------------------


def test_nul_in_the_sign_up_forms_is_removed_and_the_user_told(app, client):
    asked = post_form(client, "/register", email="carla@example.com\x00", language="en")
    assert asked.status_code == 200 and NOTICE in asked.get_data(as_text=True)
    link = re.search(r"(/register/\S+)", app.extensions["mail"].outbox[-1].get_content()).group(1)
    response = post_form(client, link, name="Car\x00la", password="a quiet\x00 morning walk")
    assert response.status_code == 302
    assert the_user(app, "carla@example.com").name == "Carla"
    assert NOTICE in client.get("/dashboard").get_data(as_text=True)


def test_nul_in_the_sign_in_form_is_removed_and_the_user_told(client, user_id):
    response = post_form(client, "/login", email="ana@example.com\x00", password=PASSWORD)
    assert response.status_code == 302 and response.headers["Location"].endswith("/dashboard")
    assert NOTICE in client.get("/dashboard").get_data(as_text=True)


def test_a_refused_sign_in_with_nul_keeps_what_was_typed_without_it(client, user_id):
    response = post_form(client, "/login", email="ana@\x00example.com", password="wrong password")
    page = response.get_data(as_text=True)
    assert response.status_code == 422
    assert 'value="ana@example.com"' in page and NOTICE in page and "\x00" not in page


def test_nul_in_the_reset_forms_is_removed(app, client, user_id):
    assert post_form(client, "/forgot-password", email="\x00ana@example.com").status_code == 200
    body = app.extensions["mail"].outbox[-1].get_content()
    link = re.search(r"https?://[^/\s]+(/reset-password/\S+)", body).group(1)
    assert post_form(client, link, password="a brand\x00 new phrase").status_code == 302
    assert sign_in(client, password="a brand new phrase").status_code == 302


def test_nul_in_a_page_form_is_removed_and_htmx_shows_a_notice(app, signed_in):
    response = signed_in.post(
        "/feedback",
        data={"kind": "BUG", "text": "The button\x00 does nothing"},
        headers={"X-CSRFToken": signed_in.csrf, "HX-Request": "true"},
    )
    assert response.status_code == 200
    assert 'hx-swap-oob="beforeend:#toasts"' in response.get_data(as_text=True)
    assert NOTICE in response.get_data(as_text=True)
    with app.app_context():
        assert db.session.scalar(db.select(Feedback.text)) == "The button does nothing"


def test_nul_in_a_dialog_that_closes_is_said_on_the_next_page(app, signed_in):
    response = signed_in.post(
        "/categories",
        data={"name": "Mi\x00nd", "icon": "book", "experience": "BEGINNER"},
        headers={"X-CSRFToken": signed_in.csrf, "HX-Request": "true"},
    )
    assert response.status_code == 204
    with app.app_context():
        assert db.session.scalar(db.select(Category.name)) == "Mind"
    assert NOTICE in signed_in.get("/categories").get_data(as_text=True)


def test_nul_in_a_query_string_is_removed(signed_in):
    response = signed_in.get("/habits?q=ru%00n&sort=name")
    assert response.status_code == 200
    assert NOTICE in response.get_data(as_text=True)


def test_nul_in_a_path_is_removed(signed_in):
    assert signed_in.get("/categories/Mi%00nd/edit").status_code == 404


# Request size ---------------------------------------------------------------------------------


def test_a_body_over_the_limit_is_a_friendly_413_page(signed_in):
    response = signed_in.post(
        "/feedback", data={"kind": "BUG", "text": "x" * (2 * 1024 * 1024), "csrf_token": signed_in.csrf}
    )
    page = response.get_data(as_text=True)
    assert response.status_code == 413
    assert "Too much at once" in page and "<html" in page
    assert len(response.data) < 50_000


def test_a_body_over_the_limit_is_a_413_fragment_for_htmx(signed_in):
    response = signed_in.post(
        "/feedback",
        data={"kind": "BUG", "text": "x" * (2 * 1024 * 1024)},
        headers={"X-CSRFToken": signed_in.csrf, "HX-Request": "true"},
    )
    assert response.status_code == 413
    assert "<html" not in response.get_data(as_text=True)
    assert "more text than Beyou accepts" in response.get_data(as_text=True)


def test_a_multipart_field_over_the_memory_limit_is_refused_too(signed_in):
    response = signed_in.post(
        "/feedback",
        data={"kind": "BUG", "text": "x" * 300_000, "csrf_token": signed_in.csrf},
        content_type="multipart/form-data",
    )
    assert response.status_code == 413


def test_a_refused_long_text_is_never_echoed_back_whole(signed_in):
    response = signed_in.post("/feedback", data={"kind": "BUG", "text": "y" * 100_000, "csrf_token": signed_in.csrf})
    assert response.status_code == 422
    assert "Write between 5 and 4000 characters" in response.get_data(as_text=True)
    # Cut at the longest text any field takes (a mood journal's), so no refusal loses what it may save.
    assert response.get_data(as_text=True).count("y" * ECHO_MAX) == 1
    assert "y" * (ECHO_MAX + 1) not in response.get_data(as_text=True)


# Days, months and weekdays ----------------------------------------------------------------------


@pytest.fixture
def routine_id(app, user_id):
    with app.app_context():
        ana = db.session.get(User, user_id)
        routine = routines.create_list(ana, "Evenings")
        return routine.id


@pytest.mark.parametrize(
    ("url", "status"),
    [
        ("/routines?day=0001-01-01", 422),
        ("/routines/day?day=0001-01-01", 422),
        ("/routines?day=9999-12-31", 422),
        ("/routines?day=20260101", 422),
        ("/routines?month=0001-01", 200),
        ("/routines/calendar?month=0001-01", 200),
        ("/routines/calendar?month=9999-12", 200),
        ("/routines/calendar?month=2026-13", 200),
    ],
)
def test_days_and_months_out_of_range_never_crash(signed_in, url, status):
    response = signed_in.get(url)
    assert response.status_code == status
    if status == 422:
        assert "between 1900 and 2100" in response.get_data(as_text=True)


@pytest.mark.parametrize("weekdays", ["²", "٣", "1" * 5000, "7", "-1", "1.0"])
def test_weekdays_that_are_not_monday_to_sunday_are_refused(signed_in, routine_id, weekdays):
    response = signed_in.post(
        f"/routines/{routine_id}/schedule", data={"weekdays": weekdays, "csrf_token": signed_in.csrf}
    )
    assert response.status_code == 422
    assert "Choose days from Monday to Sunday" in response.get_data(as_text=True)


def test_weekday_numbers_and_names_still_schedule(app, app_context, user_id, routine_id):
    ana = db.session.get(User, user_id)
    schedules.set_days(ana, routine_id, ["0", "tue", "Wednesday"])
    assert sorted(weekday for weekday, routine in schedules.week(ana).items() if routine.id == routine_id) == [0, 1, 2]


# Signed-in answers are not stored ---------------------------------------------------------------


@pytest.mark.parametrize("url", ["/dashboard", "/habits", "/configuration", "/configuration/export"])
def test_signed_in_answers_are_never_stored_by_a_cache(signed_in, url):
    response = signed_in.get(url)
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store"


def test_signed_out_pages_and_static_files_keep_their_caching(client, signed_in):
    assert "no-store" not in (client.application.test_client().get("/login").headers.get("Cache-Control") or "")
    assert "no-store" not in (signed_in.get("/static/js/app.js").headers.get("Cache-Control") or "")


# The development mail log ---------------------------------------------------------------------


def test_a_reset_mail_reaches_the_log_in_development(tmp_path):
    """Read on the mail's own logger, not through the root's (caplog): what reaches the root
    depends on the propagation that earlier tests in the same process left."""
    app = create_app("development", **settings_for_tests(SQLALCHEMY_DATABASE_URI=f"sqlite:///{tmp_path / 'dev.db'}"))
    with app.app_context():
        db.create_all()
    make_user(app)
    client = app.test_client()
    kept, mail_log = logging.handlers.BufferingHandler(capacity=100), logging.getLogger("beyou.mail")
    mail_log.addHandler(kept)
    try:
        answer = post_form(client, "/forgot-password", email="ana@example.com")
    finally:
        mail_log.removeHandler(kept)
    assert answer.status_code == 200, answer.status_code  # a refusal (429) would send no mail
    assert len(app.extensions["mail"].outbox) == 1
    assert [record.levelno for record in kept.buffer] == [logging.INFO]
    assert "/reset-password/" in kept.buffer[0].getMessage()
    assert logging.getLogger("beyou").getEffectiveLevel() == logging.INFO
    with app.app_context():
        db.engine.dispose()


def test_under_gunicorn_the_log_joins_gunicorns_handlers(tmp_path):
    from app import configure_logging

    beyou, gunicorn = logging.getLogger("beyou"), logging.getLogger("gunicorn.error")
    saved = (beyou.handlers[:], beyou.level, beyou.propagate, getattr(beyou, "beyou_configured", False))
    handler = logging.StreamHandler()
    gunicorn.addHandler(handler)
    gunicorn.setLevel(logging.WARNING)
    beyou.beyou_configured = False
    try:
        configure_logging("production")
        assert beyou.handlers == [handler] and beyou.level == logging.WARNING and not beyou.propagate
    finally:
        gunicorn.removeHandler(handler)
        gunicorn.setLevel(logging.NOTSET)
        beyou.handlers, beyou.level, beyou.propagate, beyou.beyou_configured = saved


def test_a_whole_number_is_ascii_digits_in_range_and_never_too_long_for_int():
    assert [whole_number_from(value, 99) for value in ("7", " 12 ", "007", 42, "99")] == [7, 12, 7, 42, 99]
    refused = ("²", "١", "٣", "1" * 5000, "100", "-1", "1.0", "1e2", "", None, True, 3.0, "7 7")
    assert [whole_number_from(value, 99) for value in refused] == [None] * len(refused)
