"""Everything that talks to a model goes through this package.

A service asks for the model through one door, named for its metrics and optionally with its
own per-user rate bucket (app/llm/door.py):

    for event in model("agent").stream(ChatRequest(system=..., messages=[Message.user("hi")])):
        ...
    plan = model("briefing", bucket=RateBucket("briefing", "BRIEFING_RATE_LIMIT")).structured(
        request, Briefing, user=user)

See docs/llm.md for the rules (order and blocklist, typed failures, cooldowns, portable
transcripts, structured output, the model's window) and how to add a provider.
"""

from __future__ import annotations

import logging
import os
import time
from typing import TYPE_CHECKING

import click

from app.llm.chain import EXTENSION_KEY, Chain, LastError, LinkState, Wake, current_chain
from app.llm.cooldowns import Clock
from app.llm.door import BudgetSpent, Model, RateBucket, model
from app.llm.errors import (
    ChainConfigError,
    ChainExhausted,
    DeadlineReached,
    FailureKind,
    LLMError,
    LLMNotConfigured,
    StreamInterrupted,
)
from app.llm.messages import (
    AssistantReply,
    ChatRequest,
    Completed,
    Message,
    PromptPieces,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallReady,
    ToolSpec,
    Usage,
    Waiting,
    read_content,
)
from app.llm.settings import ChainSettings, LinkSettings, Timeouts
from app.llm.structured import AnswerUnreadable
from app.llm.windows import ContextTooSmall, Trimmable, WindowTooSmall

if TYPE_CHECKING:
    from flask import Flask

log = logging.getLogger(__name__)


def build_chain(settings: ChainSettings, *, clock: Clock = time.time) -> Chain:
    """Builds one adapter per effective link. Blocked and skipped links get no client at all."""
    from app.llm.providers import ADAPTERS

    adapters = [ADAPTERS[link.kind](link, settings.timeouts) for link in settings.links]
    return Chain(settings, adapters, clock=clock)


def init_app(app: Flask) -> Chain:
    """Builds the chain at boot; a `ChainConfigError` propagates so a bad line-up refuses to boot.

    Settings come from `os.environ`, overridden by `app.config["LLM_ENV"]` (how tests point links
    at the fake providers). Under test only `LLM_ENV` counts, so a developer's real API keys can
    never make a test reach a provider.
    """
    overrides = app.config.get("LLM_ENV", {})
    environ = dict(overrides) if app.testing else {**os.environ, **overrides}
    environ["BEYOU_ENV"] = app.config["ENV_NAME"]  # the app's profile decides, e.g. create_app("production")
    settings = ChainSettings.from_env(environ)
    level, line_up = settings.describe()
    log.log(level if _serving() else logging.DEBUG, "%s", line_up)
    chain = build_chain(settings)
    app.extensions[EXTENSION_KEY] = chain
    return chain


def _serving() -> bool:
    """Whether this process serves requests, so the line-up is news to whoever started it.

    `make run` runs `flask db upgrade` and `flask seed-demo` before `flask run`: each command
    builds the app, and the line-up is said once, by the command that serves (`run`, or a process
    that is no command at all, such as a gunicorn worker). A bad line-up still stops every command.
    """
    command = click.get_current_context(silent=True)
    return command is None or command.info_name == "run"


__all__ = [
    "AnswerUnreadable",
    "AssistantReply",
    "BudgetSpent",
    "Chain",
    "ChainConfigError",
    "ChainExhausted",
    "ChainSettings",
    "ChatRequest",
    "Completed",
    "ContextTooSmall",
    "DeadlineReached",
    "FailureKind",
    "LLMError",
    "LLMNotConfigured",
    "LastError",
    "LinkSettings",
    "LinkState",
    "Message",
    "Model",
    "PromptPieces",
    "RateBucket",
    "StreamEvent",
    "StreamInterrupted",
    "TextDelta",
    "Timeouts",
    "ToolCall",
    "ToolCallReady",
    "ToolSpec",
    "Trimmable",
    "Usage",
    "Waiting",
    "Wake",
    "WindowTooSmall",
    "build_chain",
    "current_chain",
    "init_app",
    "model",
    "read_content",
]
