"""The one family of refusals the domain raises.

`key` is a stable UPPER_SNAKE code: the UI translates it, the agent's tools hand it to the
model, and tests assert it. The HTTP status comes from the subclass, so a route never picks one.
"""

from flask_babel import lazy_gettext as _l

from app import domains

SHARED_MESSAGES = {
    # any request
    "NOT_FOUND": _l("We couldn't find that. It may have been deleted."),
    "INVALID_INPUT": _l("Some fields need your attention."),
    "FORBIDDEN": _l("You don't have access to this page."),
    "RATE_LIMITED": _l("Too many requests. Please wait a moment and try again."),
    "CSRF_FAILED": _l("Your form expired. Reload the page and try again."),
    "TEXT_HAS_NUL": _l("Text can't contain the NUL character (U+0000). Remove it and try again."),
    "TEXT_TOO_LARGE": _l("That is more text than Beyou accepts at once. Shorten it and try again."),
    # fields several domains share (app/shared/fields.py, values.py)
    "NAME_INVALID": _l("Enter a name between 2 and 256 characters."),
    "TEXT_TOO_LONG": _l("Use at most 256 characters."),
    "SCALE_INVALID": _l("Choose a value from 1 to 5."),
    "EXPERIENCE_INVALID": _l("Choose beginner, intermediate or advanced."),
    "DATE_INVALID": _l("Enter a valid date (YYYY-MM-DD) between 1900 and 2100."),
}
"""The refusals no one domain owns; each domain declares its own in app/domains.py."""


def _every_message():
    messages = dict(SHARED_MESSAGES)
    for domain in domains.DOMAINS:
        twice = messages.keys() & domain.errors.keys()
        if twice:
            raise ValueError(f"{domain.name} declares refusal keys declared elsewhere: {sorted(twice)}")
        messages.update(domain.errors)
    return messages


MESSAGES = _every_message()


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
