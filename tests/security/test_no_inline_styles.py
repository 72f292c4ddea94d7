"""The pages' policy (`style-src 'self'`) refuses style attributes and <style> elements, and Chromium
logs every refusal as a console error; so no template writes one, and htmx is told not to inject
its indicator style. Setting `element.style` from a script (the CSSOM) is allowed and not checked.

Two frames are the exceptions, each with a policy of its own (app/notebook/routes.py): the diagram
frame, where Mermaid needs inline styles (DIAGRAM_FRAME_POLICY), and the frame of Google's Search
Suggestions, which come with their own <style> (SUGGESTIONS_FRAME_POLICY).
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OWN_POLICY = {
    ROOT / "app/notebook/templates/notebook/diagram_frame.html",
    ROOT / "app/notebook/templates/notebook/search_suggestions_frame.html",
}
INLINE_STYLE = re.compile(r"""\sstyle\s*=|<style[\s>]""", re.IGNORECASE)


def templates():
    return sorted({*ROOT.glob("templates/**/*.html"), *ROOT.glob("app/**/templates/**/*.html")} - OWN_POLICY)


def test_no_template_writes_an_inline_style():
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in templates()
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if INLINE_STYLE.search(line)
    ]
    assert len(templates()) > 100
    assert found == [], "inline styles the policy would refuse:\n" + "\n".join(found)


def test_htmx_injects_no_indicator_style(client):
    response = client.get("/login")
    assert '"includeIndicatorStyles": false' in response.get_data(as_text=True)
    assert "style-src 'self';" in response.headers["Content-Security-Policy"]
