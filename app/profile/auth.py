"""Signing up, in and out, and getting back in after a forgotten password."""

from urllib.parse import urlsplit

from flask import Blueprint, current_app, flash, redirect, render_template, request, session, url_for
from flask_babel import force_locale
from flask_babel import gettext as _
from flask_login import login_required, login_user, logout_user

from app.assistant import services as assistant
from app.extensions import limiter
from app.mail import send_mail
from app.profile import accounts
from app.shared.errors import DomainError
from app.web.acting import acting_user, signed_in
from app.web.forms import form_refused

bp = Blueprint("auth", __name__, template_folder="templates")

# One per-IP budget for the sign-up and reset forms. Sign-in has its own waits instead, which
# never keep a right password out for long (accounts.authenticate).
auth_ip_limit = limiter.shared_limit(lambda: current_app.config["AUTH_IP_LIMIT"], scope="auth-forms", methods=["POST"])


def safe_next(target):
    """`target` when it is a path on this site, else None (no open redirects)."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return None
    parts = urlsplit(target)
    return target if not parts.scheme and not parts.netloc else None


@bp.route("/register", methods=["GET", "POST"])
@auth_ip_limit
def register():
    if signed_in():
        return redirect(url_for("dashboard.index"))
    if request.method == "GET":
        language = accounts.language_from(request.accept_languages.best_match(accounts.LANGUAGES))
        return render_template("auth/register.html", form={"language": language}, fields={})
    try:
        asked = accounts.ask_to_sign_up(email=request.form.get("email"), language=request.form.get("language", "en"))
    except DomainError as error:
        return form_refused("auth/register.html", error)
    if asked.mail_due:
        _send_sign_up_mail(asked)
    # The same answer whether or not the address has an account (docs/production.md, on account enumeration).
    return render_template("auth/register.html", form={"email": asked.email}, fields={}, sent=True)


def _send_sign_up_mail(asked):
    """A free address gets the link to finish signing up; a taken one tells its owner someone
    tried, so probing the form is not silent."""
    public_url = current_app.config["PUBLIC_URL"].rstrip("/")
    if asked.owner is None:
        with force_locale(asked.language):
            send_mail(
                asked.email,
                _("Finish creating your Beyou account"),
                _(
                    "Hi,\n\nTo finish creating your Beyou account, choose your name and password here "
                    "within 24 hours:\n%(link)s\n\n"
                    "If you did not ask for an account, ignore this message: none is created without this link.",
                    link=public_url + url_for("auth.finish_sign_up", token=asked.token),
                ),
            )
        return
    with force_locale(asked.owner.language):
        send_mail(
            asked.owner.email,
            _("Someone tried to sign up to Beyou with your email"),
            _(
                "Hi %(name)s,\n\nSomeone just tried to create a Beyou account with this email address, "
                "which already has one. If it was you, sign in, or choose a new password here:\n%(link)s\n\n"
                "If it was not you, ignore this message: your account has not changed.",
                name=asked.owner.name,
                link=public_url + url_for("auth.forgot_password"),
            ),
        )


@bp.route("/register/<token>", methods=["GET", "POST"])
@auth_ip_limit
def finish_sign_up(token):
    if signed_in():
        return redirect(url_for("dashboard.index"))
    try:
        if request.method == "GET":
            sign_up = accounts.sign_up_for(token)
            return render_template("auth/finish_sign_up.html", token=token, form={"email": sign_up.email}, fields={})
        user = accounts.finish_sign_up(
            token, name=request.form.get("name"), password=request.form.get("password"),
            timezone_name=request.form.get("timezone"),
        )  # fmt: skip
    except DomainError as error:
        return form_refused("auth/finish_sign_up.html", error, token=token)
    _start_session(user, remember=False)
    flash(_("Welcome to Beyou, %(name)s!", name=user.name), "success")
    return redirect(url_for("onboarding.index"))  # a new account lands on the setup assistant


@bp.route("/login", methods=["GET", "POST"])
def login():
    next_url = safe_next(request.values.get("next"))
    if signed_in():
        return redirect(next_url or url_for("dashboard.index"))
    if request.method == "GET":
        return render_template("auth/login.html", form={}, fields={}, next_url=next_url)
    try:
        user = accounts.authenticate(request.form.get("email"), request.form.get("password"), request.remote_addr)
    except DomainError as error:
        page, status = form_refused("auth/login.html", error, next_url=next_url)
        return page, status, {"Retry-After": str(error.params["seconds"])} if "seconds" in error.params else {}
    _start_session(user, remember=bool(request.form.get("remember")))
    return redirect(next_url or url_for("dashboard.index"))


def _start_session(user, remember):
    """A fresh session for a fresh sign-in: nothing from before survives (no fixation)."""
    session.clear()
    accounts.start_session(user)
    login_user(user, remember=remember)
    session.permanent = remember


@bp.post("/logout")
@login_required
def logout():
    assistant.cancel_turns(acting_user())  # signing out stops any answer still being written
    accounts.end_session(acting_user())
    logout_user()
    session.clear()
    flash(_("You are signed out."), "info")
    return redirect(url_for("auth.login"))


@bp.route("/forgot-password", methods=["GET", "POST"])
@auth_ip_limit
def forgot_password():
    if request.method == "GET":
        return render_template("auth/forgot_password.html", form={})
    email = request.form.get("email", "")
    user = accounts.find_by_email(email)
    if user is not None:
        _send_reset_link(user)
    # The same answer whether or not the account exists.
    return render_template("auth/forgot_password.html", form={"email": email}, sent=True)


def _send_reset_link(user):
    # The public address, not the Host header: a forged Host must not redirect the link.
    link = current_app.config["PUBLIC_URL"].rstrip("/") + url_for(
        "auth.reset_password", token=accounts.reset_token_for(user)
    )
    with force_locale(user.language):
        send_mail(
            user.email,
            _("Reset your Beyou password"),
            _(
                "Hi %(name)s,\n\nUse this link within 15 minutes to choose a new password:\n%(link)s\n\n"
                "If you did not ask for it, ignore this message; your password stays the same.",
                name=user.name,
                link=link,
            ),
        )


@bp.route("/reset-password/<token>", methods=["GET", "POST"])
@auth_ip_limit
def reset_password(token):
    try:
        if request.method == "GET":
            accounts.user_for_reset_token(token)
            return render_template("auth/reset_password.html", token=token, fields={})
        accounts.reset_password(token, request.form.get("password"))
    except DomainError as error:
        return form_refused("auth/reset_password.html", error, token=token)
    flash(_("Your password was changed. Sign in with the new one."), "success")
    return redirect(url_for("auth.login"))
