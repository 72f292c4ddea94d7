"""The assistant's tools, one module per domain; importing this package registers them all."""

from app.agent.tools import memory  # noqa: F401
