"""The one family of refusals the domain raises.

`key` is a stable UPPER_SNAKE code: the UI translates it, the agent's tools hand it to the
model, and tests assert it. The HTTP status comes from the subclass, so a route never picks one.
"""

from flask_babel import lazy_gettext as _l

MESSAGES = {
    # generic
    "NOT_FOUND": _l("We couldn't find that. It may have been deleted."),
    "INVALID_INPUT": _l("Some fields need your attention."),
    "FORBIDDEN": _l("You don't have access to this page."),
    "RATE_LIMITED": _l("Too many requests. Please wait a moment and try again."),
    "CSRF_FAILED": _l("Your form expired. Reload the page and try again."),
    # accounts
    "NAME_INVALID": _l("Enter a name between 2 and 256 characters."),
    "EMAIL_INVALID": _l("Enter a valid email address."),
    "EMAIL_TAKEN": _l("An account with this email already exists. Try signing in."),
    "PASSWORD_TOO_SHORT": _l("Use at least 8 characters."),
    "PASSWORD_TOO_LONG": _l("Use at most 256 characters."),
    "PASSWORD_TOO_COMMON": _l("This password is too common. Pick one that is harder to guess."),
    "LANGUAGE_INVALID": _l("Choose English or Portuguese."),
    "TIMEZONE_INVALID": _l("Choose a valid time zone."),
    "INVALID_CREDENTIALS": _l("Email or password is incorrect."),
    "LOGIN_LOCKED": _l("Too many failed attempts for this email. Sign-in is paused for %(minutes)s minutes."),
    "RESET_LINK_INVALID": _l("This reset link is invalid or has already been used."),
    "RESET_LINK_EXPIRED": _l("This reset link has expired. Ask for a new one."),
    # categories, habits, tasks, goals, configuration, export, feedback, icons
    # routines, schedules, today, checks, streaks, constance, day close, history
}


class DomainError(Exception):
    """A refusal with a stable key, a translated message and optional per-field keys.

    `details` maps a form field (or argument name) to the key of what is wrong with it.
    `params` fill the message's placeholders.
    """

    status = 400

    def __init__(self, key, details=None, **params):
        super().__init__(key)
        self.key = key
        self.details = details or {}
        self.params = params

    @property
    def message(self):
        template = MESSAGES.get(self.key)
        return str(template) % self.params if template is not None else self.key

    @property
    def field_messages(self):
        return {field: message_for(key) for field, key in self.details.items()}

    def to_dict(self):
        """The shape a tool result or a JSON answer carries."""
        return {"error": self.key, "message": self.message, "details": self.field_messages}


class NotFound(DomainError):
    status = 404

    def __init__(self, key="NOT_FOUND", **params):
        super().__init__(key, **params)


class Invalid(DomainError):
    status = 422


class Conflict(DomainError):
    status = 409


class Forbidden(DomainError):
    status = 403


class Throttled(DomainError):
    status = 429


def message_for(key, **params):
    template = MESSAGES.get(key)
    return str(template) % params if template is not None else key
