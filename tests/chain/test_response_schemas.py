"""The structured doors send the answer's schema where the server holds the model to it, so a small
model's answer is valid by construction; elsewhere a JSON object is asked for, and the tolerant
reader and its one repair (test_structured.py) do the rest.

The shapes each server takes, and where they come from, are in tests/fakes/strict.py, which
refuses any other: Mistral's structured outputs (`{"type": "json_schema", "json_schema": {"name",
"schema", "strict"}}`, strict as its own client sends a pydantic model), llama.cpp's server, which
turns `json_schema.schema` into a grammar (ggml-org/llama.cpp#9527), and DeepSeek's JSON Output,
`json_object` only."""

import json

import pytest
from pydantic import BaseModel

from app.llm import ChatRequest, Message
from app.llm.schemas import response_schema
from tests.chain.shapes import HabitArgs, HabitSuggestion
from tests.fakes import Reply
from tests.fakes.strict import gemini_problems, openai_problems

GOOD = json.dumps({"name": "Read", "importance": 4})


def ask():
    return ChatRequest(system="Suggest one habit.", messages=[Message.user("I like books")])


def response_format_sent(fake, make_chain, link, schema=HabitSuggestion):
    fake.script(link, Reply.says(GOOD if schema is HabitSuggestion else json.dumps({"name": "Read"})))
    make_chain(link).structured(ask(), schema)
    (request,) = fake.requests(link)
    return request.body.get("response_format")


def test_mistral_is_sent_the_answers_schema_in_strict_mode(fake, make_chain):
    sent = response_format_sent(fake, make_chain, "mistral")
    assert sent == {
        "type": "json_schema",
        "json_schema": {"name": "HabitSuggestion", "schema": response_schema(HabitSuggestion), "strict": True},
    }


def test_a_local_server_is_sent_the_answers_schema_to_build_its_grammar_from(fake, make_chain):
    """Not strict: llama.cpp, Ollama and vLLM enforce the schema whatever `strict` says, and a
    server applying OpenAI's strict rules would refuse one with optional properties."""
    sent = response_format_sent(fake, make_chain, "local")
    assert sent["type"] == "json_schema"
    assert sent["json_schema"] == {
        "name": "HabitSuggestion",
        "schema": response_schema(HabitSuggestion),
        "strict": False,
    }


@pytest.mark.parametrize("link", ["glm", "deepseek"])
def test_links_without_schema_support_ask_for_a_json_object(fake, make_chain, link):
    assert response_format_sent(fake, make_chain, link) == {"type": "json_object"}


def test_nvidia_is_asked_for_json_by_the_prompt_alone(fake, make_chain):
    assert response_format_sent(fake, make_chain, "nvidia") is None


def test_the_schema_sent_is_closed_at_every_level_and_names_what_is_required(fake, make_chain):
    schema = response_format_sent(fake, make_chain, "mistral", HabitArgs)["json_schema"]["schema"]
    assert schema["additionalProperties"] is False and schema["required"] == ["name"]
    category = schema["properties"]["category"]
    assert "$ref" not in json.dumps(schema)
    assert category["additionalProperties"] is False and category["required"] == ["name"]


def test_a_free_form_mapping_keeps_its_own_values_schema():
    class Tally(BaseModel):
        counts: dict[str, int]

    assert response_schema(Tally)["properties"]["counts"] == {
        "type": "object",
        "additionalProperties": {"type": "integer"},
    }


def test_gemini_is_sent_a_response_schema_it_accepts(fake, make_chain):
    fake.script("gemini", Reply.says(json.dumps({"name": "Read", "category": {"name": "Books"}})))
    assert make_chain("gemini").structured(ask(), HabitArgs).category.colour == "blue"
    (request,) = fake.requests("gemini")
    assert request.problems == []
    assert set(request.body["generationConfig"]["responseSchema"]["properties"]) == {"name", "importance", "category"}


@pytest.mark.parametrize(
    ("provider", "response_format", "refused"),
    [
        ("deepseek", {"type": "json_schema", "json_schema": {"name": "A", "schema": {}}}, "type 'json_schema'"),
        ("mistral", {"type": "json_schema", "json_schema": {"schema": {}}}, "json_schema.name"),
        ("mistral", {"type": "json_object", "schema": {}}, "extra field 'schema'"),
        ("local", {"type": "json_schema", "json_schema": {"name": "A"}}, "json_schema.schema"),
        ("local", {"type": "json"}, "type 'json'"),
    ],
)
def test_the_fake_refuses_a_response_format_its_server_does_not_take(provider, response_format, refused):
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "response_format": response_format}
    assert any(refused in problem for problem in openai_problems(body, provider))


def test_the_fake_refuses_a_gemini_response_schema_with_keys_gemini_does_not_take():
    body = {"contents": [], "generationConfig": {"responseSchema": {"type": "object", "additionalProperties": False}}}
    assert gemini_problems(body) == ["responseSchema uses ['additionalProperties']"]
