"""Templates translate through the app's own callables (app.web.i18n), which keep each locale's
catalogue instead of finding it anew at every string, call it in one step, and remember the
calendar days they formatted: the language must still follow the locale of the moment, string by
string and date by date, within one request."""

from datetime import date

import flask_babel
from flask_babel import force_locale
from jinja2 import Environment

from app.web.i18n import current_locale

TEMPLATE = (
    "{{ _('Skip') }} {{ ngettext('%(num)s routine', '%(num)s routines', 2) }} {{ _('Check %(name)s', name='<b>') }}"
)


def test_a_template_follows_force_locale_inside_a_request_and_back(app):
    template = app.jinja_env.from_string(TEMPLATE)
    with app.test_request_context("/", headers={"Accept-Language": "en"}):
        english = template.render()
        with force_locale("pt"):
            portuguese = template.render()
        again = template.render()
    assert english == again == "Skip 2 routines Check &lt;b&gt;"
    assert portuguese == "Pular 2 rotinas Marcar &lt;b&gt;"


def test_a_request_in_portuguese_renders_portuguese_after_an_english_one(app):
    template = app.jinja_env.from_string(TEMPLATE)
    with app.test_request_context("/", headers={"Accept-Language": "en"}):
        assert template.render().startswith("Skip")
    with app.test_request_context("/", headers={"Accept-Language": "pt"}):
        assert template.render().startswith("Pular")


def test_outside_a_request_templates_speak_english(app):
    with app.app_context():
        assert app.jinja_env.from_string("{{ _('Skip') }}").render() == "Skip"


def test_a_remembered_day_is_formatted_in_the_locale_of_the_moment(app):
    template = app.jinja_env.from_string("{{ day|dateformat('medium') }}")
    with app.test_request_context("/", headers={"Accept-Language": "en"}):
        english = template.render(day=date(2026, 11, 3))
        with force_locale("pt"):
            portuguese = template.render(day=date(2026, 11, 3))
        again = template.render(day=date(2026, 11, 3))
    assert english == again == "Nov 3, 2026"
    assert portuguese == "3 de nov. de 2026"


SHAPES = [
    "{{ _('Skip') }}",
    "{{ _('Check %(name)s', name='<b>') }}",
    "{{ _('%(num)s%% done', num=5) }}",
    "{{ _('100%% sure') }}",
    "{{ ngettext('%(num)s routine', '%(num)s routines', 1) }} {{ ngettext('%(num)s day', '%(num)s days', 3) }}",
    "{{ pgettext('weekday', 'Mon') }} {{ npgettext('x', '%(num)s cat', '%(num)s cats', 2) }}",
    "{% trans name='<i>' %}Hello, {{ name }}{% endtrans %}",
    "{% trans count=2 %}{{ count }} routine{% pluralize %}{{ count }} routines{% endtrans %}",
]


def test_the_app_callables_render_what_jinjas_new_style_gettext_renders(app):
    """The app calls its translations in one step instead of Jinja's three; each shape of call
    (variables, "%%", plurals, contexts, trans blocks, escaped or not) renders the same."""
    for autoescape in (True, False):
        reference = Environment(extensions=["jinja2.ext.i18n"], autoescape=autoescape)
        with app.test_request_context("/", headers={"Accept-Language": "pt"}):
            catalogue = flask_babel.get_translations()
            reference.install_gettext_callables(
                catalogue.ugettext,
                catalogue.ungettext,
                newstyle=True,
                pgettext=catalogue.upgettext,
                npgettext=catalogue.unpgettext,
            )
            ours = app.jinja_env.overlay(autoescape=autoescape)
            for shape in SHAPES:
                assert ours.from_string(shape).render() == reference.from_string(shape).render(), shape


def test_the_quick_locale_is_flask_babels_own_in_every_state(app):
    """`current_locale` reads Flask-Babel's private place for the locale: if an upgrade moved
    it, this fails rather than pages rendering in a stale language."""
    with app.test_request_context("/", headers={"Accept-Language": "pt"}):
        assert str(current_locale()) == str(flask_babel.get_locale()) == "pt"
        with force_locale("en"):
            assert str(current_locale()) == str(flask_babel.get_locale()) == "en"
        assert str(current_locale()) == "pt"
        assert app.jinja_env.from_string("{{ get_locale() }}").render() == "pt"
    with app.app_context():
        assert current_locale() is flask_babel.get_locale()
