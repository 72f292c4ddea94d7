"""Beyou: the application factory. Nothing happens at import time."""

import gc
import logging
from pathlib import Path

from flask import Flask
from flask.templating import Environment
from werkzeug.middleware.proxy_fix import ProxyFix

from app import config, domains, live, llm, mail
from app.assistant import answer_journal, stream_slots, turn_log
from app.extensions import babel, csrf, db, limiter, login_manager, migrate, sock
from app.shared.models import include_object

ROOT = Path(__file__).resolve().parent.parent


class Templates(Environment):
    """Jinja's environment, with a template's globals copied into a plain dict when it loads.

    Jinja keeps them as a ChainMap over the environment's, and every render copies them into
    the render's context: through a ChainMap that costs ~46 µs for this app's 60 globals, from a
    dict under 1 µs. Every global is registered while the app is built, before a template loads.
    """

    def make_globals(self, d):
        return {**self.globals, **(d or {})}


class Beyou(Flask):
    jinja_environment = Templates


def create_app(config_name=None, **overrides):
    """Build the app for a profile (development, test, production), with optional overrides."""
    app = Beyou(
        __name__,
        template_folder=str(ROOT / "templates"),
        static_folder=str(ROOT / "static"),
        instance_path=str(ROOT / "instance"),
    )
    app.config.from_object(config.profile(config_name))
    app.config.update(overrides)
    config.read_settings(app.config)  # a bad BEYOU_* value stops the boot here, named
    configure_logging(app.config["ENV_NAME"])
    Path(app.instance_path).mkdir(exist_ok=True)
    if app.config["PROXY_COUNT"]:
        count = app.config["PROXY_COUNT"]
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=count, x_proto=count, x_host=count)

    domains.load("models")  # registers every domain's tables on db.metadata

    db.init_app(app)
    migrate.init_app(app, db, directory=str(ROOT / "migrations"), render_as_batch=True, include_object=include_object)
    csrf.init_app(app)
    limiter.init_app(app)
    sock.init_app(app)
    live.init_app(app)  # the live channel's fan-out (memory, or Redis pub/sub)
    mail.init_app(app)
    llm.init_app(app)  # a chain that cannot be built stops the boot here
    turn_log.init_app(app)
    stream_slots.init_app(app)
    answer_journal.init_app(app)
    domains.load("tools")  # registers every domain's tools, in the order of the domains

    from app.profile import sessions
    from app.web import i18n

    babel.init_app(app, locale_selector=i18n.select_locale, timezone_selector=i18n.select_timezone)
    i18n.install_template_i18n(app)
    sessions.init_app(app, login_manager)

    from app import cli, web

    web.init_app(app)
    cli.init_app(app)
    return app


def freeze_startup_objects():
    """Take everything alive once the app is built out of the garbage collector's full passes.

    A built app is ~230,000 objects (the libraries, both model SDKs, the tables, routes and
    translations) that live as long as the process, and every full collection walked them all:
    on the heavy account a full pass cost ~150 ms of CPU and fell on about one /routines request
    in eight, which made the page's p95 four times its median (docs/performance.md, "Memory").
    Frozen, they are never walked again; a collection walks only what requests made. Called once
    per server process after the app is built (gunicorn's `post_worker_init`), never by tests,
    which build many apps in one process.
    """
    gc.collect()
    gc.freeze()


def configure_logging(env_name):
    """Where the app's own log lines ("beyou.*": mail, tools, errors) go.

    Nothing else configures logging, so without this INFO lines such as the development mail
    log (the reset links) would be dropped. Under gunicorn they join gunicorn's error log with
    its level; otherwise they go to stderr, INFO and up. Tests keep Python's defaults (pytest
    captures records itself).
    """
    logger = logging.getLogger("beyou")
    if env_name == "test" or getattr(logger, "beyou_configured", False):
        return
    gunicorn = logging.getLogger("gunicorn.error")
    if gunicorn.handlers:
        logger.handlers = list(gunicorn.handlers)
        logger.setLevel(gunicorn.level or logging.INFO)
        logger.propagate = False  # gunicorn's handlers already write it; the root must not again
    else:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    logger.beyou_configured = True
