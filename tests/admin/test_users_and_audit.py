"""/admin/users and the audit log: accounts without their content, and every admin view and
action on record; non-admins get the answer they always got (403, or the login page)."""

from datetime import timedelta

import pytest

from app.admin import services as accounts_admin
from app.admin.models import AdminAuditEntry
from app.assistant import services as assistant
from app.categories import services as categories
from app.extensions import db
from app.feedback import services as feedback
from app.habits import services as habits
from app.profile.models import User
from app.shared.errors import Forbidden
from app.shared.models import utcnow
from tests.conftest import csrf_token_from, make_user, sign_in

ADMIN_PAGES = ("/admin/", "/admin/users", "/admin/audit", "/admin/llm", "/admin/feedback", "/admin/metrics")


@pytest.fixture
def admin_client(app, other_user_id):
    """Bruno, an admin, signed in."""
    app.test_cli_runner().invoke(args=["users", "make-admin", "bruno@example.com"])
    client = app.test_client()
    sign_in(client, email="bruno@example.com")
    client.csrf = csrf_token_from(client.get("/dashboard"))
    return client


def entries(app):
    with app.app_context():
        return [
            (entry.action, entry.endpoint, entry.path, entry.detail, entry.times)
            for entry in db.session.scalars(db.select(AdminAuditEntry).order_by(AdminAuditEntry.created_at))
        ]


@pytest.mark.parametrize("path", [*ADMIN_PAGES, "/admin/users?page=2"])
def test_non_admins_get_403_and_leave_no_entry(app, signed_in, path):
    assert signed_in.get(path).status_code == 403
    assert entries(app) == []


@pytest.mark.parametrize("path", ADMIN_PAGES)
def test_signed_out_visitors_go_to_the_login_page(app, client, path):
    response = client.get(path)
    assert response.status_code == 302 and "/login" in response.headers["Location"]
    assert entries(app) == []


def test_a_non_admin_triaging_feedback_is_refused_and_not_recorded(app, signed_in, ana):
    item = feedback.submit(ana, "BUG", "The chart is broken")
    response = signed_in.post(
        f"/admin/feedback/{item.id}/status", data={"status": "DONE", "csrf_token": signed_in.csrf}
    )
    assert response.status_code == 403
    assert entries(app) == []


def test_the_users_page_shows_counts_dates_and_the_flag_but_no_content(app, admin_client, ana):
    shelf = categories.create(ana, name="Private shelf", icon="book")
    habits.create(ana, name="Secret habit", importance=1, difficulty=1, categories=[shelf.id])
    assistant.create_chat(ana, "About my week")
    page = admin_client.get("/admin/users").get_data(as_text=True)
    assert 'data-testid="count-accounts">2<' in page and 'data-testid="count-admins">1<' in page
    assert 'data-testid="count-signed_up_recently">2<' in page and 'data-testid="count-active_recently">2<' in page
    assert "ana@example.com" in page and "bruno@example.com" in page
    assert "Secret habit" not in page and "Private shelf" not in page and "About my week" not in page
    assert page.count("<time datetime=") == 4  # both sign-ups, both last activities
    assert entries(app) == [("view", "admin.users", "/admin/users", None, 1)]


def test_the_users_page_pages_fifty_at_a_time(app, admin_client):
    for number in range(accounts_admin.PAGE_SIZE):
        make_user(app, email=f"person{number}@example.com", name=f"Person {number}")
    first = admin_client.get("/admin/users").get_data(as_text=True)
    second = admin_client.get("/admin/users?page=2").get_data(as_text=True)
    assert first.count("data-account=") == accounts_admin.PAGE_SIZE and 'rel="next"' in first
    assert second.count("data-account=") == 1 and 'rel="prev"' in second
    assert admin_client.get("/admin/users?page=oops").status_code == 200


def test_every_admin_view_and_action_is_in_the_audit_log(app, admin_client, ana):
    item = feedback.submit(ana, "BUG", "The chart is broken")
    for path in ADMIN_PAGES:
        assert admin_client.get(path).status_code == 200, path
    response = admin_client.post(
        f"/admin/feedback/{item.id}/status", data={"status": "DONE"}, headers={"X-CSRFToken": admin_client.csrf}
    )
    assert response.status_code == 200
    recorded = entries(app)
    assert [(action, endpoint) for action, endpoint, *_ in recorded] == [
        ("view", "admin.index"),
        ("view", "admin.users"),
        ("view", "admin.audit"),
        ("view", "admin.llm_chain"),
        ("view", "admin.feedback_inbox"),
        ("view", "admin.metrics"),
        ("change", "admin.feedback_status"),
    ]
    assert recorded[-1][2:4] == (f"/admin/feedback/{item.id}/status", "status=DONE")
    log = admin_client.get("/admin/audit").get_data(as_text=True)
    assert log.count("<tr data-endpoint=") == 8 and "status=DONE" in log and "bruno@example.com" in log


def test_a_page_refreshing_itself_is_one_entry_while_it_stays_open(app, admin_client):
    for _ in range(3):
        admin_client.get("/admin/llm", headers={"HX-Request": "true"})
    assert entries(app) == [("view", "admin.llm_chain", "/admin/llm", None, 3)]
    admin_client.get("/admin/llm?x=1")
    assert len(entries(app)) == 2  # another view is another entry


def test_a_repeat_after_the_window_is_a_new_entry(bruno):
    bruno.is_admin = True
    now = utcnow()
    accounts_admin.record(bruno, "admin.users", "/admin/users", now=now)
    accounts_admin.record(bruno, "admin.users", "/admin/users", now=now + accounts_admin.REPEAT_WINDOW)
    accounts_admin.record(bruno, "admin.users", "/admin/users", now=now + 3 * accounts_admin.REPEAT_WINDOW)
    times = [entry.times for entry in db.session.scalars(db.select(AdminAuditEntry).order_by(AdminAuditEntry.last_at))]
    assert times == [2, 1]


def test_actions_are_never_folded_into_one_entry(bruno):
    bruno.is_admin = True
    for _ in range(2):
        accounts_admin.record(bruno, "admin.feedback_status", "/admin/feedback/1/status", change=True, detail="s=D")
    assert db.session.scalar(db.select(db.func.count()).select_from(AdminAuditEntry)) == 2


@pytest.mark.parametrize(
    "call",
    [
        lambda user: accounts_admin.users_overview(user),
        lambda user: accounts_admin.audit_log(user),
        lambda user: accounts_admin.record(user, "admin.users", "/admin/users"),
    ],
)
def test_the_service_refuses_non_admins(ana, call):
    with pytest.raises(Forbidden):
        call(ana)


def test_last_activity_is_the_latest_sign_in_or_conversation(ana, bruno):
    bruno.is_admin = True
    ana.last_login_at = utcnow() - timedelta(days=40)
    db.session.commit()
    chat = assistant.create_chat(ana, "Later")
    overview = accounts_admin.users_overview(bruno)
    line = next(account for account in overview["accounts"] if account.email == "ana@example.com")
    assert abs(line.last_activity - chat.last_activity_at.replace(tzinfo=line.last_activity.tzinfo)) < timedelta(
        seconds=1
    )
    assert db.session.get(User, bruno.id).is_admin


def test_the_admin_index_links_the_inbox_users_chain_and_audit(admin_client):
    page = admin_client.get("/admin/").get_data(as_text=True)
    for endpoint in ("/admin/feedback", "/admin/users", "/admin/llm", "/admin/audit"):
        assert f'href="{endpoint}"' in page
