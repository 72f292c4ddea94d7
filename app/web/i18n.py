"""Which language and time zone a request is rendered in.

Outside a request (the CLI, a background turn) the caller chooses with force_locale();
the default is English.
"""

from datetime import date
from functools import lru_cache

import flask_babel
from flask import current_app, has_request_context, request
from flask.globals import _cv_app
from jinja2 import pass_eval_context
from markupsafe import Markup

from app.web.acting import acting_user, signed_in


def install_template_i18n(app):
    """Templates translate and format dates through what the locale already has.

    Flask-Babel's callables find the request's catalogue anew at every string (its domain, its
    locale, the locale's name: ~14 µs), and a heavy page translates a few hundred strings; here
    each locale's catalogue is kept per app. A calendar day formatted for a locale is the same
    text for every user and every request, so `dateformat` remembers the last few thousand (the
    dashboard's heatmap and strip format 140 days, the same days on every visit). The locale is
    read at every string and every date, so `force_locale` and each user's language hold.
    """
    catalogues = {}  # the locale's name -> Flask-Babel's translations for it (the app has one domain)

    def catalogue():
        locale = current_locale()
        if locale is None:  # outside an app context: English, not worth keeping
            return flask_babel.get_translations()
        name = locale_name(locale)  # a dict keyed by Locale objects compares them field by field
        found = catalogues.get(name)
        if found is None:
            found = catalogues[name] = flask_babel.get_translations()
        return found

    # Jinja's new-style callables, each one call deep. Jinja's own wrap the translation three
    # deep (`_` finds `gettext` in the context, which calls it through the context again): two
    # thirds of a string's ~9 µs.
    @pass_eval_context
    def gettext(eval_ctx, string, **variables):
        return _formatted(eval_ctx, catalogue().ugettext(string), variables)

    @pass_eval_context
    def ngettext(eval_ctx, singular, plural, num, **variables):
        variables.setdefault("num", num)
        return _formatted(eval_ctx, catalogue().ungettext(singular, plural, num), variables)

    @pass_eval_context
    def pgettext(eval_ctx, context, string, **variables):
        variables.setdefault("context", context)
        return _formatted(eval_ctx, catalogue().upgettext(context, string), variables)

    @pass_eval_context
    def npgettext(eval_ctx, context, singular, plural, num, **variables):
        variables.setdefault("context", context)
        variables.setdefault("num", num)
        return _formatted(eval_ctx, catalogue().unpgettext(context, singular, plural, num), variables)

    app.jinja_env.newstyle_gettext = True  # `{% trans %}` hands its variables to gettext, as `_()` does
    app.jinja_env.globals.update(_=gettext, gettext=gettext, ngettext=ngettext, pgettext=pgettext, npgettext=npgettext)

    @lru_cache(maxsize=4096)
    def formatted_day(locale, day, format):  # `locale` names the current one: it keys the text
        return flask_babel.format_date(day, format)

    def dateformat(value=None, format=None, rebase=True):
        if type(value) is date:  # a calendar day: no time zone to apply, only the locale
            return formatted_day(locale_name(current_locale()), value, format)
        return flask_babel.format_date(value, format, rebase)

    app.jinja_env.filters["dateformat"] = dateformat
    app.jinja_env.globals["get_locale"] = current_locale


def current_locale():
    """Flask-Babel's `get_locale()` without its four trips through the `g` proxy (~2.5 µs, and a
    heavy page asks a few hundred times): the locale Flask-Babel keeps on the request's `g` —
    `force_locale`'s while one is in force — or, the first time, Flask-Babel's own choice."""
    context = _cv_app.get(None)
    if context is None:
        return None
    kept = getattr(context.g, "_flask_babel", None)
    locale = getattr(kept, "babel_locale", None)
    return locale if locale is not None else flask_babel.get_locale()


_named = (None, None)  # the last locale asked about and its name


def locale_name(locale):
    """`str(locale)` ("pt_BR"), remembered for the last locale object: Babel builds the name anew
    each time (~1 µs), and a page asks for it at every string and every date, while a request
    keeps one locale object."""
    global _named
    seen, name = _named
    if seen is not locale:
        name = str(locale)
        _named = (locale, name)
    return name


def _formatted(eval_ctx, text, variables):
    """A translation as Jinja's new-style gettext hands it over: markup-safe where the template
    escapes, and %-formatted even without variables ("100%%" is "100%"); a text with no "%" is
    already what formatting would make of it."""
    if eval_ctx.autoescape:
        text = Markup(text)
    return text % variables if variables or "%" in text else text


def select_locale():
    """The user's setting when signed in, else the browser's best match, else English."""
    if not has_request_context():
        return None
    if signed_in():
        return acting_user().language
    return request.accept_languages.best_match(current_app.config["LANGUAGES"])


def select_timezone():
    if signed_in():
        return acting_user().timezone
    return None
