"""The Gemini link, through google-genai's `generateContent` / `streamGenerateContent`.

Gemini's transcript shape differs from chat-completions: roles are `user` / `model`, tool results
are `functionResponse` parts grouped in one user turn, and function calls carry a `thoughtSignature`
that must come back unchanged. Signatures (and Gemini's own call ids) live in `provider_extras`
under the link's name; calls that came from another provider are sent without an id, and to
Gemini 3 models with the documented placeholder signature.
"""

from __future__ import annotations

import base64
import json
import logging
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

import httpx2
from google import genai
from google.genai import errors as genai_errors
from google.genai import types
from pydantic import BaseModel

from app.llm.errors import FailureKind, LLMError
from app.llm.http import link_http_client, tail
from app.llm.messages import (
    AdapterEvent,
    ChatRequest,
    Completed,
    Generating,
    Message,
    TextDelta,
    ToolCall,
    ToolCallReady,
    ToolSpec,
    Usage,
)
from app.llm.providers.base import (
    ProviderAdapter,
    google_limit,
    join_system,
    kind_for_limit,
    kind_for_status,
    retry_after_seconds,
)
from app.llm.schemas import gemini_schema
from app.llm.settings import LinkSettings, Timeouts
from app.llm.tool_ids import new_call_id

log = logging.getLogger(__name__)

API_VERSION = "v1beta"
# "Requests per day (RPD) quotas reset at midnight Pacific time" (ai.google.dev/gemini-api/docs/
# rate-limits): a link out of its daily quota rests until then, whatever retryDelay says.
DAILY_RESET_ZONE = "America/Los_Angeles"
SIGNATURE = "thought_signature"
# Documented placeholder for function calls Gemini 3 did not generate itself.
FOREIGN_CALL_SIGNATURE = base64.urlsafe_b64decode("skip_thought_signature_validator")

_FINISH = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
    "IMAGE_SAFETY": "content_filter",
}


class GeminiAdapter(ProviderAdapter):
    def __init__(self, link: LinkSettings, timeouts: Timeouts):
        super().__init__(link, timeouts)
        self._http, self.transport = link_http_client(timeouts, drop_sse_comments=True)
        self._client = genai.Client(
            api_key=link.api_key,
            http_options=types.HttpOptions(
                base_url=link.base_url or None,
                api_version=API_VERSION,
                httpx_client=self._http,
            ),
        )
        self._placeholder_signatures = link.model.startswith("gemini-3")

    def stream(self, request: ChatRequest) -> Iterator[AdapterEvent]:
        contents, config = self._request(request)
        opened: list[httpx2.Response] = []
        chunks = self._client.models.generate_content_stream(model=self.model, contents=contents, config=config)
        try:
            yield from self._events(self._pulled(chunks, opened))
        except LLMError:
            raise
        except Exception as exc:
            raise self._translate(exc) from exc
        finally:
            for response in opened:
                response.close()
            chunks.close()

    def complete_json(self, request: ChatRequest, schema: type[BaseModel]) -> str:
        contents, config = self._request(request, with_tools=False)
        config.response_mime_type = "application/json"
        config.response_schema = gemini_schema(schema)
        try:
            response = self._client.models.generate_content(model=self.model, contents=contents, config=config)
        except Exception as exc:
            raise self._translate(exc) from exc
        candidate = (response.candidates or [None])[0]
        if candidate is None or candidate.content is None:
            raise self.failure(FailureKind.MALFORMED, 200, "answer without content")
        return "".join(p.text for p in candidate.content.parts or [] if p.text and not p.thought)

    def close(self) -> None:
        self._http.close()

    def _pulled(self, chunks: Iterator[Any], opened: list[httpx2.Response]) -> Iterator[Any]:
        """Pulls each chunk, remembering the response to close. The chunk with the finish reason
        is the answer's last word: what the body still holds is read as its `tail`, and a body
        that does not end within it ends the answer there (its connection closes)."""
        after_last_word = None
        while True:
            with self.transport.watching(opened=opened), self.transport.bounded(after_last_word):
                try:
                    chunk = next(chunks, None)
                except Exception:
                    if after_last_word is None:
                        raise
                    return
            if chunk is None:
                return
            if after_last_word is None and chunk.candidates and chunk.candidates[0].finish_reason:
                after_last_word = tail()
            yield chunk

    # -- request ---------------------------------------------------------------------------------

    def _request(
        self, request: ChatRequest, *, with_tools: bool = True
    ) -> tuple[list[types.Content], types.GenerateContentConfig]:
        system_notes = [m.content for m in request.messages if m.role == "system"]
        config = types.GenerateContentConfig(
            system_instruction=str(join_system(request.system, *system_notes)) or None,
            temperature=request.temperature,
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
            automatic_continuation=False,
        )
        if with_tools and request.tools:
            config.tools = [types.Tool(function_declarations=[_declaration(spec) for spec in request.tools])]
        return self._contents(request.messages), config

    def _contents(self, messages: list[Message]) -> list[types.Content]:
        calls: dict[str, ToolCall] = {}
        contents: list[types.Content] = []
        for message in messages:
            if message.role == "system":
                continue
            if message.role == "assistant":
                calls.update((call.id, call) for call in message.tool_calls)
                role, parts = "model", self._model_parts(message)
            elif message.role == "tool":
                role, parts = "user", [self._result_part(message, calls.get(message.tool_call_id or ""))]
            else:
                role, parts = "user", [types.Part(text=message.content)]
            if not parts:
                continue
            if contents and contents[-1].role == role:
                contents[-1].parts = [*(contents[-1].parts or []), *parts]
            else:
                contents.append(types.Content(role=role, parts=parts))
        return contents

    def _model_parts(self, message: Message) -> list[types.Part]:
        parts = []
        if message.content:
            mine = message.provider_extras.get(self.name, {})
            parts.append(types.Part(text=message.content, thought_signature=_decode(mine.get(SIGNATURE))))
        for call in message.tool_calls:
            mine = call.provider_extras.get(self.name)
            signature = _decode(mine.get(SIGNATURE)) if mine else None
            if mine is None and self._placeholder_signatures:
                signature = FOREIGN_CALL_SIGNATURE
            parts.append(
                types.Part(
                    function_call=types.FunctionCall(
                        name=call.name, args=call.arguments, id=mine.get("id") if mine else None
                    ),
                    thought_signature=signature,
                )
            )
        return parts

    def _result_part(self, message: Message, call: ToolCall | None) -> types.Part:
        mine = call.provider_extras.get(self.name, {}) if call else {}
        try:
            response = json.loads(message.content)
        except ValueError:
            response = None
        if not isinstance(response, dict):
            response = {"result": message.content}
        name = message.name or (call.name if call else "tool")
        return types.Part(function_response=types.FunctionResponse(name=name, response=response, id=mine.get("id")))

    # -- response --------------------------------------------------------------------------------

    def _events(self, chunks: Iterator[types.GenerateContentResponse]) -> Iterator[AdapterEvent]:
        """Text as it comes; the function calls only once the stream has ended with a finish
        reason (a round that breaks off must run no tool)."""
        finish: str | None = None
        usage: Usage | None = None
        text_signature: str | None = None
        calls: list[ToolCall] = []
        for chunk in chunks:
            if chunk.usage_metadata:
                meta = chunk.usage_metadata
                usage = Usage(meta.prompt_token_count, meta.candidates_token_count)
            if not chunk.candidates:
                if chunk.prompt_feedback and chunk.prompt_feedback.block_reason:
                    finish = "content_filter"
                continue
            candidate = chunk.candidates[0]
            for part in (candidate.content.parts if candidate.content else None) or []:
                if part.function_call is not None:
                    calls.append(self._tool_call(part))
                    yield Generating()
                elif part.text and not part.thought:
                    if part.thought_signature and text_signature is None:
                        text_signature = _encode(part.thought_signature)
                    yield TextDelta(part.text)
                elif part.thought:
                    yield Generating()
            if candidate.finish_reason:
                reason = str(getattr(candidate.finish_reason, "value", candidate.finish_reason))
                if reason in ("MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL"):
                    raise self.failure(FailureKind.MALFORMED, 200, f"finish reason {reason}")
                finish = _FINISH.get(reason, reason.lower())
                yield Generating()
        if finish is None:
            raise self.failure(FailureKind.MALFORMED, 200, "stream ended without a finish reason")
        if calls and finish == "stop":
            finish = "tool_calls"
        for call in calls:
            yield ToolCallReady(call)
        extras = {self.name: {SIGNATURE: text_signature}} if text_signature else {}
        yield Completed(self.name, self.model, finish, usage, extras)

    def _tool_call(self, part: types.Part) -> ToolCall:
        call = part.function_call
        if not call.name:
            raise self.failure(FailureKind.MALFORMED, 200, "function call without a name")
        mine: dict[str, Any] = {}
        if part.thought_signature:
            mine[SIGNATURE] = _encode(part.thought_signature)
        if call.id:
            mine["id"] = call.id
        return ToolCall(
            id=call.id or new_call_id(),
            name=call.name,
            arguments=dict(call.args or {}),
            provider_extras={self.name: mine} if mine else {},
        )

    def _translate(self, exc: Exception) -> LLMError:
        if isinstance(exc, LLMError):
            return exc
        if isinstance(exc, genai_errors.APIError):
            status = exc.code if isinstance(exc.code, int) else None
            response = getattr(exc, "response", None)
            headers = dict(response.headers) if response is not None and hasattr(response, "headers") else {}
            body_text = json.dumps(exc.details, default=str)
            limit = google_limit(exc.details, DAILY_RESET_ZONE) if status == 429 else None
            return self.failure(
                kind_for_limit(limit, kind_for_status(status, f"{exc.status} {body_text}")),
                status,
                str(exc.message or exc.status or exc),
                retry_after=retry_after_seconds(headers, exc.details),
                limit=limit,
            )
        if isinstance(exc, httpx2.TimeoutException):
            return self.failure(FailureKind.TIMEOUT, None, str(exc) or "timed out")
        if isinstance(exc, httpx2.TransportError):
            return self.failure(FailureKind.CONNECTION, None, str(exc))
        if isinstance(exc, ValueError):  # UnknownApiResponseError, invalid JSON, a chunk that does not parse
            return self.failure(FailureKind.MALFORMED, 200, str(exc))
        log.exception("unexpected failure from LLM link %s", self.name)
        return self.failure(FailureKind.MALFORMED, None, f"{type(exc).__name__}: {exc}")


def _encode(signature: bytes) -> str:
    return base64.urlsafe_b64encode(signature).decode("ascii")


def _decode(signature: str | None) -> bytes | None:
    return base64.urlsafe_b64decode(signature) if signature else None


@lru_cache(maxsize=256)
def _declaration(spec: ToolSpec) -> types.FunctionDeclaration:
    """One tool as Gemini declares it, built once per tool: validating its schema into the SDK's
    models takes ~80 µs a tool (1.7 ms for a page's 21), on every call."""
    return types.FunctionDeclaration(
        name=spec.name,
        description=spec.description,
        parameters=types.Schema.model_validate(gemini_schema(spec.args_model)),
    )
