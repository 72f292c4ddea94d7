"""Settings from the environment (BEYOU_* variables), in three profiles.

A variable is read as the text it is, with the kind it must be (`_env(name, default, kind)`);
`read_settings` reads every one as its kind when the app is created, so a bad value stops the
boot with the variable's name and what it expects instead of failing requests later (as the LLM
chain's settings do, app/llm/settings.py). Every variable is listed in docs/configuration.md's
table; keep the two in step (tests/configuration/test_settings.py checks it).
"""

import email.utils
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from limits import parse_many
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

INSTANCE_DIR = Path(__file__).resolve().parent.parent / "instance"


class ConfigError(RuntimeError):
    """A setting the app cannot use; raised while the app is created, so it does not boot."""


@dataclass(frozen=True)
class Kind:
    """What a setting must be: `read` turns its text (or a value a test gave) into the value the
    app uses, raising ValueError when it cannot; `expects` says what it must be, for the error,
    which quotes the bad value unless it may hold a password (`quoted=False`)."""

    expects: str
    read: Callable[[Any], Any]
    quoted: bool = True


class _FromEnv(str):
    """A variable's text, remembering the variable and its kind until `read_settings` reads it.
    An unset variable without a default is empty (falsy, as None was) until then, and None after."""

    variable: str
    kind: Kind


def _env(name, default=None, kind=None):
    value = os.environ.get(name)
    value = default if value in (None, "") else value
    if kind is None:
        return value
    text = _FromEnv(value or "")
    text.variable, text.kind = name, kind
    return text


def _whole(minimum, maximum=None):
    def read(value):
        if isinstance(value, bool | float):
            raise ValueError(value)
        number = int(str(value).strip())
        if number < minimum or (maximum is not None and number > maximum):
            raise ValueError(number)
        return number

    span = f"from {minimum} to {maximum}" if maximum is not None else f"of at least {minimum}"
    return Kind(f"a whole number {span}", read)


def _seconds(*, zero=False):
    def read(value):
        if isinstance(value, bool):
            raise ValueError(value)
        seconds = float(str(value).strip())
        if not math.isfinite(seconds) or seconds < 0 or (seconds == 0 and not zero):
            raise ValueError(seconds)
        return seconds

    return Kind("a number of seconds" + (" (0 or more)" if zero else " above 0"), read)


_TRUE, _FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off")


def _read_boolean(value):
    if isinstance(value, bool):
        return value
    word = str(value).strip().lower()
    if word not in _TRUE + _FALSE:
        raise ValueError(value)
    return word in _TRUE


def _read_rate_limit(value):
    """One limit in the `limits` notation ("30 per hour", "10/day"); kept as its text, which
    Flask-Limiter and the per-user buckets parse (app/llm/door.py, app/assistant/turn_budget.py)."""
    if len(parse_many(str(value))) != 1:
        raise ValueError(value)
    return str(value)


def _url(*schemes, quoted=True):
    def read(value):
        parts = urlsplit(str(value).strip())
        if parts.scheme not in schemes or (parts.scheme != "unix" and not parts.hostname):
            raise ValueError(value)
        return str(value).strip()

    return Kind(f"a URL ({' or '.join(f'{scheme}://…' for scheme in schemes)})", read, quoted)


def _read_database_url(value):
    """Checked by SQLAlchemy's parser, kept as given (the parsed URL's text hides the password)."""
    try:
        make_url(str(value).strip())
    except ArgumentError:
        raise ValueError(value) from None
    return str(value).strip()


def _one_of(value, *words):
    word = str(value).strip().lower()
    if word not in words:
        raise ValueError(value)
    return word


def _read_address(value):
    if "@" not in email.utils.parseaddr(str(value))[1]:
        raise ValueError(value)
    return str(value)


DEVELOPMENT_SECRET_KEY = "dev-only-secret-change-me"
SECRET_KEY_MIN_CHARS = 32


def _read_production_secret(value):
    key = str(value or "")
    if key == DEVELOPMENT_SECRET_KEY or len(key) < SECRET_KEY_MIN_CHARS:
        raise ValueError("a weak secret key")
    return key


WHOLE = _whole(0)
COUNT = _whole(1)
PORT = _whole(1, 65535)
SECONDS = _seconds()
SECONDS_OR_ZERO = _seconds(zero=True)
BOOLEAN = Kind(f"one of {', '.join(_TRUE + _FALSE)}", _read_boolean)
RATE_LIMIT = Kind("one rate limit such as '30 per hour' or '10/day'", _read_rate_limit)
WEB_URL = _url("https", "http")
REDIS_URL = _url("redis", "rediss", "unix", quoted=False)
DATABASE_URL = Kind(
    "an SQLAlchemy URL such as postgresql+psycopg://user:pass@host/beyou", _read_database_url, quoted=False
)
SEARCH_SERVICE = Kind("tavily or gemini", lambda value: _one_of(value, "tavily", "gemini"))
ADDRESS = Kind("a mail address such as 'Beyou <no-reply@example.com>'", _read_address)
SECRET = Kind("any text", str, quoted=False)

# Production reads these more strictly: its sessions, CSRF tokens and reset links are signed with
# the key, and its cookies are Secure, so a browser never sends them back to an http:// address.
PRODUCTION_KINDS = {
    "SECRET_KEY": Kind(
        f"at least {SECRET_KEY_MIN_CHARS} random characters in production (never the development value), such as "
        "python -c 'import secrets; print(secrets.token_urlsafe(32))' prints",
        _read_production_secret,
        quoted=False,
    ),
    "PUBLIC_URL": Kind(
        "an https:// URL in production, whose cookies are Secure and never come back over http",
        _url("https").read,
    ),
}


class Config:
    ENV_NAME = "development"
    SECRET_KEY = _env("BEYOU_SECRET_KEY", DEVELOPMENT_SECRET_KEY, SECRET)
    SQLALCHEMY_DATABASE_URI = _env("BEYOU_DATABASE_URL", f"sqlite:///{INSTANCE_DIR / 'beyou.sqlite3'}", DATABASE_URL)
    # No pool_pre_ping: its SELECT 1 was a round trip per request; extensions._hung_up checks
    # a pooled PostgreSQL connection on its socket instead.
    SQLALCHEMY_ENGINE_OPTIONS = {}
    REDIS_URL = _env("BEYOU_REDIS_URL", None, REDIS_URL)
    PUBLIC_URL = _env("BEYOU_PUBLIC_URL", "http://127.0.0.1:5000", WEB_URL)
    # How many reverse proxies stand in front of the app (their X-Forwarded-* headers are trusted).
    PROXY_COUNT = _env("BEYOU_PROXY_COUNT", "0", WHOLE)

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
    SIGN_UP_LINK_MAX_AGE = 24 * 60 * 60  # a sign-up finishes from its mailed link within a day
    LOGIN_LOCKOUT_ATTEMPTS = _env("BEYOU_LOGIN_LOCKOUT_ATTEMPTS", "10", COUNT)
    LOGIN_LOCKOUT_MINUTES = _env("BEYOU_LOGIN_LOCKOUT_MINUTES", "15", COUNT)
    # Past those failures each sign-in attempt waits twice as long as the last, at most this long
    # (app/profile/sign_in_throttle.py); an address that signed in to an account is known to it this long.
    LOGIN_DELAY_MAX_SECONDS = 300
    LOGIN_KNOWN_ADDRESS_DAYS = 90
    AUTH_IP_LIMIT = _env("BEYOU_AUTH_IP_LIMIT", "30 per 15 minutes", RATE_LIMIT)

    # Mail: the log unless an SMTP host is configured.
    SMTP_HOST = _env("BEYOU_SMTP_HOST")
    SMTP_PORT = _env("BEYOU_SMTP_PORT", "587", PORT)
    SMTP_USERNAME = _env("BEYOU_SMTP_USERNAME")
    SMTP_PASSWORD = _env("BEYOU_SMTP_PASSWORD")
    SMTP_STARTTLS = _env("BEYOU_SMTP_STARTTLS", "true", BOOLEAN)
    MAIL_FROM = _env("BEYOU_MAIL_FROM", "Beyou <no-reply@beyou.local>", ADDRESS)

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
    # (extensions.RedisOrHere; docs/production.md, "When Redis is away").
    RATELIMIT_STORAGE_OPTIONS = {"socket_connect_timeout": 2, "socket_timeout": 2}

    # The assistant
    AGENT_TURN_SECONDS = _env("BEYOU_AGENT_TURN_SECONDS", "180", COUNT)
    AGENT_MAX_ROUNDS = 8  # model calls (tool rounds) in one turn
    AGENT_HEARTBEAT_SECONDS = _env("BEYOU_AGENT_HEARTBEAT_SECONDS", "15", SECONDS)
    # A running turn's lease: its runner renews it every third of this; a RUNNING turn whose lease
    # lapsed has lost its runner (a killed worker) and is ended as INTERRUPTED.
    AGENT_LEASE_SECONDS = _env("BEYOU_AGENT_LEASE_SECONDS", "30", SECONDS)
    AGENT_STREAMS_PER_USER = 2
    # How long a change the assistant proposed (a delete, a check that pays XP) can be confirmed.
    AGENT_CONFIRMATION_MINUTES = _env("BEYOU_AGENT_CONFIRMATION_MINUTES", "15", COUNT)
    AGENT_RATE_LIMIT = _env("BEYOU_AGENT_RATE_LIMIT", "30 per hour", RATE_LIMIT)
    # The longest a structured model call may take (the wizard's suggestions, the notebook's AI,
    # the briefing), every link and the one repair together: a request waits on it, so it ends
    # well before a proxy gives up on the request (nginx and most load balancers wait 60 s).
    AI_REQUEST_SECONDS = _env("BEYOU_AI_REQUEST_SECONDS", "30", SECONDS)

    # A study source up to this many characters is indexed in its request, a PDF up to this size
    # read there; longer ones go to a background thread (app/notebook/sources.py).
    NOTEBOOK_SOURCE_INLINE_CHARS = 20_000
    NOTEBOOK_PDF_INLINE_BYTES = 512 * 1024
    # The notebook's embeddings: any OpenAI-compatible endpoint, outside the chain (so outside its
    # blocklist) and off without a key; the privacy page names where they go.
    EMBEDDINGS_BASE_URL = _env("BEYOU_EMBEDDINGS_BASE_URL", "https://api.mistral.ai/v1", WEB_URL)
    EMBEDDINGS_API_KEY = _env("BEYOU_EMBEDDINGS_API_KEY")
    EMBEDDINGS_MODEL = _env("BEYOU_EMBEDDINGS_MODEL", "mistral-embed")
    EMBEDDINGS_TIMEOUT = _env("BEYOU_EMBEDDINGS_TIMEOUT", "30", SECONDS)
    # The notebook's source search on the web, also outside the chain and off without its
    # service's key: Tavily's search API, or Gemini with Google Search (its own key and address,
    # not the chain's Gemini link).
    SOURCE_SEARCH = _env("BEYOU_SOURCE_SEARCH", "tavily", SEARCH_SERVICE)
    SOURCE_SEARCH_BASE_URL = _env("BEYOU_SOURCE_SEARCH_BASE_URL", "https://api.tavily.com", WEB_URL)
    SOURCE_SEARCH_API_KEY = _env("BEYOU_SOURCE_SEARCH_API_KEY")
    SOURCE_SEARCH_GEMINI_BASE_URL = _env(
        "BEYOU_SOURCE_SEARCH_GEMINI_BASE_URL", "https://generativelanguage.googleapis.com", WEB_URL
    )
    SOURCE_SEARCH_GEMINI_API_KEY = _env("BEYOU_SOURCE_SEARCH_GEMINI_API_KEY")
    SOURCE_SEARCH_GEMINI_MODEL = _env("BEYOU_SOURCE_SEARCH_GEMINI_MODEL", "gemini-2.5-flash")
    SOURCE_SEARCH_TIMEOUT = _env("BEYOU_SOURCE_SEARCH_TIMEOUT", "20", SECONDS)
    # The other doors to the chain, each with its own per-user bucket (app/llm/door.py).
    ONBOARDING_RATE_LIMIT = _env("BEYOU_ONBOARDING_RATE_LIMIT", "30 per hour", RATE_LIMIT)
    BRIEFING_RATE_LIMIT = _env("BEYOU_BRIEFING_RATE_LIMIT", "10 per day", RATE_LIMIT)
    STUDY_AI_RATE_LIMIT = _env("BEYOU_STUDY_AI_RATE_LIMIT", "60 per hour", RATE_LIMIT)
    # The daily briefing's request waits this long for the text, then answers PENDING; a claim on
    # a day's briefing older than BRIEFING_CLAIM_SECONDS lost its worker and counts as failed.
    BRIEFING_WAIT_SECONDS = _env("BEYOU_BRIEFING_WAIT_SECONDS", "8", SECONDS_OR_ZERO)
    BRIEFING_CLAIM_SECONDS = 150
    # Then the dialog asks for the text this often, this many times (about 70 s), before its fallback line.
    BRIEFING_POLL_SECONDS = _env("BEYOU_BRIEFING_POLL_SECONDS", "7", SECONDS)
    BRIEFING_POLLS = 10

    # Argon2 parameters for new password hashes; none set: the library's recommended ones.
    PASSWORD_HASHING = {}

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
    # Argon2id still, at its cheapest: the recommended cost is a tenth of a second and 64 MiB per
    # hash and per check, and nearly every test registers someone and signs them in.
    PASSWORD_HASHING = {"time_cost": 1, "memory_cost": 8, "parallelism": 1}
    # No call leaves a test: a test that wants them points these at the wire fake.
    EMBEDDINGS_API_KEY = None
    SOURCE_SEARCH_API_KEY = None
    SOURCE_SEARCH_GEMINI_API_KEY = None


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
        raise ConfigError(f"BEYOU_ENV must be one of {', '.join(PROFILES)}, not {name!r}")
    return PROFILES[name]


# The config key of every variable with a kind, and the variable.
VARIABLES = {key: value.variable for key, value in vars(Config).items() if isinstance(value, _FromEnv)}
_KINDS = {key: value.kind for key, value in vars(Config).items() if isinstance(value, _FromEnv)}


def read_settings(config):
    """Every setting of `config` that comes from a BEYOU_* variable, read as its kind, in place:
    the environment's text or a value given to `create_app`. All that cannot be read are named
    in one `ConfigError`. In production, PRODUCTION_KINDS are read instead, an empty value too."""
    problems = []
    stricter = PRODUCTION_KINDS if config.get("ENV_NAME") == "production" else {}
    for key, kind in {**_KINDS, **stricter}.items():
        value = config.get(key)
        if (value is None or value == "") and key not in stricter:
            config[key] = None
            continue
        try:
            config[key] = kind.read(value)
        except (ValueError, TypeError):
            given = repr(str(value)) if kind.quoted else "what it is (not shown: it may hold a password)"
            problems.append(f"{VARIABLES[key]} must be {kind.expects}, not {given}")
    if problems:
        raise ConfigError("; ".join(dict.fromkeys(problems)))
