"""Which language and time zone a request is rendered in.

Outside a request (the CLI, a background turn) the caller chooses with force_locale();
the default is English.
"""

from datetime import date
from functools import lru_cache

import flask_babel
from flask import current_app, has_request_context, request

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
    catalogues = {}  # locale -> Flask-Babel's translations for it (the app has one domain)

    def catalogue():
        locale = flask_babel.get_locale()
        found = catalogues.get(locale)
        if found is None:
            found = flask_babel.get_translations()
            if locale is not None:  # outside an app context: English, not worth keeping
                catalogues[locale] = found
        return found

    app.jinja_env.install_gettext_callables(
        gettext=lambda string: catalogue().ugettext(string),
        ngettext=lambda singular, plural, n: catalogue().ungettext(singular, plural, n),
        pgettext=lambda context, string: catalogue().upgettext(context, string),
        npgettext=lambda context, singular, plural, n: catalogue().unpgettext(context, singular, plural, n),
        newstyle=True,
    )

    @lru_cache(maxsize=4096)
    def formatted_day(locale, day, format):  # `locale` is the current one: it keys the text
        return flask_babel.format_date(day, format)

    def dateformat(value=None, format=None, rebase=True):
        if type(value) is date:  # a calendar day: no time zone to apply, only the locale
            return formatted_day(flask_babel.get_locale(), value, format)
        return flask_babel.format_date(value, format, rebase)

    app.jinja_env.filters["dateformat"] = dateformat


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
