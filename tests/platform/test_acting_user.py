"""Routes reach the signed-in user one way, and services only ever see a plain row."""

import pathlib

APP = pathlib.Path(__file__).resolve().parents[2] / "app"


def test_only_the_acting_module_touches_flask_logins_proxy():
    touching = sorted(
        str(path.relative_to(APP))
        for path in APP.rglob("*.py")
        if "current_user" in path.read_text() and path != APP / "web" / "acting.py"
    )
    assert touching == []


def test_services_never_unwrap_a_proxy():
    unwrapping = [str(path) for path in (APP / "services").rglob("*.py") if "_get_current_object" in path.read_text()]
    assert unwrapping == []
