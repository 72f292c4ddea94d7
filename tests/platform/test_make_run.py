"""`make run` serves on $PORT (5000 by default), as the Procfile's web process binds $PORT."""

import os
import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]


def served_line(*arguments, env=None):
    """The `flask run` line `make run` would execute (dry run: nothing is installed or started)."""
    printed = subprocess.run(
        ["make", "-n", "run", *arguments], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    ).stdout
    return next(line for line in printed.splitlines() if "flask run" in line)


def test_make_run_serves_on_5000_by_default(monkeypatch):
    monkeypatch.delenv("PORT", raising=False)
    line = served_line()
    assert re.search(r"--port 5000\b", line)
    assert "http://127.0.0.1:5000" in line


def test_make_run_honours_port_from_the_command_line_and_the_environment():
    assert re.search(r"--port 5123\b", served_line("PORT=5123"))
    line = served_line(env={**os.environ, "PORT": "5124"})
    assert re.search(r"--port 5124\b", line)
    # Emailed links name the port the app really listens on, unless BEYOU_PUBLIC_URL says otherwise.
    assert "http://127.0.0.1:5124" in line
