"""The configuration page: profile, appearance, preferences, dashboard widgets, the data
export and the danger zone. Each section saves on its own and answers with itself."""

import json

from flask import Blueprint, Response, flash, redirect, render_template, request, session, url_for
from flask_babel import gettext as _
from flask_login import login_required, logout_user

from app.assistant import services as assistant
from app.profile import accounts, configuration, widgets
from app.shared import days
from app.shared.errors import DomainError
from app.web.acting import acting_user
from app.web.forms import echoed_form
from app.web.rendering import is_htmx

bp = Blueprint("configuration", __name__, url_prefix="/configuration", template_folder="templates")

SECTIONS = {
    "profile": ("name", "phrase", "phrase_author"),
    "appearance": ("theme",),
    "preferences": (
        "language",
        "timezone",
        "constance_mode",
        "xp_decay",
        "tutorial_done",
        "focus_work_minutes",
        "focus_break_minutes",
    ),
}
# Changing these re-renders the whole page (the theme sits on <html>; the language is everywhere).
NEEDS_RELOAD = ("theme", "language")


def _context(**extra):
    context = {
        "settings": configuration.settings(acting_user()),
        "timezones": configuration.timezones(),
        "widget_catalogue": widgets.CATALOGUE,
        "confirmation_word": configuration.confirmation_word(acting_user()),
        "active": "configuration",
        "refused_section": None,
        "saved_section": None,
        "form": {},
        "fields": {},
        "error": None,
    }
    context.update(extra)
    return context


def _render(section, status=200, **extra):
    template = f"configuration/_{section}.html" if is_htmx() else "configuration/page.html"
    return render_template(template, **_context(**extra)), status


@bp.get("")
@login_required
def index():
    return render_template("configuration/page.html", **_context())


@bp.post("/<section>")
@login_required
def save(section):
    """Save one section: only the fields that section's form sent change."""
    if section not in SECTIONS:
        return render_template("configuration/page.html", **_context()), 404
    changes = {name: request.form.get(name) for name in SECTIONS[section] if name in request.form}
    before = {name: getattr(acting_user(), name) for name in NEEDS_RELOAD}
    try:
        configuration.update(acting_user(), **changes)
    except DomainError as error:
        refusal = {"form": echoed_form(), "fields": error.field_messages, "error": error}
        return _render(section, error.status, refused_section=section, **refusal)
    if any(getattr(acting_user(), name) != value for name, value in before.items()):
        return _reload()
    return _saved(section)


@bp.post("/widgets")
@login_required
def save_widgets():
    """The dashboard widgets, in the order the form lists them (each button sends a whole list)."""
    try:
        configuration.update(acting_user(), widgets=request.form.getlist("widgets"))
    except DomainError as error:
        return _render("widgets", error.status, refused_section="widgets", error=error)
    return _saved("widgets")


def _saved(section):
    if is_htmx():
        return _render(section, saved_section=section)
    flash(_("Settings saved."), "success")
    return redirect(url_for("configuration.index"))


def _reload():
    if is_htmx():
        return "", 200, {"HX-Refresh": "true"}
    return redirect(url_for("configuration.index"))


@bp.get("/export")
@login_required
def export():
    """Everything the user owns, as a dated JSON download: strict JSON (no Infinity or NaN;
    the services keep every number finite, and this would rather fail than emit invalid JSON)."""
    data = configuration.export(acting_user())
    filename = f"beyou-data-{days.today_for(acting_user()).isoformat()}.json"
    return Response(
        json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False),
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


@bp.post("/delete-account")
@login_required
def delete_account():
    try:
        configuration.delete_account(acting_user(), request.form.get("password"), request.form.get("confirmation"))
    except DomainError as error:
        refusal = {"form": echoed_form(), "fields": error.field_messages, "error": error}
        return _render("danger", error.status, refused_section="danger", **refusal)
    logout_user()
    session.clear()
    flash(_("Your account is gone. Take care."), "info")
    if is_htmx():
        return "", 200, {"HX-Redirect": url_for("auth.login")}
    return redirect(url_for("auth.login"))


@bp.post("/sign-out-everywhere")
@login_required
def sign_out_everywhere():
    """End every sign-in of the account: other browsers, remember-me cookies and this one."""
    assistant.cancel_turns(acting_user())
    accounts.end_all_sessions(acting_user())
    logout_user()
    session.clear()
    flash(_("You are signed out on every device. Sign in again to continue."), "info")
    if is_htmx():
        return "", 200, {"HX-Redirect": url_for("auth.login")}
    return redirect(url_for("auth.login"))
