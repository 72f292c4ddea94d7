"""Links that speak the OpenAI chat-completions protocol: Mistral, GLM, NVIDIA, DeepSeek, local.

The servers differ in small, strict ways, written down per link in `Dialect`: Mistral refuses
unknown fields (`stream_options`) and tool-call ids that are not 9 alphanumerics; NVIDIA's hosted
Llama has no JSON mode; Mistral and local servers (llama.cpp, Ollama, vLLM) take the answer's JSON
schema and hold the model to it, the others only a JSON object. DeepSeek's `reasoning_content`
is kept as a provider extra and sent back only to DeepSeek.

A message's `content` is a string, or (Mistral's reasoning models) a list of typed pieces:
`{"type": "text", "text": ...}` is the answer, `{"type": "thinking", "thinking": [{"type":
"text", "text": ...}]}` the model thinking aloud, which never becomes answer text nor goes back
to any link (`read_content`). Its text is read for what servers leave unparsed in it, `<think>`
and `<tool_call>` blocks and fenced JSON calls (`model_text.TaggedText`), and a tool call's
arguments as small models write them (`model_text.read_arguments`): a call whose arguments cannot
be read is still a call, answered with what was wrong.
"""

from __future__ import annotations

import itertools
import json
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import httpx2
import openai
from pydantic import BaseModel, model_serializer

from app.llm.errors import FailureKind, LLMError
from app.llm.http import link_http_client
from app.llm.messages import (
    AdapterEvent,
    ChatRequest,
    Completed,
    Generating,
    Message,
    PromptPieces,
    ToolCall,
    ToolCallReady,
    ToolSpec,
    Usage,
    read_content,
)
from app.llm.providers.base import (
    ProviderAdapter,
    google_limit,
    join_system,
    kind_for_limit,
    kind_for_status,
    named_limit,
    retry_after_seconds,
    schema_instruction,
)
from app.llm.providers.model_text import TaggedText, read_arguments
from app.llm.schemas import portable_schema, response_schema
from app.llm.settings import LinkSettings, Timeouts
from app.llm.tool_ids import common_id, mistral_id, new_call_id

log = logging.getLogger(__name__)

REASONING_FIELD = "reasoning_content"
# The model thinking, under another name: `reasoning` is how vLLM, Ollama and OpenRouter stream it.
# It is model activity (the idle budget hears it) and is never kept.
THINKING_FIELD = "reasoning"

# Error codes that say the model's own output failed, not our request: Groq's 400
# `tool_use_failed` (the model wrote a tool call that does not parse), sent as the status's body,
# `{"error": {"message": "Failed to call a function. Please adjust your prompt. See
# 'failed_generation' for more details.", "type": "invalid_request_error", "code":
# "tool_use_failed", "failed_generation": "..."}}` (groq/groq-typescript#28), or streamed as an
# error event with `"status_code": 400` in it (langchain4j/langchain4j#2585). Another link, or
# the same one later, may well answer: `malformed`, like any answer that does not read.
MODEL_OUTPUT_FAILURES = frozenset({"tool_use_failed"})


# How a structured answer is asked for (`Dialect.json_mode`): any JSON object, or one that matches
# the schema sent along (`response_format: {"type": "json_schema", "json_schema": {"name",
# "schema", "strict"}}`), which the server enforces.
JSON_OBJECT = "json_object"
JSON_SCHEMA = "json_schema"


@dataclass(frozen=True)
class Dialect:
    tool_call_id: Callable[[str], str] = common_id
    stream_usage_option: bool = True
    tool_result_name: bool = False
    json_mode: str | None = JSON_OBJECT  # None: no JSON mode at all (the prompt alone asks for JSON)
    strict_schema: bool = False  # json_schema with "strict": true


DIALECTS: dict[str, Dialect] = {
    # Mistral's structured outputs take a JSON schema in every model; its own client sends a
    # pydantic model as `{"name": <class name>, "schema": <closed schema>, "strict": true}`
    # (docs.mistral.ai/capabilities/structured-output/custom; mistralai/client-python,
    # extra/utils/response_format.py).
    "mistral": Dialect(
        tool_call_id=mistral_id,
        stream_usage_option=False,
        tool_result_name=True,
        json_mode=JSON_SCHEMA,
        strict_schema=True,
    ),
    "glm": Dialect(stream_usage_option=False),
    "nvidia": Dialect(json_mode=None),
    # llama.cpp's server turns `json_schema.schema` into a grammar (ggml-org/llama.cpp#9527), and
    # Ollama and vLLM constrain decoding to it, whatever `strict` says; `strict` stays false, since
    # a server that applied OpenAI's strict rules would refuse a schema with optional properties.
    "local": Dialect(json_mode=JSON_SCHEMA),
}


class _JoinedOnTheWire(BaseModel):
    """The system prompt's text, joined only as the SDK encodes the body (its JSON encoder dumps
    a pydantic model where it finds one). The SDK's frames hold a call's params until the model's
    first byte, so a prompt joined beforehand would be held whole by every turn waiting on its
    model, where its pieces are mostly the template's own strings, which every turn shares."""

    prompt: PromptPieces

    @model_serializer
    def _text(self) -> str:
        return str(self.prompt)


class OpenAICompatAdapter(ProviderAdapter):
    def __init__(self, link: LinkSettings, timeouts: Timeouts):
        super().__init__(link, timeouts)
        self.dialect = DIALECTS.get(link.name, Dialect())
        self._http, self.transport = link_http_client(timeouts)
        self._client = openai.OpenAI(
            api_key=link.api_key or "no-key",
            base_url=link.base_url,
            max_retries=0,
            timeout=timeouts.total,
            http_client=self._http,
        )

    def stream(self, request: ChatRequest) -> Iterator[AdapterEvent]:
        """The SDK sends the request and turns an HTTP error into its exception; the answer's events
        are read from its response's lines here (`_chunks`). Iterating the SDK's stream builds a
        pydantic object for every chunk: ~0.3 ms before each first token, and more on every token."""
        params = self._params(request)
        if self.dialect.stream_usage_option:
            params["stream_options"] = {"include_usage": True}
        sdk_stream = None
        try:
            sdk_stream = self._client.chat.completions.create(stream=True, **params)
            # Held here until the response is closed: a line reader let go of at `[DONE]` would
            # close the connection under it before the transport reads the body's end.
            lines = sdk_stream.response.iter_lines()
            yield from self._events(_chunks(lines), TaggedText(tools=[tool.name for tool in request.tools]))
        except LLMError:
            raise
        except Exception as exc:  # every SDK/transport exception becomes the taxonomy
            raise self._translate(exc) from exc
        finally:
            if sdk_stream is not None:
                sdk_stream.close()

    def complete_json(self, request: ChatRequest, schema: type[BaseModel]) -> str:
        params = self._params(request, extra_system=schema_instruction(portable_schema(schema)), with_tools=False)
        if self.dialect.json_mode == JSON_SCHEMA:
            json_schema = {"name": schema.__name__[:64], "schema": response_schema(schema)}
            json_schema["strict"] = self.dialect.strict_schema
            params["response_format"] = {"type": JSON_SCHEMA, "json_schema": json_schema}
        elif self.dialect.json_mode == JSON_OBJECT:
            params["response_format"] = {"type": JSON_OBJECT}
        try:
            completion = self._client.chat.completions.create(**params)
        except Exception as exc:
            raise self._translate(exc) from exc
        if not completion.choices:
            raise self.failure(FailureKind.MALFORMED, 200, "completion without choices")
        return self._read_content(completion.choices[0].message.content)[0]

    def close(self) -> None:
        self._http.close()

    # -- request ---------------------------------------------------------------------------------

    def _params(self, request: ChatRequest, *, extra_system: str = "", with_tools: bool = True) -> dict[str, Any]:
        # The messages and tools go as `extra_body`, which the SDK merges into the JSON as given.
        # As `messages=` and `tools=` it would walk and copy every message and schema on every
        # call (~0.5 ms for a short chat and ~3.5 ms for the full catalogue, and the copy held
        # until the stream ends). `messages` must still be named, so it is named empty; the
        # body's own list replaces it on the wire.
        body: dict[str, Any] = {"messages": self._messages(request, extra_system)}
        if with_tools and request.tools:
            body["tools"] = [_tool_entry(spec) for spec in request.tools]
        params: dict[str, Any] = {"model": self.model, "messages": [], "extra_body": body}
        if request.temperature is not None:
            params["temperature"] = request.temperature
        return params

    def _messages(self, request: ChatRequest, extra_system: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        system = join_system(request.system, extra_system)
        if system:
            out.append({"role": "system", "content": _JoinedOnTheWire.model_construct(prompt=system)})
        out.extend(self._message(m) for m in request.messages)
        return out

    def _message(self, message: Message) -> dict[str, Any]:
        if message.role == "tool":
            result = {
                "role": "tool",
                "tool_call_id": self.dialect.tool_call_id(message.tool_call_id or ""),
                "content": message.content,
            }
            if self.dialect.tool_result_name and message.name:
                result["name"] = message.name
            return result
        if message.role != "assistant":
            return {"role": message.role, "content": message.content}
        assistant: dict[str, Any] = {"role": "assistant", "content": message.content or None}
        if message.tool_calls:
            assistant["tool_calls"] = [
                {
                    "id": self.dialect.tool_call_id(call.id),
                    "type": "function",
                    "function": {
                        "name": call.name,
                        "arguments": json.dumps(call.arguments, ensure_ascii=False),
                    },
                }
                for call in message.tool_calls
            ]
        elif not message.content:
            assistant["content"] = ""
        assistant.update(message.provider_extras.get(self.name, {}))
        return assistant

    # -- response --------------------------------------------------------------------------------

    def _events(self, chunks: Iterator[Any], text: TaggedText) -> Iterator[AdapterEvent]:
        """Text as it comes (read through `text`); the tool calls only once the stream has ended
        with a finish reason, each checked before any is released (a round that breaks off must
        run no tool), those read from the content after the server's own."""
        slots: dict[int, dict[str, str]] = {}
        finish_reason: str | None = None
        usage: Usage | None = None
        reasoning: list[str] = []
        for chunk in chunks:
            if not isinstance(chunk, dict):
                raise self.failure(FailureKind.MALFORMED, 200, f"a stream chunk that is not an object: {chunk!r:.80}")
            if chunk.get("error"):
                raise self._stream_error(chunk["error"])
            if counted := chunk.get("usage"):
                usage = Usage(counted.get("prompt_tokens") or 0, counted.get("completion_tokens") or 0)
            for choice in chunk.get("choices") or []:
                delta = choice.get("delta")
                if delta:
                    if thought := delta.get(REASONING_FIELD):
                        reasoning.append(thought)
                        yield Generating()
                    if delta.get(THINKING_FIELD):
                        yield Generating()
                    if content := delta.get("content"):
                        if type(content) is str:  # nearly every chunk: no need to ask what it is
                            yield from text.feed(content)
                        else:
                            said, thought = self._read_content(content)
                            if thought:
                                yield Generating()
                            if said:
                                yield from text.feed(said)
                    for part in delta.get("tool_calls") or []:
                        index = part.get("index")
                        index = len(slots) if index is None else index
                        slot = slots.setdefault(index, {"id": "", "name": "", "arguments": ""})
                        if part.get("id"):
                            slot["id"] = slot["id"] or part["id"]
                        if function := part.get("function"):
                            if function.get("name"):
                                slot["name"] = function["name"]
                            slot["arguments"] += function.get("arguments") or ""
                        yield Generating()
                if choice.get("finish_reason"):
                    finish_reason = str(choice["finish_reason"])
                    yield Generating()
        if finish_reason is None:
            raise self.failure(FailureKind.MALFORMED, 200, "stream ended without a finish reason")
        yield from text.end()
        calls = [self._tool_call(slots[index]) for index in sorted(slots)]
        calls += [ToolCall(id=new_call_id(), name=c.name, arguments=c.arguments, unreadable=c.unreadable)
                  for c in text.calls]  # fmt: skip
        if text.calls and finish_reason == "stop":
            finish_reason = "tool_calls"
        for call in calls:
            yield ToolCallReady(call)
        extras = {self.name: {REASONING_FIELD: "".join(reasoning)}} if reasoning else {}
        yield Completed(self.name, self.model, finish_reason, usage, extras)

    def _read_content(self, content: Any) -> tuple[str, bool]:
        """`read_content`, a content of no known shape being the provider's fault (the typed
        pieces' recordings are cited in tests/fakes/wire.py)."""
        try:
            return read_content(content)
        except ValueError as exc:
            raise self.failure(FailureKind.MALFORMED, 200, str(exc)) from None

    def _stream_error(self, error: Any) -> LLMError:
        """An error the provider sent inside a 200 stream (a chunk `{"error": {...}}`)."""
        message = error.get("message") if isinstance(error, dict) else None
        if not isinstance(message, str) or not message:
            message = "An error occurred during streaming"
        return self._refusal(_status_in(error), error, message, json.dumps(error))

    def _refusal(
        self, status: int | None, error: Any, message: str, body_text: str, retry_after: float | None = None
    ) -> LLMError:
        """A provider's refusal classed by its own words: its error `code` (kept as the failure's
        detail) and, for a rate limit, which limit its body or message names."""
        code = error.get("code") if isinstance(error, dict) else None
        code = code if isinstance(code, str) and code else None
        limit = (google_limit(error) or named_limit(message)) if status in (413, 429) else None
        if code in MODEL_OUTPUT_FAILURES:
            kind = FailureKind.MALFORMED
        else:
            kind = kind_for_limit(limit, kind_for_status(status, body_text))
        detail = None if limit is not None else code  # the limit says more than `rate_limit_exceeded`
        return self.failure(kind, status, message, retry_after=retry_after, limit=limit, detail=detail)

    def _tool_call(self, slot: dict[str, str]) -> ToolCall:
        """A call with a name is a call, its arguments read or not (the model is told which);
        one without a name has nothing to answer."""
        if not slot["name"]:
            raise self.failure(FailureKind.MALFORMED, 200, "tool call without a name")
        arguments, unreadable = read_arguments(slot["arguments"])
        return ToolCall(id=slot["id"] or new_call_id(), name=slot["name"], arguments=arguments, unreadable=unreadable)

    def _translate(self, exc: Exception) -> LLMError:
        if isinstance(exc, LLMError):
            return exc
        if isinstance(exc, openai.APIStatusError):  # its `body` is the response's `error` object
            body_text = json.dumps(exc.body) if exc.body is not None else exc.response.text
            retry_after = retry_after_seconds(exc.response.headers, exc.body)
            return self._refusal(exc.status_code, exc.body, exc.message, body_text, retry_after)
        if isinstance(exc, openai.APITimeoutError | httpx2.TimeoutException):
            return self.failure(FailureKind.TIMEOUT, None, str(exc) or "timed out")
        if isinstance(exc, openai.APIConnectionError | httpx2.TransportError):
            return self.failure(FailureKind.CONNECTION, None, str(exc.__cause__ or exc))
        if isinstance(exc, openai.APIResponseValidationError):
            return self.failure(FailureKind.MALFORMED, exc.status_code, exc.message)
        if isinstance(exc, ValueError):  # invalid JSON in the stream, or a response that does not parse
            return self.failure(FailureKind.MALFORMED, 200, str(exc))
        log.exception("unexpected failure from LLM link %s", self.name)
        return self.failure(FailureKind.MALFORMED, None, f"{type(exc).__name__}: {exc}")


def _chunks(lines: Iterator[str]) -> Iterator[Any]:
    """The JSON of each event of a server-sent event stream, until `data: [DONE]`: what the SDK's
    stream decodes, left as dicts. Comments (`: keepalive`) and fields other than `data` are
    skipped; an event's `data` lines are joined. A body that ends without the last event's blank
    line still ends that event."""
    data: list[str] = []
    for line in itertools.chain(lines, [""]):
        if line:
            field, _, value = line.partition(":")
            if field == "data":
                data.append(value[1:] if value.startswith(" ") else value)
            continue
        if data:
            text, data = "\n".join(data), []
            if text.startswith("[DONE]"):
                return
            yield json.loads(text)


@lru_cache(maxsize=256)
def _tool_entry(spec: ToolSpec) -> dict[str, Any]:
    """One tool as the wire names it, built once per tool: every call sends the same dicts (nothing
    changes them), and a stream waiting on its model holds only the list pointing at them."""
    function = {"name": spec.name, "description": spec.description, "parameters": portable_schema(spec.args_model)}
    return {"type": "function", "function": function}


def _status_in(body: Any) -> int | None:
    """The HTTP status an error object names: its `code` when that is one, or Groq's `status_code`."""
    code = body.get("code") if isinstance(body, dict) else None
    if isinstance(body, dict) and not isinstance(code, int) and body.get("status_code") is not None:
        code = body["status_code"]
    try:
        status = int(code) if code is not None else None
    except (TypeError, ValueError):
        return None
    return status if status is not None and 400 <= status < 600 else None
