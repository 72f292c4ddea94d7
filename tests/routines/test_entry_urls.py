"""An entry's action URLs come from one url_for per endpoint and request (`entry_url`): each
must be exactly the URL url_for builds for that entry."""

import uuid

import pytest
from flask import url_for

from app.routines.routes import entry_url

ENDPOINTS = ("routines.check_entry", "routines.skip_entry", "focus.entry")


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_an_entry_url_is_the_one_url_for_builds(app, endpoint):
    ids = [str(uuid.uuid4()) for _ in range(3)]
    with app.test_request_context("/dashboard"):
        assert [entry_url(endpoint, entry_id) for entry_id in ids] == [
            url_for(endpoint, entry_id=entry_id) for entry_id in ids
        ]
