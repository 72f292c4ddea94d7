"""Renders a `Reply` in each provider's wire format.

A stream is a list of `Frame`s: a JSON payload to send as one SSE event, or a marker telling the
server to cut the connection. The server walks the frames at the reply's pace.
"""

from __future__ import annotations

import itertools
import json
import time
from dataclasses import dataclass
from typing import Any

from tests.fakes.script import Reply

CUT = "cut"
STALL = "stall"
GARBAGE = 'data: {"choices": [{"delta": {"content": "unterminated'


@dataclass
class Frame:
    payload: Any = None  # dict → `data: <json>`; str → sent raw (garbage)
    control: str | None = None
    content: bool = False  # counts as a content chunk for cut/error/garbage positions


# -- OpenAI chat completions ------------------------------------------------------------------------


def openai_stream(reply: Reply, model: str) -> list[Frame]:
    base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": int(time.time()), "model": model}

    def chunk(delta: dict, finish: str | None = None, **extra: Any) -> dict:
        return {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}], **extra}

    content: list[Frame] = []
    if reply.reasoning:
        content.append(Frame(chunk({"reasoning_content": reply.reasoning})))
    content += [Frame(chunk({"content": [_thinking_piece(piece)]})) for piece in reply.thinking]
    content += [Frame(chunk({"content": _text_content(reply, piece)}), content=True) for piece in reply.text]
    for index, call in enumerate(reply.tool_calls):
        first, *rest = _argument_pieces(_arguments(call), reply.argument_pieces)
        head = {
            "index": index,
            "id": call.id or f"call_{index}_fake",
            "type": "function",
            "function": {"name": call.name, "arguments": first},
        }
        content.append(Frame(chunk({"tool_calls": [head]}), content=True))
        for piece in rest:  # each further piece: its index and a piece of the arguments, nothing else
            part = {"index": index, "function": {"arguments": piece}}
            content.append(Frame(chunk({"tool_calls": [part]}), content=True))

    frames = [Frame(chunk({"role": "assistant", "content": ""}))]
    error = (
        (lambda: reply.stream_error)
        if reply.stream_error is not None
        else lambda: {"error": _openai_error(reply.error_code)}
    )
    frames += _with_faults(_with_stall(content, reply), reply, error=error)
    if reply.fault_after is not None:
        return frames
    if not reply.unfinished:
        frames.append(Frame(chunk({}, reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop"))))
    if reply.usage:
        prompt, completion = reply.usage
        usage = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
        frames.append(Frame({**base, "choices": [], "usage": usage}))
    frames.append(Frame("data: [DONE]"))
    return frames


def openai_completion(reply: Reply, model: str) -> dict:
    message: dict[str, Any] = {"role": "assistant", "content": reply.joined_text or None}
    if reply.thinking or reply.typed_text:
        thought = [_thinking_piece("".join(reply.thinking))] if reply.thinking else []
        message["content"] = [*thought, {"type": "text", "text": reply.joined_text}]
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": call.id or f"call_{i}_fake",
                "type": "function",
                "function": {"name": call.name, "arguments": _arguments(call)},
            }
            for i, call in enumerate(reply.tool_calls)
        ]
    prompt, completion = reply.usage or (0, 0)
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop"),
            }
        ],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
    }


def _arguments(call: Any) -> str:
    """A call's arguments string: as scripted (`raw_arguments`, verbatim), or its object as JSON."""
    return call.raw_arguments if call.raw_arguments is not None else json.dumps(call.arguments)


def _argument_pieces(arguments: str, pieces: int) -> list[str]:
    """The arguments string cut into `pieces` deltas, the first going out with the call's id and
    name. From three pieces on the first is empty and the rest carry the string, as llama.cpp
    streams a call (a capture of llama-server, g0t4/ask-openai.nvim's
    tools/notes/llama-server-tool-call.md): `{"index": 0, "id": ..., "type": "function",
    "function": {"name": "run_command", "arguments": ""}}`, then `{"index": 0, "function":
    {"arguments": "{\\""}}`, `{"index": 0, "function": {"arguments": "command"}}`, and so on."""
    if pieces <= 1 or (pieces > 2 and not arguments):
        return [arguments]
    if pieces == 2:
        middle = len(arguments) // 2
        return [arguments[:middle], arguments[middle:]]
    pieces = min(pieces, len(arguments) + 1)  # no empty piece but the first
    cuts = [len(arguments) * n // (pieces - 1) for n in range(pieces)]
    return ["", *(arguments[start:end] for start, end in itertools.pairwise(cuts))]


def _thinking_piece(text: str) -> dict:
    """Mistral's reasoning models write their thinking as typed pieces of `content`, streamed and
    not. Streamed, recorded from magistral-medium-2509 (BerriAI/litellm#16272):
    `"delta": {"content": [{"type": "thinking", "thinking": [{"type": "text", "text": ", I should"}]}]}`;
    the answer then comes as `[{"type": "text", "text": ...}]` (`typed_text`) or, as Mistral's own
    client example says (mistralai/client-python#511), as plain string fragments once thinking
    ends. Not streamed, `message.content` is `[{"type": "thinking", "thinking": [...]}, {"type":
    "text", "text": ...}]` (docs.mistral.ai/capabilities/reasoning; ThinkChunk/TextChunk in
    mistralai/client-ts, whose optional `closed` flag is left out here as in the recording)."""
    return {"type": "thinking", "thinking": [{"type": "text", "text": text}]}


def _text_content(reply: Reply, piece: str) -> str | list[dict]:
    return [{"type": "text", "text": piece}] if reply.typed_text else piece


def openai_error_body(status: int) -> dict:
    return {"error": _openai_error(status)}


def _openai_error(status: int) -> dict:
    kind = {429: "rate_limit_exceeded", 401: "invalid_api_key"}.get(status, "server_error")
    return {"message": f"fake provider error {status}", "type": kind, "code": status}


# -- Gemini generateContent --------------------------------------------------------------------------


def gemini_stream(reply: Reply, model: str) -> list[Frame]:
    def event(parts: list[dict], finish: str | None = None) -> dict:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        if finish:
            candidate["finishReason"] = finish
        return {"candidates": [candidate], "modelVersion": model, "responseId": "fake"}

    content: list[Frame] = []
    if reply.reasoning:
        content.append(Frame(event([{"text": reply.reasoning, "thought": True}])))
    for i, piece in enumerate(reply.text):
        part: dict[str, Any] = {"text": piece}
        if i == 0 and reply.text_signature:
            part["thoughtSignature"] = reply.text_signature
        content.append(Frame(event([part]), content=True))
    if reply.tool_calls:
        content.append(Frame(event([_gemini_call_part(call) for call in reply.tool_calls]), content=True))

    frames = _with_faults(_with_stall(content, reply), reply, error=lambda: gemini_error_body(reply.error_code))
    if reply.fault_after is not None:
        return frames
    final = event([{"text": ""}], None if reply.unfinished else reply.finish_reason or "STOP")
    if reply.usage:
        prompt, completion = reply.usage
        final["usageMetadata"] = {
            "promptTokenCount": prompt,
            "candidatesTokenCount": completion,
            "totalTokenCount": prompt + completion,
        }
    frames.append(Frame(final))
    return frames


def gemini_response(reply: Reply, model: str) -> dict:
    parts: list[dict] = []
    if reply.text:
        parts.append({"text": reply.joined_text})
    parts += [_gemini_call_part(call) for call in reply.tool_calls]
    prompt, completion = reply.usage or (0, 0)
    return {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": reply.finish_reason or "STOP", "index": 0}
        ],
        "usageMetadata": {"promptTokenCount": prompt, "candidatesTokenCount": completion},
        "modelVersion": model,
    }


def gemini_error_body(status: int, retry_delay: str | None = None) -> dict:
    names = {429: "RESOURCE_EXHAUSTED", 401: "UNAUTHENTICATED", 400: "INVALID_ARGUMENT", 503: "UNAVAILABLE"}
    error: dict[str, Any] = {
        "code": status,
        "message": f"fake provider error {status}",
        "status": names.get(status, "INTERNAL"),
    }
    if retry_delay:
        error["details"] = [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": retry_delay}]
    return {"error": error}


def gemini_quota_body(*quota_ids: str, retry_delay: str | None = None, model: str = "gemini-2.5-flash") -> dict:
    """Gemini's 429 when a quota ran out, as public recordings show it (google-gemini/gemini-cli#8437,
    RooCodeInc/Roo-Code#3883): the same "exceeded your current quota" message whichever limit it
    was; which one is in the `QuotaFailure` violations' `quotaId`, e.g.
    `GenerateRequestsPerMinutePerProjectPerModel-FreeTier`, `...PerDayPerProjectPerModel-FreeTier`
    or `GenerateContentInputTokensPerModelPerMinute-FreeTier`; then a `Help` link and, mostly, a
    `RetryInfo`."""
    violations = [
        {
            "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_"
            + ("input_token_count" if "InputTokens" in quota_id else "requests"),
            "quotaId": quota_id,
            "quotaDimensions": {"location": "global", "model": model},
            "quotaValue": "250000" if "InputTokens" in quota_id else "10",
        }
        for quota_id in quota_ids
    ]
    details: list[dict] = [
        {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": violations},
        {
            "@type": "type.googleapis.com/google.rpc.Help",
            "links": [
                {
                    "description": "Learn more about Gemini API quotas",
                    "url": "https://ai.google.dev/gemini-api/docs/rate-limits",
                }
            ],
        },
    ]
    if retry_delay:
        details.append({"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": retry_delay})
    message = (
        "You exceeded your current quota, please check your plan and billing details. For more "
        "information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits."
    )
    return {"error": {"code": 429, "message": message, "status": "RESOURCE_EXHAUSTED", "details": details}}


def groq_tool_use_failed(failed_generation: str, *, streamed: bool = False) -> dict:
    """Groq's answer when the model wrote a tool call that does not parse: a 400 whose body is
    `{"error": {"message": "Failed to call a function. Please adjust your prompt. See
    'failed_generation' for more details.", "type": "invalid_request_error", "code":
    "tool_use_failed", "failed_generation": "..."}}` (groq/groq-typescript#28); streamed, the same
    error object with `"status_code": 400` comes as the stream's error event
    (langchain4j/langchain4j#2585), after an `event: error` line (sashabaranov/go-openai#1057)."""
    error = {
        "message": "Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.",
        "type": "invalid_request_error",
        "code": "tool_use_failed",
        "failed_generation": failed_generation,
    }
    return {"error": {**error, "status_code": 400}} if streamed else {"error": error}


def groq_error_event(body: dict) -> str:
    """An error event as Groq streams it, named `error`."""
    return "event: error\ndata: " + json.dumps(body)


def groq_rate_limit(window: str = "minute", measure: str = "tokens") -> dict:
    """Groq's 429 body, recorded in public logs: `"Rate limit reached for model ... on tokens per
    minute (TPM): Limit 6000, Used 4093, Requested 3531. Please try again in 16.24s."` with
    `"type": "tokens", "code": "rate_limit_exceeded"` (RPD: "on requests per day")."""
    initials = f"{measure[0]}p{window[0]}".upper()  # TPM, RPD
    message = (
        "Rate limit reached for model `llama-3.1-8b-instant` in organization `org_01fake` service tier "
        f"`on_demand` on {measure} per {window} ({initials}): Limit 6000, Used 5866, Requested 1234. "
        "Please try again in 16.24s."
    )
    return {"error": {"message": message, "type": measure, "code": "rate_limit_exceeded"}}


def _gemini_call_part(call: Any) -> dict:
    function_call: dict[str, Any] = {"name": call.name, "args": call.arguments}
    if call.id:
        function_call["id"] = call.id
    part: dict[str, Any] = {"functionCall": function_call}
    if call.thought_signature:
        part["thoughtSignature"] = call.thought_signature
    return part


# -- faults shared by both protocols ---------------------------------------------------------------


def _with_stall(content: list[Frame], reply: Reply) -> list[Frame]:
    """The content frames with the reply's stall (silent, or keep-alive comments) after N chunks."""
    if reply.stall_after is None:
        return content
    at = next(
        (i for i, _ in enumerate(content) if sum(f.content for f in content[:i]) >= reply.stall_after), len(content)
    )
    return [*content[:at], Frame(control=STALL), *content[at:]]


def _with_faults(content: list[Frame], reply: Reply, *, error: Any) -> list[Frame]:
    """The content frames, cut short by the reply's fault (if any) after N content chunks."""
    if reply.fault_after is None:
        return content
    frames: list[Frame] = []
    seen = 0
    for frame in content:
        if seen >= reply.fault_after:
            break
        frames.append(frame)
        seen += frame.content
    if reply.cut_after is not None:
        frames.append(Frame(control=CUT))
    elif reply.error_after is not None:
        frames.append(Frame(error()))
    else:
        frames.append(Frame(GARBAGE))
    return frames


# -- a self-hosted server's window ----------------------------------------------------------------


def window_answer(server: str, path: str, tokens: int, model: str) -> dict | None:
    """What `server` answers at `path` about holding `tokens` (None: it has no such route).
    llama.cpp's, recorded from the build in the xllamacpp 2026.10.11549 wheel serving SmolLM2 with
    8192 tokens: `/props` → `{"default_generation_settings": {"n_ctx": 8192, ...}, "total_slots": 1,
    ...}`, `/v1/models` → `{"models": [...], "object": "list", "data": [{"id": ..., "object":
    "model", "owned_by": "llamacpp", "meta": {"vocab_type": 2, "n_vocab": 49152, "n_ctx": 8192,
    "n_ctx_train": 8192, ...}}]}`. vLLM's `/v1/models` entries carry `max_model_len`
    (its ModelCard); Ollama's `/api/ps` lists the loaded models with their `context_length` (what
    `ollama ps` shows as CONTEXT)."""
    if server == "llama.cpp" and path == "props":
        return {"default_generation_settings": {"n_ctx": tokens, "params": {"n_predict": -1}}, "total_slots": 1,
                "model_alias": model, "build_info": "b0-unknown"}  # fmt: skip
    if server == "llama.cpp" and path == "v1/models":
        meta = {"vocab_type": 2, "n_vocab": 49152, "n_ctx": tokens, "n_ctx_train": tokens}
        return {"object": "list", "data": [{"id": model, "object": "model", "owned_by": "llamacpp", "meta": meta}]}
    if server == "vllm" and path == "v1/models":
        return {"object": "list", "data": [{"id": model, "object": "model", "owned_by": "vllm",
                                            "max_model_len": tokens}]}  # fmt: skip
    if server == "ollama" and path == "api/ps":
        loaded = {"name": f"{model}:latest", "model": f"{model}:latest", "size": 492523008,
                  "expires_at": "2026-11-02T08:15:34Z", "size_vram": 0, "context_length": tokens}  # fmt: skip
        return {"models": [loaded]}
    return None
