"""The fake's answers outside the chat protocols: an OpenAI-compatible embeddings endpoint and
Tavily's web search.

Embeddings are deterministic and meaningful enough for retrieval tests: a text's vector is a
hashed bag of its words' stems (the first STEM letters of each word that is not a stop word,
accents dropped), so texts that share stems are close and unrelated texts are nearly orthogonal.
"""

from __future__ import annotations

import base64
import hashlib
import math
import re
import unicodedata
from array import array
from typing import Any

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
