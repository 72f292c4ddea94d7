"""English and Portuguese from day one: every string has its Portuguese, every key its message."""

import re
import subprocess
import sys
from pathlib import Path

from babel.messages.pofile import read_po

from app.shared.errors import MESSAGES

ROOT = Path(__file__).resolve().parents[2]
PT = ROOT / "app" / "translations" / "pt" / "LC_MESSAGES" / "messages.po"


def catalog():
    with PT.open("rb") as handle:
        return read_po(handle)


def test_every_message_in_the_code_has_a_portuguese_translation(tmp_path):
    template = tmp_path / "messages.pot"
    subprocess.run(
        [Path(sys.executable).with_name("pybabel"), "extract", "-F", "babel.cfg",
         "-k", "_l", "-k", "lazy_gettext", "-o", str(template), "."],
        cwd=ROOT, check=True, capture_output=True,
    )  # fmt: skip
    with template.open("rb") as handle:
        wanted = {m.id if isinstance(m.id, str) else m.id[0] for m in read_po(handle) if m.id}
    # babel.cfg's patterns are relative to the folder extracted (as `make extract` runs it):
    # extracted from "app" and "templates" they matched nothing, and this test checked nothing.
    assert len(wanted) > 1000, f"only {len(wanted)} messages extracted"
    translated = {
        m.id if isinstance(m.id, str) else m.id[0]
        for m in catalog()
        if m.id and not m.fuzzy and (all(m.string) if isinstance(m.string, tuple | list) else m.string)
    }
    missing = sorted(wanted - translated)
    assert not missing, f"run `make extract` and translate: {missing[:10]}"


def test_placeholders_survive_translation():
    for message in catalog():
        if message.id and message.string and isinstance(message.id, str):
            assert set(re.findall(r"%\(\w+\)s", message.id)) == set(re.findall(r"%\(\w+\)s", message.string)), (
                message.id
            )


def test_error_keys_are_stable_upper_snake_codes():
    for key in MESSAGES:
        assert re.fullmatch(r"[A-Z][A-Z0-9_]+", key), key


def test_every_plural_form_has_its_portuguese():
    """The Portuguese of "3 sections" is "3 seções": a plural entry with any form left empty would
    fall back to English for that count."""
    plurals = [message for message in catalog() if message.id and isinstance(message.id, tuple | list)]
    assert plurals
    for message in plurals:
        assert all(message.string), message.id
        assert not message.fuzzy, message.id
        for form in message.string:
            assert "%(num)s" in form, (message.id, form)
