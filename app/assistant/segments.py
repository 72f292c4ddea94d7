"""What a stored answer shows: its segments as the templates draw them, whatever the row holds.

The runner writes segments of two shapes, `{"type": "text", "text": ...}` and `{"type": "tool",
"tool": ..., ...}` (app/assistant/runner.py), but a row is data an older version, a provider's odd
content or a hand-edited database may have left otherwise: a list, a dict, None or a huge text where
a segment or its text should be. Nothing stored may make a chat unopenable, so each segment is
shown as what it is, or as a notice that part of the answer can't be shown; the row itself is
left as it is (the data export gives it whole).
"""

from app.llm import read_content

# Characters of one text segment drawn as Markdown. Far above any model's answer (8k tokens are
# about 32,000 characters), and drawn in about a third of a second at worst (a run of `[`);
# 200,000 characters took seconds.
TEXT_SHOWN_MAX = 40_000

UNREADABLE = {"type": "unreadable"}  # "part of this answer can't be shown"
CUT = {"type": "cut"}  # "the rest is too long to show here"


def shown(segments):
    """The segments to draw, each a text, a tool or one of the two notices above."""
    if segments is None:
        return []
    if not isinstance(segments, list):
        segments = [segments]
    drawn = []
    for segment in segments:
        for piece in _shown(segment):
            if piece is UNREADABLE and drawn and drawn[-1] is UNREADABLE:
                continue
            drawn.append(piece)
    return drawn


def _shown(segment):
    if isinstance(segment, str):
        return _text(segment)
    if not isinstance(segment, dict):
        return [UNREADABLE]
    if segment.get("type") == "text":
        try:
            text, _thought = read_content(segment.get("text"))
        except ValueError:
            return [UNREADABLE]
        return _text(text) if text or segment.get("text") == "" else [UNREADABLE]
    if segment.get("type") == "tool" and isinstance(segment.get("tool"), str) and segment["tool"]:
        return [_tool(segment)]
    return [UNREADABLE]


def _text(text):
    if len(text) <= TEXT_SHOWN_MAX:
        return [{"type": "text", "text": text}]
    return [{"type": "text", "text": text[:TEXT_SHOWN_MAX]}, CUT]


def _tool(segment):
    """A tool's card from what of it is readable: a field of the wrong kind is left out (a page
    that is not one of the app's own paths too: it becomes a link)."""
    domains = segment.get("domains")
    tool = {
        "type": "tool",
        "tool": segment["tool"],
        "kind": "write" if segment.get("kind") == "write" else "read",
        "domains": [d for d in domains if isinstance(d, str)] if isinstance(domains, list) else [],
        "unfinished": segment.get("unfinished") is True,
    }
    page = segment.get("page")
    if isinstance(page, str) and page.startswith("/") and not page.startswith("//"):
        tool["page"] = page
    for field in ("error", "confirmation", "diagram"):
        if isinstance(segment.get(field), str) and segment[field]:
            tool[field] = segment[field]
    return tool
