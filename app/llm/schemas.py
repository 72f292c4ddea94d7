"""Tool and response schemas from pydantic models, exported in each provider's dialect.

Every dialect gets a self-contained schema (no `$ref`): providers differ in how much JSON Schema
they understand, and an inlined schema is the common ground. A property the model may leave out
whose default is None is sent as its plain type (`{"type": "string"}`, not `anyOf` with `null`
and `"default": null`): leaving it out already says "none", validation still accepts an explicit
null, and every tool sent on every round is a fifth smaller. Gemini's `Schema` is the strictest
subset: it also loses `default`, `additionalProperties` and `title`, and `Optional[X]` becomes
`nullable`. A response schema a server enforces (`response_schema`) is closed: no object takes a
property the model does not declare.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from pydantic import BaseModel

_GEMINI_KEYS = {
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "items",
    "properties",
    "required",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "anyOf",
    "propertyOrdering",
    "minProperties",
    "maxProperties",
    "example",
}


@lru_cache(maxsize=256)
def portable_schema(model: type[BaseModel]) -> dict[str, Any]:
    """JSON Schema of `model` with every `$ref` inlined and titles dropped."""
    schema = model.model_json_schema()
    defs = schema.pop("$defs", {})
    return _inline(schema, defs, ())


@lru_cache(maxsize=256)
def response_schema(model: type[BaseModel]) -> dict[str, Any]:
    """`portable_schema` closed: each object with declared properties takes no other, as Mistral's
    own client sends a pydantic model in its strict mode (mistralai/client-python,
    `rec_strict_json_schema`). llama.cpp's grammar converter, Ollama and vLLM read it as it is.
    Properties the model may leave out stay out of `required`: OpenAI's own strict mode would want
    every one required (and nullable), which no link here asks for, and a grammar that made the
    model write out every optional field would only make its answers longer."""
    return _closed(portable_schema(model))


@lru_cache(maxsize=256)
def gemini_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The subset of `portable_schema` Gemini's function declarations accept."""
    return _gemini(portable_schema(model))


def _inline(node: Any, defs: dict[str, Any], seen: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_inline(item, defs, seen) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        if name in seen:
            raise ValueError(f"recursive schema {name!r} cannot be inlined for every provider")
        merged = {**defs[name], **{k: v for k, v in node.items() if k != "$ref"}}
        return _inline(merged, defs, (*seen, name))
    out = {}
    for key, value in node.items():
        if key == "title" and not isinstance(value, dict):
            continue
        if key == "properties":
            required = set(node.get("required", ()))
            out[key] = {
                prop: _inline(sub, defs, seen) if prop in required else _leave_out_null(_inline(sub, defs, seen))
                for prop, sub in value.items()
            }
        else:
            out[key] = _inline(value, defs, seen)
    return out


def _closed(node: Any) -> Any:
    if isinstance(node, list):
        return [_closed(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {
        key: {prop: _closed(sub) for prop, sub in value.items()} if key == "properties" else _closed(value)
        for key, value in node.items()
    }
    if out.get("type") == "object" and "properties" in out:
        out.setdefault("additionalProperties", False)  # a model allowing extra fields says so itself
    return out


def _leave_out_null(prop: Any) -> Any:
    """An optional property defaulting to None, as the type it has when it is sent."""
    variants = prop.get("anyOf") if isinstance(prop, dict) else None
    if not variants or prop.get("default", ...) is not None or {"type": "null"} not in variants:
        return prop
    rest = {key: value for key, value in prop.items() if key not in ("anyOf", "default")}
    kept = [variant for variant in variants if variant != {"type": "null"}]
    return {**kept[0], **rest} if len(kept) == 1 else {**rest, "anyOf": kept}


def _gemini(node: Any) -> Any:
    if isinstance(node, list):
        return [_gemini(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = dict(node)
    if "const" in node:
        node["enum"] = [node.pop("const")]
    if "allOf" in node and len(node["allOf"]) == 1:
        node = {**node.pop("allOf")[0], **node}
    variants = node.get("anyOf")
    if variants is not None:
        non_null = [v for v in variants if v.get("type") != "null"]
        if len(non_null) < len(variants):
            node["nullable"] = True
        if len(non_null) == 1:
            node.pop("anyOf")
            node = {**non_null[0], **node}
        else:
            node["anyOf"] = non_null
    if "enum" in node:
        node["enum"] = [str(v) for v in node["enum"] if v is not None]
        node.setdefault("type", "string")
    out = {}
    for key, value in node.items():
        if key not in _GEMINI_KEYS:
            continue
        if key == "properties":
            out[key] = {prop: _gemini(sub) for prop, sub in value.items()}
        else:
            out[key] = _gemini(value)
    return out
