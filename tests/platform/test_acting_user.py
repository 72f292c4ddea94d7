"""Routes reach the signed-in user one way, and services only ever see a plain row."""

import pathlib
import re

from app import domains

APP = pathlib.Path(__file__).resolve().parents[2] / "app"
UNWRAPPING_A_USER = re.compile(r"(?<!current_app)\._get_current_object")


def _service_files():
    """Every module of every domain package but its declaration and its routes (a `bp`)."""
    for domain in domains.DOMAINS:
        for path in APP.joinpath(*domain.package.split(".")[1:]).rglob("*.py"):
            if path.name != "__init__.py" and "bp = " not in path.read_text():
                yield path


def test_only_the_acting_module_touches_flask_logins_proxy():
    touching = sorted(
        str(path.relative_to(APP))
        for path in APP.rglob("*.py")
        if "current_user" in path.read_text() and path != APP / "web" / "acting.py"
    )
    assert touching == []


def test_services_never_unwrap_a_proxy():
    services = list(_service_files())
    assert len(services) > 40
    # The app object a background thread needs is unwrapped; a user never is.
    unwrapping = [str(path) for path in services if UNWRAPPING_A_USER.search(path.read_text())]
    assert unwrapping == []
