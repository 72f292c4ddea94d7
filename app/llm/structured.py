"""Reading a structured answer as models really send it.

JSON mode and response schemas make a bare object likely, not certain: models wrap it in code
fences, put a sentence before or after it, add fields, send numbers as strings, or are cut off at
the token limit. What can be read without guessing is read: the one JSON object in the answer,
wherever it sits; fields the schema does not name are ignored and "3" is 3 where the schema says a
number (pydantic's lax mode, the default of every answer model). Everything else is `Unreadable`,
and says whether the answer was cut, so the chain's one repair can ask for a shorter one.
"""

from __future__ import annotations

import json
import re
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from app.llm.errors import ChainExhausted

Schema = TypeVar("Schema", bound=BaseModel)

# Reasoning some OpenAI-compatible servers (Ollama, vLLM with a reasoning model) leave in the
# content before the answer.
_THINKING = re.compile(r"^\s*<think>.*?</think>", re.DOTALL)
_DECODER = json.JSONDecoder()


class Unreadable(ValueError):
    """An answer holding no object the schema accepts; `cut` when it ends inside its JSON (the
    provider stopped at its token limit: finish_reason "length", Gemini's MAX_TOKENS)."""

    def __init__(self, reason: str, *, cut: bool = False):
        super().__init__(reason)
        self.cut = cut


class AnswerUnreadable(ChainExhausted):
    """Models answered, but not with an object the schema accepts, even after the one repair. Not
    an outage: the door keeps the unit its bucket spent (app/llm/door.py)."""


def read(text: object, schema: type[Schema]) -> Schema:
    """The answer `text` as `schema`, or `Unreadable`."""
    if not isinstance(text, str):
        raise Unreadable(f"the answer is {type(text).__name__}, not text")
    found = the_object(text)
    try:
        return schema.model_validate(found)
    except ValidationError as invalid:
        problems = "; ".join(
            f"{'.'.join(map(str, error['loc'])) or '(object)'}: {error['msg']}" for error in invalid.errors()[:5]
        )
        raise Unreadable(f"does not match {schema.__name__}: {problems}") from None


def the_object(text: str) -> dict:
    """The one JSON object in `text`: the whole of it, or the only object among prose and code
    fences (after a reasoning model's `<think>` block). Two objects would be a guess."""
    body = _THINKING.sub("", text.strip().lstrip("\ufeff"), count=1).strip()
    if not body:
        raise Unreadable("the answer is empty")
    try:
        whole = json.loads(body)
    except ValueError:
        pass
    else:
        if isinstance(whole, dict):
            return whole
        raise Unreadable(f"the answer is a JSON {type(whole).__name__}, not an object")
    found = _objects_in(body)
    if len(found) == 1:
        return found[0]
    if found:
        raise Unreadable(f"the answer holds {len(found)} JSON objects; which one is meant would be a guess")
    if _cut_short(body):
        raise Unreadable("the answer was cut off inside its JSON object", cut=True)
    raise Unreadable("the answer holds no JSON object")


def _objects_in(text: str) -> list[dict]:
    """Every complete top-level JSON object in `text`, left to right (one inside another is part
    of it, not another object)."""
    found: list[dict] = []
    at = text.find("{")
    while at >= 0:
        try:
            value, end = _DECODER.raw_decode(text, at)
        except ValueError:
            at = text.find("{", at + 1)
            continue
        found.append(value)
        at = text.find("{", end)
    return found


def _cut_short(text: str) -> bool:
    """Whether an object starts in `text` that is valid JSON cut short: the decoder ran out of
    text (an unterminated string runs to the end too), not into an error."""
    at = text.find("{")
    while at >= 0:
        try:
            _DECODER.raw_decode(text, at)
        except json.JSONDecodeError as error:
            if error.pos >= len(text) or error.msg.startswith("Unterminated string"):
                return True
        at = text.find("{", at + 1)
    return False
