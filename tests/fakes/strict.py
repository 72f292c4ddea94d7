"""What a strict provider refuses, checked on every request the fake receives.

Real providers answer 400/422 to a transcript they cannot read (Mistral: ids that are not 9
alphanumerics, unknown fields; Gemini: function responses that do not answer the preceding
calls), and to a `response_format` they do not take. The fake refuses the same way, so a
portable-transcript bug shows up as a failed call.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any

_MISTRAL_ID = re.compile(r"[A-Za-z0-9]{9}")
_MISTRAL_MESSAGE_KEYS = {"role", "content", "tool_calls", "tool_call_id", "name", "prefix"}
_MISTRAL_TOP_KEYS = {
    "model",
    "messages",
    "stream",
    "tools",
    "temperature",
    "response_format",
    "tool_choice",
    "max_tokens",
    "top_p",
    "random_seed",
    "parallel_tool_calls",
}
# The `response_format` types each server takes, and for `json_schema` the object it reads: Mistral's
# `JSONSchema` has `name` and `schema` required, `description` and `strict` optional (mistralai/
# client-python, models/jsonschema.py; its `ResponseFormat` holds `type` and `json_schema`);
# DeepSeek's JSON Output is `{"type": "json_object"}` (api-docs.deepseek.com/guides/json_mode); a
# local server: llama.cpp refuses any type but text, json_object and json_schema, whose
# `json_schema.schema` it turns into a grammar (ggml-org/llama.cpp#9527), and vLLM's
# `JsonSchemaResponseFormat` requires a `name`.
_RESPONSE_TYPES = {
    "mistral": {"text", "json_object", "json_schema"},
    "deepseek": {"text", "json_object"},
    "local": {"text", "json_object", "json_schema"},
}
_MISTRAL_RESPONSE_FORMAT_KEYS = {"type", "json_schema"}
_MISTRAL_JSON_SCHEMA_KEYS = {"name", "schema", "description", "strict"}
_SCHEMA_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_GEMINI_SCHEMA_FORBIDDEN = {"$ref", "$defs", "default", "additionalProperties", "additional_properties", "title"}


def openai_problems(body: dict, provider: str) -> list[str]:
    problems: list[str] = []
    strict_mistral = provider == "mistral"
    if strict_mistral:
        problems += [f"extra field {key!r}" for key in body if key not in _MISTRAL_TOP_KEYS]
        if body.get("tools") == []:
            problems.append("empty tools list")
    problems += _response_format_problems(body.get("response_format"), provider)
    open_calls: set[str] = set()
    for index, message in enumerate(body.get("messages", [])):
        role = message.get("role")
        if role not in ("system", "user", "assistant", "tool"):
            problems.append(f"message {index}: unknown role {role!r}")
        if strict_mistral:
            problems += [f"message {index}: extra field {k!r}" for k in message if k not in _MISTRAL_MESSAGE_KEYS]
        if role == "assistant":
            for call in message.get("tool_calls") or []:
                call_id = call.get("id", "")
                if strict_mistral and not _MISTRAL_ID.fullmatch(call_id):
                    problems.append(f"message {index}: tool call id {call_id!r} is not 9 alphanumerics")
                if call.get("type") != "function" or not call.get("function", {}).get("name"):
                    problems.append(f"message {index}: tool call is not a named function")
                try:
                    arguments = json.loads(call.get("function", {}).get("arguments", ""))
                except ValueError:
                    arguments = None
                if not isinstance(arguments, dict):
                    problems.append(f"message {index}: tool call arguments are not a JSON object string")
                open_calls.add(call_id)
        elif role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in open_calls:
                problems.append(f"message {index}: tool result for unknown call {call_id!r}")
            if not isinstance(message.get("content"), str):
                problems.append(f"message {index}: tool result content is not a string")
    return problems


def _response_format_problems(asked: Any, provider: str) -> list[str]:
    if asked is None or provider not in _RESPONSE_TYPES:
        return []
    if not isinstance(asked, dict):
        return ["response_format is not an object"]
    kind = asked.get("type")
    if kind not in _RESPONSE_TYPES[provider]:
        return [f"response_format type {kind!r} is not one of {sorted(_RESPONSE_TYPES[provider])}"]
    problems = []
    if provider == "mistral":
        problems += [f"response_format: extra field {k!r}" for k in asked if k not in _MISTRAL_RESPONSE_FORMAT_KEYS]
    if kind != "json_schema":
        return problems
    named = asked.get("json_schema")
    if not isinstance(named, dict):
        return [*problems, "response_format: json_schema is not an object"]
    if not isinstance(named.get("name"), str) or not _SCHEMA_NAME.fullmatch(named["name"]):
        problems.append("response_format: json_schema.name is not 1-64 of [A-Za-z0-9_-]")
    if not isinstance(named.get("schema"), dict):
        problems.append("response_format: json_schema.schema is not an object")
    if not isinstance(named.get("strict", False), bool):
        problems.append("response_format: json_schema.strict is not a boolean")
    if provider == "mistral":
        problems += [
            f"response_format: json_schema extra field {key!r}" for key in named if key not in _MISTRAL_JSON_SCHEMA_KEYS
        ]
    return problems


def gemini_problems(body: dict) -> list[str]:
    problems: list[str] = []
    pending_calls: list[str] = []
    for index, content in enumerate(body.get("contents", [])):
        role, parts = content.get("role"), content.get("parts") or []
        if role not in ("user", "model"):
            problems.append(f"content {index}: unknown role {role!r}")
        calls = [p["functionCall"]["name"] for p in parts if "functionCall" in p]
        answers = [p["functionResponse"]["name"] for p in parts if "functionResponse" in p]
        if calls and role != "model":
            problems.append(f"content {index}: function calls outside a model turn")
        if answers:
            if role != "user":
                problems.append(f"content {index}: function responses outside a user turn")
            if sorted(answers) != sorted(pending_calls):
                problems.append(f"content {index}: responses {answers} do not answer calls {pending_calls}")
        for part in parts:
            signature = part.get("thoughtSignature")
            if signature is not None:
                try:
                    base64.urlsafe_b64decode(signature)
                except (binascii.Error, ValueError):
                    problems.append(f"content {index}: thoughtSignature is not base64")
            if "functionResponse" in part and not isinstance(part["functionResponse"].get("response"), dict):
                problems.append(f"content {index}: functionResponse.response is not an object")
        pending_calls = calls if role == "model" else []
    for tool in body.get("tools", []):
        for declaration in tool.get("functionDeclarations", []):
            found = _forbidden_keys(declaration.get("parameters", {}))
            if found:
                problems.append(f"function {declaration.get('name')}: schema uses {sorted(found)}")
    found = _forbidden_keys((body.get("generationConfig") or {}).get("responseSchema", {}))
    if found:
        problems.append(f"responseSchema uses {sorted(found)}")
    return problems


def _forbidden_keys(node: Any) -> set[str]:
    if isinstance(node, list):
        return set().union(*(_forbidden_keys(n) for n in node)) if node else set()
    if not isinstance(node, dict):
        return set()
    found = {k for k in node if k in _GEMINI_SCHEMA_FORBIDDEN}
    for key, value in node.items():
        if key == "properties" and isinstance(value, dict):
            found |= set().union(*(_forbidden_keys(v) for v in value.values())) if value else set()
        elif key not in _GEMINI_SCHEMA_FORBIDDEN:
            found |= _forbidden_keys(value)
    return found
