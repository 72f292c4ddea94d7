"""The fake's answers outside the chat protocols: an OpenAI-compatible embeddings endpoint,
Tavily's web search, and Gemini's `generateContent` with its Google Search tool.

Embeddings are deterministic and meaningful enough for retrieval tests: a text's vector is a
hashed bag of its words' stems (the first STEM letters of each word that is not a stop word,
accents dropped), so texts that share stems are close and unrelated texts are nearly orthogonal.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import math
import re
import unicodedata
from array import array
from html import escape
from typing import Any
from urllib.parse import quote_plus

DIMENSIONS = 1024
STEM = 5
_WORD = re.compile(r"[^\W_]+")
_IGNORED_WORDS = """a an and are as at be by can do does for from how in is it of on or that the this to was
    were what when where which who why with o a os as de do da dos das e é em um uma que qual como
    por para no na se"""
_IGNORED = set(_IGNORED_WORDS.split())


def stems(text: str) -> list[str]:
    plain = "".join(c for c in unicodedata.normalize("NFD", text.lower()) if not unicodedata.combining(c))
    return [word[:STEM] for word in _WORD.findall(plain) if word not in _IGNORED and len(word) > 1]


def vector(text: str) -> list[float]:
    """The hashed bag of stems, unit length (a text with no stem gets a fixed unit vector)."""
    values = [0.0] * DIMENSIONS
    for stem in stems(text) or ["<empty>"]:
        values[int(hashlib.sha256(stem.encode()).hexdigest(), 16) % DIMENSIONS] += 1.0
    norm = math.sqrt(sum(v * v for v in values))
    return [v / norm for v in values]


def embeddings_answer(body: dict, model: str) -> dict:
    """`POST /embeddings` as OpenAI answers it, in the encoding the client asked for."""
    texts = body.get("input")
    texts = [texts] if isinstance(texts, str) else list(texts or [])
    as_base64 = body.get("encoding_format") == "base64"
    data = []
    for index, text in enumerate(texts):
        values: Any = vector(str(text))
        if as_base64:
            values = base64.b64encode(array("f", values).tobytes()).decode()
        data.append({"object": "embedding", "index": index, "embedding": values})
    tokens = sum(len(str(text).split()) for text in texts)
    return {"object": "list", "data": data, "model": model, "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}


def tavily_answer(body: dict) -> dict:
    """Tavily's `POST /search` when nothing is scripted: two results about the query."""
    query = str(body.get("query", ""))
    results = [
        {
            "title": f"{query.title()} — {kind}",
            "url": f"https://example.org/{index}/{'-'.join(query.lower().split())}",
            "content": f"A short overview of {query}.",
            "raw_content": f"{query.title()}\n\nA longer text about {query}, paragraph {index}.",
            "score": 0.9 - index / 10,
        }
        for index, kind in ((1, "an introduction"), (2, "a study guide"))
    ]
    return {"query": query, "results": results, "response_time": 0.01}


# -- Gemini with Google Search -------------------------------------------------------------------
#
# A grounded answer as the Gemini API sends it (ai.google.dev/gemini-api/docs/google-search, "Understanding
# the grounding response"; the REST reference's GroundingMetadata): the model's text, and under the
# candidate's `groundingMetadata` the queries it ran, the Search Suggestions' HTML, one
# `groundingChunks[].web` per page (`uri` a vertexaisearch.cloud.google.com grounding-api-redirect
# link, `title` the page's site) and `groundingSupports`: segments of the text (UTF-8 byte offsets,
# `startIndex` left out when 0 as proto3 JSON does, and the segment's `text`) with the indices of the
# chunks that support them. A segment may cite several chunks.

REDIRECT = "grounding-api-redirect"


def google_search_requested(body: dict) -> bool:
    return any("googleSearch" in tool or "google_search" in tool for tool in body.get("tools") or [])


def default_grounding(query: str) -> list[dict]:
    """Two pages about `query`, when nothing is scripted."""
    slug = "_".join(query.split()) or "topic"
    return [
        {
            "title": "wikipedia.org",
            "url": f"https://en.wikipedia.org/wiki/{slug}",
            "said": f"The encyclopedia article on {query} covers its history, its parts and how they work.",
        },
        {
            "title": "khanacademy.org",
            "url": f"https://www.khanacademy.org/science/{slug.lower()}",
            "said": f"A beginner's lesson on {query} works through examples and practice questions.",
        },
    ]


def search_suggestions_html(query: str) -> str:
    """Google's Search Suggestions as `searchEntryPoint.renderedContent` carries them: a <style>
    of its own, then a headline and a carousel of chips, each a link to Google's results for one
    of `webSearchQueries` (the shape of public recordings, e.g. aaronlifton/.config's
    lua/util/model/metadata.lua, and ai.google.dev's "Use Google Search Suggestions")."""
    link = "https://www.google.com/search?q=" + quote_plus(query) + "&client=app-vertex-grounding&safesearch=active"
    return (
        "<style>\n.container {\n  align-items: center;\n  border-radius: 8px;\n  display: flex;\n"
        "  font-family: Google Sans, Roboto, sans-serif;\n  font-size: 14px;\n  line-height: 20px;\n"
        "  padding: 8px 12px;\n}\n.chip {\n  display: inline-block;\n  border: solid 1px;\n"
        "  border-radius: 16px;\n  min-width: 14px;\n  padding: 5px 16px;\n  text-align: center;\n"
        "  user-select: none;\n  margin: 0 8px;\n}\n.carousel {\n  overflow: auto;\n  scrollbar-width: none;\n"
        "  white-space: nowrap;\n  margin-right: -12px;\n}\n</style>\n"
        '<div class="container">\n  <div class="headline">\n'
        '    <svg class="logo-light" width="18" height="18" viewBox="9 9 35 35" fill="none" '
        'xmlns="http://www.w3.org/2000/svg"><path d="M42.8622 27.0064C42.8622 25.7839 42.7525 24.6084 '
        '42.5487 23.4799H26.3109V30.1568H35.5897" fill="#4285F4"/></svg>\n  </div>\n'
        f'  <div class="carousel">\n    <a class="chip" href="{link}">{escape(query)}</a>\n  </div>\n</div>\n'
    )


def gemini_grounded_answer(pages: list[dict], query: str, model: str, redirect_base: str) -> dict:
    """`generateContent`'s answer with grounding: one sentence per page, each supported by its
    page, then one closing sentence supported by all of them."""
    sentences = [(page["said"], [index]) for index, page in enumerate(pages)]
    if len(pages) > 1:
        sentences.append(("Each of them explains the topic from the basics.", list(range(len(pages)))))
    text, supports, at = "", [], 0
    for sentence, cited in sentences:
        piece = sentence if not text else " " + sentence
        start = at + (0 if not text else 1)
        text += piece
        at += len(piece.encode())
        segment: dict[str, Any] = {"endIndex": at, "text": sentence}
        if start:
            segment["startIndex"] = start
        supports.append({"segment": segment, "groundingChunkIndices": cited})
    chunks = [{"web": {"uri": redirect_base + _token(page["url"]), "title": page["title"]}} for page in pages]
    metadata = {
        "searchEntryPoint": {"renderedContent": search_suggestions_html(query)},
        "groundingChunks": chunks,
        "groundingSupports": supports,
        "webSearchQueries": [query],
    }
    return {
        "candidates": [
            {
                "content": {"role": "model", "parts": [{"text": text}]},
                "finishReason": "STOP",
                "index": 0,
                "groundingMetadata": metadata,
            }
        ],
        "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": len(text.split()), "totalTokenCount": 0},
        "modelVersion": model,
        "responseId": "fake-grounded",
    }


def _token(url: str) -> str:
    return base64.urlsafe_b64encode(url.encode()).decode().rstrip("=")


def redirect_target(token: str) -> str | None:
    """Where a grounding link of ours leads (None: a token we never gave)."""
    try:
        return base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError):
        return None
