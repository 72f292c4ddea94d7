"""Refused forms: shown again with what the user typed and why, never lost."""

from flask import render_template, request
from werkzeug.datastructures import MultiDict

# The longest text a field accepts (the mood journal): a refused value is shown back no longer.
ECHO_MAX = 10_000


def echoed_form():
    """What was typed, each value cut to ECHO_MAX characters: a refusal never mirrors a flood."""
    return MultiDict((key, value[:ECHO_MAX]) for key, value in request.form.items(multi=True))


def form_refused(template, error, **context):
    """Re-render `template` (a form or its fragment) with the request's values and the refusal.

    The template receives `form` (what was typed), `error` (the DomainError) and `fields`
    (field -> translated message); the status is the refusal's own (422, 409, 404 …).
    """
    return (
        render_template(template, form=echoed_form(), error=error, fields=error.field_messages, **context),
        error.status,
    )
