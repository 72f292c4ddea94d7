"""The chain's line-up, read from the environment once at boot.

The blocklist is a data-protection decision, not a tuning knob: it is checked before anything
else, and in production it is pinned here, in committed code, so the environment can widen it
but never narrow it. A line-up that leaves no link refuses to boot rather than serving a dead
assistant.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from app.llm.errors import ChainConfigError

ProviderKind = Literal["openai", "gemini"]


@dataclass(frozen=True)
class LinkDefaults:
    kind: ProviderKind
    base_url: str | None
    model: str | None
    key_names: tuple[str, ...] = ()
    needs_key: bool = True
    # A self-hosted server says how many tokens it holds (app/llm/windows.py); a hosted API's
    # window is large and says nothing, so it is only known when BEYOU_LLM_<NAME>_CONTEXT is set.
    tells_its_window: bool = False


CATALOGUE: dict[str, LinkDefaults] = {
    "mistral": LinkDefaults("openai", "https://api.mistral.ai/v1", "mistral-small-latest", ("MISTRAL_API_KEY",)),
    "gemini": LinkDefaults("gemini", None, "gemini-2.5-flash", ("GEMINI_API_KEY", "GOOGLE_API_KEY")),
    "glm": LinkDefaults("openai", "https://api.z.ai/api/paas/v4", "glm-4.7-flash", ("GLM_API_KEY", "ZAI_API_KEY")),
    "nvidia": LinkDefaults(
        "openai", "https://integrate.api.nvidia.com/v1", "meta/llama-3.3-70b-instruct", ("NVIDIA_API_KEY",)
    ),
    "deepseek": LinkDefaults("openai", "https://api.deepseek.com", "deepseek-v4-flash", ("DEEPSEEK_API_KEY",)),
    # Any self-hosted OpenAI-compatible server (Ollama, vLLM, llama.cpp): no defaults, no key needed.
    "local": LinkDefaults("openai", None, None, (), needs_key=False, tells_its_window=True),
}

DEFAULT_ORDER = ("mistral", "gemini", "glm", "nvidia", "deepseek")

# Production pins (privacy policy: only EEA or adequacy-framework providers receive user data).
PRODUCTION_ORDER = ("mistral", "gemini")
PRODUCTION_BLOCKED = ("glm", "deepseek")

NOT_CONFIGURED_HINT = (
    "The assistant has no model configured. The private way, with no key and nothing sent out: "
    "`make run-local` serves a model on this machine, or point BEYOU_LLM_LOCAL_BASE_URL and "
    "BEYOU_LLM_LOCAL_MODEL at your own OpenAI-compatible server (llama.cpp, Ollama, vLLM, LM Studio) "
    "and set BEYOU_LLM_ORDER=local (docs/llm.md). Or set a provider's API key, for example "
    "BEYOU_LLM_MISTRAL_API_KEY (or MISTRAL_API_KEY)."
)


@dataclass(frozen=True)
class LinkSettings:
    """One link. `context` is its window in tokens when the setting gives it (None: asked of the
    server when it `tells_its_window`, else unknown); `max_tools` the most tools one request may
    carry (0: none, the model only chats; None: as many as the turn needs)."""

    name: str
    kind: ProviderKind
    model: str
    api_key: str | None
    base_url: str | None
    context: int | None = None
    max_tools: int | None = None
    tells_its_window: bool = False


@dataclass(frozen=True)
class Timeouts:
    """Per-link budgets in seconds: connecting, waiting for the first model event, the longest
    silence between two model events once it came, the whole call. Model events are what the
    model said (text, reasoning, a piece of a tool call, the end), never bytes: a provider that
    sends keep-alive comments is as silent as one that sends nothing."""

    connect: float = 10.0
    first_event: float = 60.0
    idle: float = 30.0
    total: float = 120.0


@dataclass(frozen=True)
class ChainSettings:
    environment: str = "development"
    order: tuple[str, ...] = DEFAULT_ORDER
    blocked: tuple[str, ...] = ()
    links: tuple[LinkSettings, ...] = ()
    skipped: dict[str, str] = field(default_factory=dict)
    timeouts: Timeouts = Timeouts()
    cooldown_rate_limit: float = 300.0
    cooldown_error: float = 30.0
    redis_url: str | None = None
    redis_prefix: str = "beyou:llm:cooldown:"

    @property
    def configured(self) -> bool:
        return bool(self.links)

    def describe(self) -> tuple[int, str]:
        """The line-up as one paragraph for the log, and its level: a warning when a link is
        blocked or skipped, so whoever starts the server sees what the assistant will use."""
        lines = [f"LLM link {name} is blocked (BEYOU_LLM_BLOCKED) and will never be called" for name in self.blocked
                 if name in self.order]  # fmt: skip
        lines += [f"LLM link {name} skipped: {reason}" for name, reason in self.skipped.items()]
        if self.links:
            lines.append("LLM chain: " + " -> ".join(f"{link.name}({link.model})" for link in self.links))
        else:
            lines.append(f"LLM chain is empty in {self.environment}: {NOT_CONFIGURED_HINT}")
        level = logging.WARNING if len(lines) > 1 or not self.links else logging.INFO
        return level, "\n".join(lines)

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> ChainSettings:
        env = {k: v for k, v in environ.items() if v is not None}
        environment = env.get("BEYOU_ENV", "development").strip().lower() or "development"
        production = environment == "production"

        default_order = PRODUCTION_ORDER if production else DEFAULT_ORDER
        order = _names(env.get("BEYOU_LLM_ORDER"), default_order, "BEYOU_LLM_ORDER")
        blocked = _names(env.get("BEYOU_LLM_BLOCKED"), (), "BEYOU_LLM_BLOCKED")
        if production:
            blocked = tuple(dict.fromkeys(PRODUCTION_BLOCKED + blocked))

        wanted = [name for name in order if name not in blocked]
        if not wanted:
            raise ChainConfigError(_empty_chain_message(order, blocked))

        links: list[LinkSettings] = []
        skipped: dict[str, str] = {}
        for name in wanted:
            link, missing = _link_from_env(name, env)
            if missing:
                if production:
                    raise ChainConfigError(
                        f"LLM link '{name}' is in the production chain but has no {missing}. "
                        f"Set it, or remove '{name}' with BEYOU_LLM_ORDER / BEYOU_LLM_BLOCKED "
                        f"(BEYOU_LLM_ORDER={','.join(order)}; BEYOU_LLM_BLOCKED={','.join(blocked)})."
                    )
                skipped[name] = f"no {missing}"
                continue
            links.append(link)

        return cls(
            environment=environment,
            order=order,
            blocked=blocked,
            links=tuple(links),
            skipped=skipped,
            timeouts=Timeouts(
                connect=_seconds(env, "BEYOU_LLM_CONNECT_TIMEOUT", 10.0),
                first_event=_seconds(env, "BEYOU_LLM_FIRST_EVENT_TIMEOUT", 60.0),
                idle=_seconds(env, "BEYOU_LLM_IDLE_TIMEOUT", 30.0),
                total=_seconds(env, "BEYOU_LLM_TOTAL_TIMEOUT", 120.0),
            ),
            cooldown_rate_limit=_seconds(env, "BEYOU_LLM_COOLDOWN_RATE_LIMIT", 300.0),
            cooldown_error=_seconds(env, "BEYOU_LLM_COOLDOWN_ERROR", 30.0),
            redis_url=env.get("BEYOU_REDIS_URL") or None,
            redis_prefix=env.get("BEYOU_LLM_REDIS_PREFIX") or "beyou:llm:cooldown:",
        )


def _names(raw: str | None, default: tuple[str, ...], setting: str) -> tuple[str, ...]:
    if raw is None:
        return default
    names = tuple(dict.fromkeys(n.strip().lower() for n in raw.split(",") if n.strip()))
    unknown = [n for n in names if n not in CATALOGUE]
    if unknown:
        raise ChainConfigError(
            f"{setting} names unknown LLM link(s) {', '.join(unknown)}; known links: {', '.join(CATALOGUE)}"
        )
    return names


def _link_from_env(name: str, env: Mapping[str, str]) -> tuple[LinkSettings, str | None]:
    """Returns the link and what it is missing to be callable (None when complete)."""
    defaults = CATALOGUE[name]
    prefix = f"BEYOU_LLM_{name.upper()}_"
    api_key = env.get(prefix + "API_KEY") or next((env[k] for k in defaults.key_names if env.get(k)), None)
    model = env.get(prefix + "MODEL") or defaults.model
    base_url = env.get(prefix + "BASE_URL") or defaults.base_url
    link = LinkSettings(
        name,
        defaults.kind,
        model or "",
        (api_key or "").strip() or None,
        base_url,
        context=_count(env, prefix + "CONTEXT", least=1, unit="tokens"),
        max_tools=_count(env, prefix + "MAX_TOOLS", least=0, unit="tools"),
        tells_its_window=defaults.tells_its_window,
    )
    if defaults.needs_key and not link.api_key:
        return link, f"API key ({prefix}API_KEY)"
    if not model:
        return link, f"model ({prefix}MODEL)"
    if defaults.kind == "openai" and not base_url:
        return link, f"base URL ({prefix}BASE_URL)"
    return link, None


def _seconds(env: Mapping[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ChainConfigError(f"{name} must be a number of seconds, got {raw!r}") from None
    if value <= 0:
        raise ChainConfigError(f"{name} must be positive, got {raw!r}")
    return value


def _count(env: Mapping[str, str], name: str, *, least: int, unit: str) -> int | None:
    raw = (env.get(name) or "").strip()
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError:
        raise ChainConfigError(f"{name} must be a whole number of {unit}, got {raw!r}") from None
    if value < least:
        raise ChainConfigError(f"{name} must be at least {least}, got {raw!r}")
    return value


def _empty_chain_message(order: tuple[str, ...], blocked: tuple[str, ...]) -> str:
    if not order:
        return (
            "The LLM chain is empty: BEYOU_LLM_ORDER names no link. Name at least one, in the order "
            f"to try them (known links: {', '.join(CATALOGUE)}); the app will not boot without a chain."
        )
    return (
        f"The LLM chain is empty: every link of BEYOU_LLM_ORDER ({','.join(order)}) is in "
        f"BEYOU_LLM_BLOCKED ({','.join(blocked)}). "
        "Widen the order or narrow the blocklist; the app will not boot without a chain."
    )
