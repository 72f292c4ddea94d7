"""The assistant's tools, one module per domain; importing this package registers them all."""

from app.agent.tools import catalogue, goals, memory, profile, routines  # noqa: F401
