"""Finding sources on the web for a study page: Tavily's search API proposes candidates (title,
address, a snippet and the page's text), and the student accepts the ones worth studying into
the page, as a pasted source with that title and the site it came from (sources.paste,
the same service as the sources panel's paste form).

Off unless SOURCE_SEARCH_API_KEY is set; the sources panel then says so. The call goes to
SOURCE_SEARCH_BASE_URL, outside the chat chain and its blocklist, and the privacy page says
where. Only the words the student typed are sent, never anything of their notes or sources.
"""

import logging
from typing import NamedTuple
from urllib.parse import urlsplit

import requests
from flask import current_app

from app.notebook import services as notebook
from app.notebook import sources
from app.shared.errors import DomainError
from app.shared.fields import refuse_if

log = logging.getLogger(__name__)

QUERY_MAX_CHARS = 200
RESULTS = 5
SNIPPET_MAX_CHARS = 400
URL_MAX_CHARS = 2000


class SearchUnavailable(DomainError):
    """Search is off on this server, or the search service did not answer."""

    status = 503


class Candidate(NamedTuple):
    title: str
    url: str
    snippet: str
    text: str  # what the source would hold: the page's text, else the snippet


def configured():
    return bool(current_app.config["SOURCE_SEARCH_API_KEY"])


def find(user, page_id, query):
    """Candidate sources on the web for `query`, the most relevant first."""
    notebook.get_page(user, page_id)
    if not configured():
        raise SearchUnavailable("NOTEBOOK_WEB_SEARCH_OFF")
    words = " ".join(str(query or "").split())
    if not words:
        refuse_if({"q": "NOTEBOOK_WEB_QUERY_REQUIRED"})
    if len(words) > QUERY_MAX_CHARS:
        refuse_if({"q": "NOTEBOOK_SEARCH_TOO_LONG"})
    config = current_app.config
    try:
        answer = requests.post(
            config["SOURCE_SEARCH_BASE_URL"].rstrip("/") + "/search",
            json={"query": words, "max_results": RESULTS, "search_depth": "basic", "include_raw_content": True},
            headers={"Authorization": f"Bearer {config['SOURCE_SEARCH_API_KEY']}"},
            timeout=config["SOURCE_SEARCH_TIMEOUT"],
        )
        answer.raise_for_status()
        results = answer.json()["results"]
        return [candidate for result in results if (candidate := _candidate(result))]
    except (requests.RequestException, ValueError, KeyError, TypeError) as error:
        log.warning("the web source search failed: %s", error)
        raise SearchUnavailable("NOTEBOOK_WEB_SEARCH_FAILED") from error


def _candidate(result):
    """A result worth proposing: a title, an http(s) address, and some text."""
    if not isinstance(result, dict):
        return None
    url = str(result.get("url") or "").strip()
    title = " ".join(str(result.get("title") or "").split())[: sources.SOURCE_TITLE_MAX] or url
    snippet = " ".join(str(result.get("content") or "").split())
    text = str(result.get("raw_content") or "").strip() or snippet
    if not web_address(url) or not text:
        return None
    return Candidate(title, url, snippet[:SNIPPET_MAX_CHARS], with_address(text, url))


def with_address(text, url):
    """The source's text as it is kept: the page's text, cut to what a paste holds, then where it
    came from (so the address stays with the source, and in the export)."""
    tail = f"\n\n{url}"
    return text[: sources.PASTE_MAX_CHARS - len(tail)].rstrip() + tail


def web_address(url):
    parts = urlsplit(url)
    return len(url) <= URL_MAX_CHARS and parts.scheme in ("http", "https") and bool(parts.hostname)


def accept(user, page_id, title, url, text):
    """A proposed candidate into the page as a source; the same refusals as a paste."""
    if not web_address(str(url or "")):
        refuse_if({"url": "NOTEBOOK_WEB_SOURCE_ADDRESS"})
    site = urlsplit(url).hostname[: sources.SOURCE_FILENAME_MAX]
    return sources.paste(user, page_id, text, title, site=site)
