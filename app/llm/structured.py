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
from collections.abc import Iterator
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from app.llm.errors import ChainExhausted, LLMError

Schema = TypeVar("Schema", bound=BaseModel)

# Reasoning some OpenAI-compatible servers (Ollama, vLLM with a reasoning model) leave in the
# content before the answer.
_THINKING = re.compile(r"^\s*<think>.*?</think>", re.DOTALL)


class Unreadable(ValueError):
    """An answer holding no object the schema accepts; `cut` when it ends inside its JSON (the
    provider stopped at its token limit: finish_reason "length", Gemini's MAX_TOKENS)."""

    def __init__(self, reason: str, *, cut: bool = False):
        super().__init__(reason)
        self.cut = cut


class AnswerUnreadable(ChainExhausted):
    """Models answered, but not with an object the schema accepts, even after the one repair. Not
    an outage, so not "no model could be reached": its own key, which each door turns into its own
    "the answer could not be used, try again", and the door keeps the unit its bucket spent
    (app/llm/door.py)."""

    key = "AI_ANSWER_UNUSABLE"

    def __init__(self, failures: list[LLMError]):
        super().__init__(failures)
        self.args = (f"no answer could be used: {'; '.join(str(f) for f in self.failures)}",)


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
    found = []
    for start, end in _top_level_braces(body):
        if end is None:
            raise Unreadable("the answer was cut off inside its JSON object", cut=True)
        try:
            found.append(json.loads(body[start:end]))
        except ValueError:
            continue  # braces in prose ("{name}"), or an object broken inside: none of its parts is the answer
    if len(found) == 1:
        return found[0]
    if found:
        raise Unreadable(f"the answer holds {len(found)} JSON objects; which one is meant would be a guess")
    raise Unreadable("the answer holds no JSON object")


def _top_level_braces(text: str) -> Iterator[tuple[int, int | None]]:
    """(start, end) of each outermost `{...}` of `text`, braces inside JSON strings not counted;
    the last one's end is None when the text ends before it closes (a cut answer). An object
    inside another is part of it, never a candidate of its own."""
    depth, start, in_string, escaped = 0, 0, False, False
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"' and depth:
            in_string = True
        elif char == "{":
            if depth == 0:
                start = index
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                yield start, index + 1
    if depth:
        yield start, None
