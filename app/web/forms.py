"""Refused forms: shown again with what the user typed and why, never lost."""

from flask import render_template, request


def form_refused(template, error, **context):
    """Re-render `template` (a form or its fragment) with the request's values and the refusal.

    The template receives `form` (what was typed), `error` (the DomainError) and `fields`
    (field -> translated message); the status is the refusal's own (422, 409, 404 …).
    """
    return (
        render_template(template, form=request.form, error=error, fields=error.field_messages, **context),
        error.status,
    )
