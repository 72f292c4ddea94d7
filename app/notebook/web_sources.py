"""Finding sources on the web for a study page: a search service proposes candidates (title,
address, a snippet and the text the source would hold), and the student accepts the ones worth
studying into the page, as a pasted source with that title and the site it came from
(sources.paste, the same service as the sources panel's paste form).

Two services, chosen by SOURCE_SEARCH, the design's two options:
- `tavily`: Tavily's search API, which answers each page's own text;
- `gemini`: Gemini with its Google Search tool. Its answer is a short description of each page it
  found, grounded in it: the pages are the grounding metadata's chunks (`web.uri`, `web.title`),
  and what is said of each is the text of the supports that cite it. A chunk's address is Google's
  redirect to the page, which lasts a few weeks, so the page's own address is read from it (its
  `Location`, never its body) before it is proposed. Gemini also answers Google's Search
  Suggestions (`searchEntryPoint.renderedContent`), which Google's terms ask to be shown as they
  are beside the results: they are kept for a frame of their own (`suggestions`).

Off unless the chosen service's key is set; the sources panel then says so. The call goes to the
service's own address, outside the chat chain and its blocklist, and the privacy page names it.
Only the words the student typed are sent, never anything of their notes or sources. A service
that fails says how (its quota, this server's key, its time), and the typed words stay. A whole
search — the answer, and each grounding link's redirect — ends within SOURCE_SEARCH_TIMEOUT,
however slowly the service sends its bytes (`_search_client`).
"""

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import NamedTuple
from urllib.parse import urlsplit

import httpx2
from flask import current_app
from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from app.extensions import db
from app.llm.http import ReadBound, link_http_client
from app.llm.settings import Timeouts
from app.notebook import services as notebook
from app.notebook import sources
from app.notebook.models.sources import SearchSuggestions
from app.shared.errors import DomainError
from app.shared.fields import refuse_if
from app.shared.models import utcnow
from app.shared.ownership import owned

log = logging.getLogger(__name__)

QUERY_MAX_CHARS = 200
RESULTS = 5
SNIPPET_MAX_CHARS = 400
URL_MAX_CHARS = 2000
SEARCH_MAX_BYTES = 8 * 1024 * 1024  # five pages' raw text, at the most
CONNECT_SECONDS = 10.0
GEMINI_API_VERSION = "v1beta"
GEMINI_INSTRUCTION = (
    "You find good sources on the web for a student. Search the web for the topic the student "
    f"names, choose up to {RESULTS} pages worth studying from (reference works, university and "
    "textbook pages, reputable explainers), and describe each page in two or three plain sentences: "
    "what it covers and for whom. Describe only pages you found; write in the language of the "
    "student's words."
)
# What each service's refusals mean: its quota (Tavily: 429 rate, 432 plan, 433 pay-as-you-go
# limits; Gemini: 429 RESOURCE_EXHAUSTED), or this server's key (a Gemini key that is not valid is
# a 400 with the reason API_KEY_INVALID).
QUOTA_STATUSES = {429, 432, 433}
KEY_STATUSES = {401, 403}
SUGGESTIONS_KEPT = timedelta(days=1)  # the frame loads right after the search; a day covers a reload


class SearchUnavailable(DomainError):
    """Search is off on this server, or the search service did not answer."""

    status = 503


class Candidate(NamedTuple):
    title: str
    url: str
    snippet: str
    text: str  # what the source would hold: the page's text, else the snippet


class Found(NamedTuple):
    candidates: list[Candidate]
    suggestions_id: object = None  # Google's Search Suggestions to show beside them (Gemini only)


def service():
    """The configured search service: "tavily" or "gemini"."""
    return current_app.config["SOURCE_SEARCH"]


def configured():
    key = "SOURCE_SEARCH_GEMINI_API_KEY" if service() == "gemini" else "SOURCE_SEARCH_API_KEY"
    return bool(current_app.config[key])


def find(user, page_id, query):
    """Candidate sources on the web for `query`, the most relevant first (a `Found`)."""
    notebook.get_page(user, page_id)
    if not configured():
        raise SearchUnavailable("NOTEBOOK_WEB_SEARCH_OFF")
    words = " ".join(str(query or "").split())
    if not words:
        refuse_if({"q": "NOTEBOOK_WEB_QUERY_REQUIRED"})
    if len(words) > QUERY_MAX_CHARS:
        refuse_if({"q": "NOTEBOOK_SEARCH_TOO_LONG"})
    with _search_client(current_app.config) as client:
        if service() != "gemini":
            return Found(_tavily(client, words, current_app.config))
        candidates, suggestions = _gemini(client, words, current_app.config)
    return Found(candidates, _keep_suggestions(user, suggestions) if suggestions else None)


@contextmanager
def _search_client(config) -> Iterator[httpx2.Client]:
    """The HTTP client of one search: every byte it reads, through every request, comes within
    SOURCE_SEARCH_TIMEOUT of the search's start (a per-read timeout alone lets a service that
    trickles a byte a second hold the request for ever)."""
    seconds = config["SOURCE_SEARCH_TIMEOUT"]
    client, transport = link_http_client(Timeouts(connect=min(CONNECT_SECONDS, seconds), total=seconds))
    try:
        with transport.bounded(ReadBound(seconds, SEARCH_MAX_BYTES, what="the web search")):
            yield client
    finally:
        client.close()


def suggestions(user, suggestions_id):
    """The Search Suggestions' HTML kept for the user's search (another user's is not found)."""
    return owned(SearchSuggestions, suggestions_id, user, key="NOTEBOOK_SEARCH_SUGGESTIONS_NOT_FOUND").html


def _keep_suggestions(user, html):
    """Keep a search's Search Suggestions for its frame, letting go of the user's older ones."""
    db.session.execute(
        db.delete(SearchSuggestions).where(
            SearchSuggestions.user_id == user.id, SearchSuggestions.created_at < utcnow() - SUGGESTIONS_KEPT
        )
    )
    kept = SearchSuggestions(user_id=user.id, html=html)
    db.session.add(kept)
    db.session.commit()
    return kept.id


def _tavily(client, words, config):
    try:
        answer = client.post(
            config["SOURCE_SEARCH_BASE_URL"].rstrip("/") + "/search",
            json={"query": words, "max_results": RESULTS, "search_depth": "basic", "include_raw_content": True},
            headers={"Authorization": f"Bearer {config['SOURCE_SEARCH_API_KEY']}"},
        )
    except httpx2.TimeoutException as error:
        raise _failed("NOTEBOOK_WEB_SEARCH_TIMEOUT", error) from error
    except httpx2.HTTPError as error:
        raise _failed("NOTEBOOK_WEB_SEARCH_FAILED", error) from error
    if not answer.is_success:
        raise _refused(answer.status_code, answer.text)
    try:
        results = answer.json()["results"]
        return [candidate for result in results if (candidate := _candidate(result))]
    except (ValueError, KeyError, TypeError) as error:
        raise _failed("NOTEBOOK_WEB_SEARCH_FAILED", error) from error


def _gemini(client, words, config):
    gemini = genai.Client(
        api_key=config["SOURCE_SEARCH_GEMINI_API_KEY"],
        http_options=types.HttpOptions(
            base_url=config["SOURCE_SEARCH_GEMINI_BASE_URL"], api_version=GEMINI_API_VERSION, httpx_client=client
        ),
    )
    try:
        response = gemini.models.generate_content(
            model=config["SOURCE_SEARCH_GEMINI_MODEL"],
            contents=words,
            config=types.GenerateContentConfig(
                system_instruction=GEMINI_INSTRUCTION, tools=[types.Tool(google_search=types.GoogleSearch())]
            ),
        )
    except genai_errors.APIError as error:
        raise _refused(error.code, f"{error.status} {error.message} {error.details}") from error
    except httpx2.TimeoutException as error:
        raise _failed("NOTEBOOK_WEB_SEARCH_TIMEOUT", error) from error
    except (httpx2.TransportError, ValueError) as error:
        raise _failed("NOTEBOOK_WEB_SEARCH_FAILED", error) from error
    return grounded_candidates(client, response), search_suggestions(response)


def search_suggestions(response):
    """Google's Search Suggestions in Gemini's answer (HTML), or None when it searched nothing."""
    candidate = (response.candidates or [None])[0]
    metadata = candidate.grounding_metadata if candidate is not None else None
    entry = metadata.search_entry_point if metadata is not None else None
    return (entry.rendered_content or None) if entry is not None else None


def grounded_candidates(client, response):
    """The pages Gemini's answer is grounded in, each with what the answer says of it: the
    segments of the supports that cite it, in the answer's order."""
    candidate = (response.candidates or [None])[0]
    metadata = candidate.grounding_metadata if candidate is not None else None
    if metadata is None:
        return []  # the model answered without searching: nothing was found to propose
    said = {index: [] for index in range(len(metadata.grounding_chunks or []))}
    for support in metadata.grounding_supports or []:
        text = " ".join(str((support.segment and support.segment.text) or "").split())
        for index in support.grounding_chunk_indices or []:
            if text and index in said and text not in said[index]:
                said[index].append(text)
    found = []
    for index, chunk in enumerate(metadata.grounding_chunks or []):
        if chunk.web is None or not chunk.web.uri or not said[index]:
            continue
        text = " ".join(said[index])
        page = {
            "url": _page_address(client, chunk.web.uri),
            "title": chunk.web.title,
            "content": text,
            "raw_content": text,
        }
        if proposed := _candidate(page):
            found.append(proposed)
        if len(found) == RESULTS:
            break
    return found


def _page_address(client, uri):
    """The page a grounding link leads to (its redirect's `Location`, which `_candidate` refuses
    unless it is a web address); the link itself when it could not be followed in the search's time."""
    if not web_address(uri):
        return uri
    try:
        answer = client.send(client.build_request("GET", uri), follow_redirects=False, stream=True)
        answer.close()
    except httpx2.HTTPError as error:
        log.warning("could not read where a grounding link leads: %s", error)
        return uri
    return answer.headers.get("Location", "") if answer.is_redirect else uri


def _refused(status, said):
    """The search service's refusal, as what the student can do about it."""
    if status in QUOTA_STATUSES:
        key = "NOTEBOOK_WEB_SEARCH_QUOTA"
    elif status in KEY_STATUSES or (status == 400 and "api_key_invalid" in said.lower()):
        key = "NOTEBOOK_WEB_SEARCH_KEY"
    else:
        key = "NOTEBOOK_WEB_SEARCH_FAILED"
    return _failed(key, f"{status}: {said[:300]}")


def _failed(key, error):
    log.warning("the web source search (%s) failed: %s", service(), error)
    return SearchUnavailable(key)


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
