"""The assistant's text, from Markdown to HTML that is safe to put in the page.

Raw HTML from the model is never rendered (markdown-it escapes it), and the result goes through
nh3 with a short allow-list: no images (nothing remote is ever loaded), no scripts, no styles.
Links keep relative app paths (they navigate in the app) and http(s)/mailto addresses.
"""

import nh3
from markdown_it import MarkdownIt

_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False, "breaks": True}).enable("table")

ALLOWED_TAGS = {
    "p", "br", "strong", "em", "code", "pre", "blockquote", "ul", "ol", "li", "a", "hr",
    "table", "thead", "tbody", "tr", "th", "td", "h3", "h4", "h5", "h6", "del",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "th": {"align"}, "td": {"align"}, "ol": {"start"}}


def _demote_headings(html):
    """Headings inside a chat bubble read as shouting; the biggest allowed is h3."""
    for level in (1, 2):
        html = html.replace(f"<h{level}>", "<h3>").replace(f"</h{level}>", "</h3>")
    return html


def render(text):
    html = _demote_headings(_markdown.render(text or ""))
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes={"http", "https", "mailto"},
        link_rel="noopener noreferrer",
    )
