"""The assistant's tools, one module per domain; importing this package registers them all."""

from app.agent.tools import catalogue, goals, memory, profile, routines, toolsets  # noqa: F401
