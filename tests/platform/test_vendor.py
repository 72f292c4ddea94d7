"""The vendored front-end files are exactly the recorded versions."""

import hashlib
from pathlib import Path

VENDOR = Path(__file__).resolve().parents[2] / "static" / "vendor"


def test_vendored_files_match_their_recorded_sha256():
    recorded = dict(reversed(line.split()) for line in (VENDOR / "SHA256SUMS").read_text().splitlines())
    assert set(recorded) == {p.name for p in VENDOR.iterdir() if p.suffix in {".js", ".svg"}}
    for name, digest in recorded.items():
        assert hashlib.sha256((VENDOR / name).read_bytes()).hexdigest() == digest, name


def test_the_pages_load_the_recorded_versions():
    base = (VENDOR.parents[1] / "templates" / "base.html").read_text()
    for name in ("htmx-2.0.11.min.js", "htmx-ext-sse-2.2.4.min.js", "htmx-ext-ws-2.0.4.min.js"):
        assert f"vendor/{name}" in base
