"""Settings from the environment (BEYOU_* variables), in three profiles.

Every variable is listed in the README's configuration table; keep the two in step.
"""

import os
from datetime import timedelta
from pathlib import Path

INSTANCE_DIR = Path(__file__).resolve().parent.parent / "instance"


def _env(name, default=None):
    value = os.environ.get(name)
    return default if value in (None, "") else value


class Config:
    ENV_NAME = "development"
    SECRET_KEY = _env("BEYOU_SECRET_KEY", "dev-only-secret-change-me")
    SQLALCHEMY_DATABASE_URI = _env("BEYOU_DATABASE_URL", f"sqlite:///{INSTANCE_DIR / 'beyou.sqlite3'}")
    # No pool_pre_ping: its SELECT 1 was a round trip per request; extensions._hung_up checks
    # a pooled PostgreSQL connection on its socket instead.
    SQLALCHEMY_ENGINE_OPTIONS = {}
    REDIS_URL = _env("BEYOU_REDIS_URL")
    PUBLIC_URL = _env("BEYOU_PUBLIC_URL", "http://127.0.0.1:5000")
    # How many reverse proxies stand in front of the app (their X-Forwarded-* headers are trusted).
    PROXY_COUNT = int(_env("BEYOU_PROXY_COUNT", "0"))

    # Sessions and cookies: HttpOnly and SameSite=Lax always, Secure in production.
    SESSION_COOKIE_HTTPONLY = True
    SESSION_COOKIE_SAMESITE = "Lax"
    SESSION_COOKIE_SECURE = False
    REMEMBER_COOKIE_HTTPONLY = True
    REMEMBER_COOKIE_SAMESITE = "Lax"
    REMEMBER_COOKIE_SECURE = False
    # A sign-in lasts at most this long on the server, remembered or not (see UserSession).
    REMEMBER_COOKIE_DURATION = timedelta(days=30)
    PERMANENT_SESSION_LIFETIME = timedelta(days=30)

    # Request size: no form here needs more (the longest text field takes 4000 characters), and a
    # bigger body is refused with a 413 before it is read into memory.
    MAX_CONTENT_LENGTH = 1024 * 1024
    MAX_FORM_MEMORY_SIZE = 256 * 1024

    # CSRF: htmx sends the token in this header (static/js/app.js reads it from <meta>).
    WTF_CSRF_HEADERS = ["X-CSRFToken"]
    WTF_CSRF_TIME_LIMIT = None  # the token lives as long as the session

    # Accounts
    PASSWORD_RESET_MAX_AGE = 15 * 60
    LOGIN_LOCKOUT_ATTEMPTS = int(_env("BEYOU_LOGIN_LOCKOUT_ATTEMPTS", "10"))
    LOGIN_LOCKOUT_MINUTES = int(_env("BEYOU_LOGIN_LOCKOUT_MINUTES", "15"))
    AUTH_IP_LIMIT = _env("BEYOU_AUTH_IP_LIMIT", "30 per 15 minutes")

    # Mail: the log unless an SMTP host is configured.
    SMTP_HOST = _env("BEYOU_SMTP_HOST")
    SMTP_PORT = int(_env("BEYOU_SMTP_PORT", "587"))
    SMTP_USERNAME = _env("BEYOU_SMTP_USERNAME")
    SMTP_PASSWORD = _env("BEYOU_SMTP_PASSWORD")
    SMTP_STARTTLS = _env("BEYOU_SMTP_STARTTLS", "true").lower() != "false"
    MAIL_FROM = _env("BEYOU_MAIL_FROM", "Beyou <no-reply@beyou.local>")

    # i18n
    LANGUAGES = ("en", "pt")
    BABEL_DEFAULT_LOCALE = "en"
    BABEL_TRANSLATION_DIRECTORIES = str(Path(__file__).resolve().parent / "translations")

    # Rate limits live in Redis when configured, else in this process. limits' memory storage
    # yields to the other greenlets on a quiet count (its pruning timer's start); a storage
    # without that yield starved running streams when many turns started at once
    # (docs/performance.md, "Rate limits").
    RATELIMIT_STORAGE_URI = REDIS_URL or "memory://"
    RATELIMIT_HEADERS_ENABLED = True
    RATELIMIT_STRATEGY = "fixed-window"  # cheap per request; the login lockout keeps its own moving window
    # A Redis that does not answer fails a count within 2 s; counts are then kept per process
    # (extensions.RedisOrHere; README, "When Redis is away").
    RATELIMIT_STORAGE_OPTIONS = {"socket_connect_timeout": 2, "socket_timeout": 2}

    # The assistant
    AGENT_TURN_SECONDS = int(_env("BEYOU_AGENT_TURN_SECONDS", "180"))
    AGENT_MAX_ROUNDS = 8  # model calls (tool rounds) in one turn
    AGENT_HEARTBEAT_SECONDS = float(_env("BEYOU_AGENT_HEARTBEAT_SECONDS", "15"))
    # A running turn's lease: its runner renews it every third of this; a RUNNING turn whose lease
    # lapsed has lost its runner (a killed worker) and is ended as INTERRUPTED.
    AGENT_LEASE_SECONDS = float(_env("BEYOU_AGENT_LEASE_SECONDS", "30"))
    AGENT_STREAMS_PER_USER = 2
    # How long a change the assistant proposed (a delete, a check that pays XP) can be confirmed.
    AGENT_CONFIRMATION_MINUTES = int(_env("BEYOU_AGENT_CONFIRMATION_MINUTES", "15"))
    AGENT_RATE_LIMIT = _env("BEYOU_AGENT_RATE_LIMIT", "30 per hour")

    # A study source up to this many characters is indexed in its request, a PDF up to this size
    # read there; longer ones go to a background thread (app/notebook/sources.py).
    NOTEBOOK_SOURCE_INLINE_CHARS = 20_000
    NOTEBOOK_PDF_INLINE_BYTES = 512 * 1024
    # The notebook's embeddings: any OpenAI-compatible endpoint, outside the chain (so outside its
    # blocklist) and off without a key; the privacy page names where they go.
    EMBEDDINGS_BASE_URL = _env("BEYOU_EMBEDDINGS_BASE_URL", "https://api.mistral.ai/v1")
    EMBEDDINGS_API_KEY = _env("BEYOU_EMBEDDINGS_API_KEY")
    EMBEDDINGS_MODEL = _env("BEYOU_EMBEDDINGS_MODEL", "mistral-embed")
    EMBEDDINGS_TIMEOUT = float(_env("BEYOU_EMBEDDINGS_TIMEOUT", "30"))
    # The notebook's source search on the web (Tavily's search API), also outside the chain and
    # off without a key.
    SOURCE_SEARCH_BASE_URL = _env("BEYOU_SOURCE_SEARCH_BASE_URL", "https://api.tavily.com")
    SOURCE_SEARCH_API_KEY = _env("BEYOU_SOURCE_SEARCH_API_KEY")
    SOURCE_SEARCH_TIMEOUT = float(_env("BEYOU_SOURCE_SEARCH_TIMEOUT", "20"))
    # The other doors to the chain, each with its own per-user bucket (app/llm/door.py).
    ONBOARDING_RATE_LIMIT = _env("BEYOU_ONBOARDING_RATE_LIMIT", "30 per hour")
    BRIEFING_RATE_LIMIT = _env("BEYOU_BRIEFING_RATE_LIMIT", "10 per day")
    STUDY_AI_RATE_LIMIT = _env("BEYOU_STUDY_AI_RATE_LIMIT", "60 per hour")
    # The daily briefing's request waits this long for the text, then answers PENDING; a claim on
    # a day's briefing older than BRIEFING_CLAIM_SECONDS lost its worker and counts as failed.
    BRIEFING_WAIT_SECONDS = float(_env("BEYOU_BRIEFING_WAIT_SECONDS", "8"))
    BRIEFING_CLAIM_SECONDS = 150
    # Then the dialog asks for the text this often, this many times (about 70 s), before its fallback line.
    BRIEFING_POLL_SECONDS = float(_env("BEYOU_BRIEFING_POLL_SECONDS", "7"))
    BRIEFING_POLLS = 10

    DEMO_EMAIL = "demo@beyou.app"
    DEMO_PASSWORD = "beyou-demo-2026"


class DevelopmentConfig(Config):
    pass


class TestConfig(Config):
    ENV_NAME = "test"
    TESTING = True
    SECRET_KEY = "test-secret"
    SQLALCHEMY_DATABASE_URI = "sqlite://"
    RATELIMIT_STORAGE_URI = "memory://"
    # No call leaves a test: a test that wants them points these at the wire fake.
    EMBEDDINGS_API_KEY = None
    SOURCE_SEARCH_API_KEY = None


class ProductionConfig(Config):
    ENV_NAME = "production"
    SESSION_COOKIE_SECURE = True
    REMEMBER_COOKIE_SECURE = True
    PREFERRED_URL_SCHEME = "https"


PROFILES = {"development": DevelopmentConfig, "test": TestConfig, "production": ProductionConfig}


def profile(name=None):
    """The settings class for `name`, else BEYOU_ENV, else development."""
    name = name or _env("BEYOU_ENV", "development")
    if name not in PROFILES:
        raise RuntimeError(f"BEYOU_ENV must be one of {', '.join(PROFILES)}, not {name!r}")
    return PROFILES[name]
