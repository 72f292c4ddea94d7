"""The person's account and settings: signing up, in and out and the password reset (`auth`), the
configuration page (profile, appearance, preferences, widgets, the data export, the danger zone)
and the account row every page reads.
"""

from flask_babel import lazy_gettext as _l

from app.domains import Area, Domain

DOMAIN = Domain(
    "profile",
    Area(_l("Configuration"), "settings", "configuration.index", in_bottom_bar=False, slug="configuration"),
    export={"profile": ("users",)},
    not_exported={"user_sessions": "sign-ins are keys to the account, not the user's data"},
    errors={
        "EMAIL_INVALID": _l("Enter a valid email address."),
        "EMAIL_TAKEN": _l("An account with this email already exists. Try signing in."),
        "PASSWORD_TOO_SHORT": _l("Use at least 8 characters."),
        "PASSWORD_TOO_LONG": _l("Use at most 256 characters."),
        "PASSWORD_TOO_COMMON": _l("This password is too common. Pick one that is harder to guess."),
        "LANGUAGE_INVALID": _l("Choose English or Portuguese."),
        "TIMEZONE_INVALID": _l("Choose a valid time zone."),
        "INVALID_CREDENTIALS": _l("Email or password is incorrect."),
        "LOGIN_LOCKED": _l("Too many failed attempts. Sign-in is paused for %(wait)s: try again after that."),
        "SIGN_UP_LINK_INVALID": _l("This sign-up link is not valid. Ask for a new one."),
        "SIGN_UP_LINK_EXPIRED": _l("This sign-up link has expired. Ask for a new one."),
        "SIGN_UP_LINK_USED": _l("This sign-up link was used already: the account exists. Sign in."),
        "RESET_LINK_INVALID": _l("This reset link is invalid or has already been used."),
        "RESET_LINK_EXPIRED": _l("This reset link has expired. Ask for a new one."),
        "THEME_INVALID": _l("Choose light, dark or system."),
        "CONSTANCE_MODE_INVALID": _l("Choose any completed item or complete routine only."),
        "XP_DECAY_INVALID": _l("Choose gradual, flat or time window."),
        "WIDGET_UNKNOWN": _l("One of these widgets doesn't exist."),
        "WIDGET_DUPLICATE": _l("Each widget can appear only once."),
        "SETTING_UNKNOWN": _l("This is not a setting you can change."),
        "PASSWORD_INCORRECT": _l("That password is not right."),
        "CONFIRMATION_MISMATCH": _l("Type the word exactly as shown to confirm."),
    },
    catalogue=("Configuration",),
    toolset="settings: name, phrase, theme, language, time zone, XP rules, widgets",
)
