"""The assistant's wire fake and an app whose chain points at it, for the onboarding door."""

import json

from tests.assistant.conftest import AgentClient, Reply, agent_app, agent_db_url, fake, fake_providers, make_agent_app
from tests.conftest import make_user

__all__ = ["agent_app", "agent_db_url", "fake", "fake_providers", "make_agent_app"]


def says(payload):
    """A fake reply holding this JSON answer."""
    return Reply.says(json.dumps(payload))


class Wizard(AgentClient):
    """A signed-in browser on /onboarding: each step's forms, posted the way htmx posts them."""

    def suggest(self, step, said):
        return self.post(f"/onboarding/{step}/suggest", said=said)

    def accept(self, step, *kept, **fields):
        data = {"keep": [str(index) for index in kept], **fields, "csrf_token": self.csrf}
        return self.http.post(f"/onboarding/{step}/accept", data=data, headers={"HX-Request": "true"})

    def next(self, step):
        return self.post(f"/onboarding/{step}/next")


def a_wizard(app, **user):
    make_user(app, **user)
    return Wizard(app, email=user.get("email", "ana@example.com"))
