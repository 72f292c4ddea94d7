"""English and Portuguese from day one: every string has its Portuguese, every key its message."""

import functools
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from babel.messages.pofile import read_po

from app.shared.errors import MESSAGES

ROOT = Path(__file__).resolve().parents[2]
PT = ROOT / "app" / "translations" / "pt" / "LC_MESSAGES" / "messages.po"


def catalog():
    with PT.open("rb") as handle:
        return read_po(handle)


TEMPLATES = [*ROOT.glob("templates/**/*.html"), *ROOT.glob("app/**/templates/**/*.html")]


@functools.cache
def extracted():
    """The messages `make extract` finds, extracted the same way."""
    with tempfile.TemporaryDirectory() as folder:
        template = Path(folder) / "messages.pot"
        subprocess.run(
            [Path(sys.executable).with_name("pybabel"), "extract", "-F", "babel.cfg",
             "-k", "_l", "-k", "lazy_gettext", "--ignore-dirs", ".* __pycache__", "-o", str(template), "."],
            cwd=ROOT, check=True, capture_output=True,
        )  # fmt: skip
        with template.open("rb") as handle:
            return [message for message in read_po(handle) if message.id]


def first_id(message):
    return message.id if isinstance(message.id, str) else message.id[0]


def test_every_message_in_the_code_has_a_portuguese_translation():
    wanted = {first_id(m) for m in extracted()}
    # babel.cfg's patterns are relative to the folder extracted (as `make extract` runs it):
    # extracted from "app" and "templates" they matched nothing, and this test checked nothing.
    assert len(wanted) > 1000, f"only {len(wanted)} messages extracted"
    translated = {
        first_id(m)
        for m in catalog()
        if m.id and not m.fuzzy and (all(m.string) if isinstance(m.string, tuple | list) else m.string)
    }
    missing = sorted(wanted - translated)
    assert not missing, f"run `make extract` and translate: {missing[:10]}"


def test_every_template_with_words_is_extracted():
    """Babel's default skips folders whose name starts with "_": the shared partials' words would
    reach Portuguese readers in English, and the test above would never know."""
    read = {location[0] for message in extracted() for location in message.locations}
    with_words = {
        path.relative_to(ROOT).as_posix() for path in TEMPLATES if re.search(r"\b(_|ngettext)\(", path.read_text())
    }
    assert any(name.startswith("templates/_partials/") for name in with_words)
    assert sorted(with_words - read) == []


def test_the_catalog_holds_no_message_the_code_no_longer_says():
    """A string the code dropped is dead text a translator would still be asked to keep."""
    said = {first_id(m) for m in extracted()}
    stale = sorted(first_id(m) for m in catalog() if m.id and first_id(m) not in said)
    assert stale == [], f"run `make extract`: {stale[:10]}"


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
