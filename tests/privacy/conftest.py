"""The assistant's wire fake and its app, for the statements proved over a real turn."""

from tests.assistant.conftest import agent_app, agent_db_url, fake, fake_providers, make_agent_app

__all__ = ["agent_app", "agent_db_url", "fake", "fake_providers", "make_agent_app"]
