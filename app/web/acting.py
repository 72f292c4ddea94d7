"""Who is acting in this request: the one way a route reaches the signed-in user.

Services take a plain `User` row, never Flask-Login's proxy: they put it in the session, compare
it and look its type up (XP owners), which a proxy would get wrong.
"""

from flask import has_request_context
from flask_login import current_user


def acting_user():
    """The signed-in user as a plain row, the form every service takes."""
    return current_user._get_current_object()


def signed_in():
    """Whether someone is signed in (False outside a request)."""
    return has_request_context() and current_user.is_authenticated
