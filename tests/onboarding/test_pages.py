"""Where the wizard sits: new accounts land on it, the demo never does, and it is a page that
answers in both languages without any model call."""

from app.extensions import db
from app.onboarding.models import OnboardingRun, OnboardingStatus
from app.profile.models import User
from tests.accounts.test_auth import register
from tests.conftest import sign_in


def test_a_new_account_lands_on_the_setup_assistant(client):
    response = register(client)
    assert response.headers["Location"].endswith("/onboarding")
    page = client.get("/onboarding").get_data(as_text=True)
    assert 'data-step="CATEGORIES"' in page and "Skip the setup" in page
    assert "data-agent-open" not in page  # the assistant appears once the wizard is finished or skipped


def test_the_wizard_speaks_portuguese_to_a_portuguese_account(client):
    register(client, language="pt")
    page = client.get("/onboarding").get_data(as_text=True)
    assert "Pular a configuração" in page and "nenhum foi configurado neste servidor" in page


def test_the_dashboard_card_leads_to_the_wizard_until_it_is_done(signed_in):
    dashboard = signed_in.get("/dashboard").get_data(as_text=True)
    assert 'data-testid="welcome"' in dashboard and 'href="/onboarding"' in dashboard
    signed_in.post("/onboarding/skip", data={"csrf_token": signed_in.csrf})
    assert 'data-testid="welcome"' not in signed_in.get("/dashboard").get_data(as_text=True)


def test_the_demo_account_is_never_sent_to_the_wizard(demo_app):
    with demo_app.app_context():
        demo = db.session.scalar(db.select(User).where(User.email == demo_app.config["DEMO_EMAIL"]))
        run = db.session.scalar(db.select(OnboardingRun).where(OnboardingRun.user_id == demo.id))
        assert demo.tutorial_done and run.status == OnboardingStatus.FINISHED
    client = demo_app.test_client()
    sign_in(client, email=demo_app.config["DEMO_EMAIL"], password=demo_app.config["DEMO_PASSWORD"])
    assert 'data-testid="welcome"' not in client.get("/dashboard").get_data(as_text=True)
