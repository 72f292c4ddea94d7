"""Structured output for the non-streaming doors (onboarding, briefing, notebook AI), with the
answers real models send.

The shapes below come from the providers' documentation and from public reports of what their
models answered, each replayed through the wire fake to the real SDKs (openai, google-genai):

- Mistral's JSON mode (response_format json_object) answers a pretty-printed object, newlines and
  indentation inside the content string: https://docs.mistral.ai/capabilities/structured_output/json_mode
- OpenAI-compatible servers answer json_object requests in a ```json fence, numbers as strings
  ("cores": "8"): https://github.com/Arthur-Ficial/apfel/issues/101; fences from several models
  behind one OpenAI-compatible API: https://github.com/pollinations/pollinations/issues/5184
- a sentence after the object ("This JSON object contains..."), JSON mode ignored:
  https://github.com/ROCm/FastFlowLM/issues/554
- reasoning models served OpenAI-compatibly put `<think>...</think>` before the JSON:
  https://github.com/admonstrator/zettelrobbe/issues/74,
  https://github.com/langchain-ai/local-deep-researcher/pull/88
- JSON mode "may be partially cut off if finish_reason="length"" (the chat-completions
  `response_format` reference, as quoted by SDKs built from it, e.g.
  https://ibm.github.io/watsonx-ai-node-sdk/enums/1_7_x.WatsonXAI.TextChatResponseFormat.Constants.Type.html);
  Gemini's responseSchema answer cut at MAX_TOKENS keeps its partial text
  (https://github.com/Pasta-Devs/Marinara-Engine/issues/3033) or has none at all
  (https://github.com/googleapis/python-genai/issues/1039); re-asking with the cut answer
  appended grows the prompt each time (https://github.com/567-labs/instructor/pull/2232), so the
  one repair asks again without it, for a shorter answer.
"""

import json

import pytest

from app.llm import ChainExhausted, ChatRequest, Message
from app.llm.chain import JSON_CUT_WARNING, JSON_RETRY_WARNING
from app.llm.structured import AnswerUnreadable
from tests.chain.shapes import HabitSuggestion
from tests.fakes import Reply

GOOD = json.dumps({"name": "Read", "importance": 4})


def ask():
    return ChatRequest(system="Suggest one habit.", messages=[Message.user("I like books")])


@pytest.mark.parametrize("link", ["mistral", "gemini"])
def test_structured_answer_is_validated_into_the_model(fake, make_chain, link):
    fake.script(link, Reply.says(GOOD))
    suggestion = make_chain(link).structured(ask(), HabitSuggestion)
    assert suggestion == HabitSuggestion(name="Read", importance=4)
    (request,) = fake.requests(link)
    assert request.streamed is False


def test_openai_compatible_links_ask_for_json_mode_with_the_schema(fake, make_chain):
    fake.script("glm", Reply.says(GOOD))
    make_chain("glm").structured(ask(), HabitSuggestion)
    body = fake.requests("glm")[0].body
    assert body["response_format"] == {"type": "json_object"}
    assert '"importance"' in body["messages"][0]["content"]


def test_gemini_asks_for_json_with_a_response_schema(fake, make_chain):
    fake.script("gemini", Reply.says(GOOD))
    make_chain("gemini").structured(ask(), HabitSuggestion)
    config = fake.requests("gemini")[0].body["generationConfig"]
    assert config["responseMimeType"] == "application/json"
    assert set(config["responseSchema"]["properties"]) == {"name", "importance"}


def test_answer_in_code_fences_is_accepted(fake, make_chain):
    fake.script("mistral", Reply.says(f"```json\n{GOOD}\n```"))
    assert make_chain("mistral").structured(ask(), HabitSuggestion).name == "Read"


def test_malformed_answer_is_retried_once_with_a_json_only_warning(fake, make_chain):
    fake.script("mistral", Reply.says("Sure! Reading is great."), Reply.says(GOOD))
    suggestion = make_chain("mistral").structured(ask(), HabitSuggestion)
    assert suggestion.name == "Read"
    first, second = fake.requests("mistral")
    assert JSON_RETRY_WARNING not in first.body["messages"][0]["content"]
    assert JSON_RETRY_WARNING in second.body["messages"][0]["content"]


def test_second_malformed_answer_is_an_unusable_answer_not_an_outage(fake, make_chain):
    fake.script("mistral", Reply.says("nope"), Reply.says('{"name": "Read"}'))
    chain = make_chain("mistral")
    with pytest.raises(AnswerUnreadable) as unusable:
        chain.structured(ask(), HabitSuggestion)
    assert unusable.value.key == "AI_ANSWER_UNUSABLE"
    assert [failure.kind.value for failure in unusable.value.failures] == ["malformed", "malformed"]
    assert len(fake.requests("mistral")) == 2
    (state,) = chain.link_states()
    assert state.unusable_answers == 2 and state.last_error.kind == "malformed"


def test_no_link_answering_at_all_is_still_ai_unavailable(fake, make_chain):
    fake.script("mistral", Reply.fails(500))
    fake.script("gemini", Reply.fails(503))
    chain = make_chain("mistral,gemini")
    with pytest.raises(ChainExhausted) as unavailable:
        chain.structured(ask(), HabitSuggestion)
    assert unavailable.value.key == "AI_UNAVAILABLE" and not isinstance(unavailable.value, AnswerUnreadable)
    assert [state.unusable_answers for state in chain.link_states()] == [0, 0]


def test_a_repair_no_link_answers_after_an_unusable_answer_is_still_unusable(fake, make_chain):
    """A model did answer: "no model could be reached" would not be what happened."""
    fake.script("mistral", Reply.says("Sure! Reading."), Reply.fails(500))
    with pytest.raises(AnswerUnreadable) as unusable:
        make_chain("mistral").structured(ask(), HabitSuggestion)
    assert unusable.value.key == "AI_ANSWER_UNUSABLE"
    assert [failure.kind.value for failure in unusable.value.failures] == ["malformed", "unavailable"]


def test_the_repair_walks_the_chain_from_its_first_link_again(fake, make_chain):
    """An unusable answer does not rest its link: the repair, with its JSON-only warning, goes to
    the same first link, and the next link is asked only when that one fails."""
    fake.script("mistral", Reply.says("nope"), Reply.fails(500))
    fake.script("gemini", Reply.says(GOOD))
    chain = make_chain("mistral,gemini")
    assert chain.structured(ask(), HabitSuggestion).name == "Read"
    assert len(fake.requests("mistral")) == 2 and len(fake.requests("gemini")) == 1
    assert [state.unusable_answers for state in chain.link_states()] == [1, 0]


def test_caller_may_refuse_the_retry(fake, make_chain):
    fake.script("mistral", Reply.says("nope"))
    with pytest.raises(ChainExhausted):
        make_chain("mistral").structured(ask(), HabitSuggestion, retry=False)
    assert len(fake.requests("mistral")) == 1


def test_structured_call_falls_through_failed_links(fake, make_chain):
    fake.script("mistral", Reply.fails(429))
    fake.script("gemini", Reply.says("", garbage_after=0))
    fake.script("glm", Reply.says(GOOD))
    assert make_chain("mistral,gemini,glm").structured(ask(), HabitSuggestion).importance == 4


# Answers as real models send them ------------------------------------------------------------

MISTRAL_PRETTY = '{\n  "name": "Read",\n  "importance": 4\n}'
FENCED_NUMBER_AS_STRING = '```json\n{\n"name": "Read",\n"importance": "4"\n}\n```'
PROSE_AROUND = (
    'Here is the habit:\n{"name": "Read", "importance": 4}\nThis JSON object contains the name and importance.'
)
EXTRA_FIELDS = '{"name": "Read", "importance": 4, "reason": "you like books", "confidence": 0.9}'
THINKING_FIRST = (
    '<think>\nThe user likes books, so {"name": ...} should be reading.\n</think>\n\n{"name": "Read", "importance": 4}'
)


@pytest.mark.parametrize("link", ["mistral", "gemini"])
@pytest.mark.parametrize(
    "answer",
    [MISTRAL_PRETTY, FENCED_NUMBER_AS_STRING, PROSE_AROUND, EXTRA_FIELDS, THINKING_FIRST],
    ids=["pretty-printed", "fenced-number-as-string", "prose-around", "extra-fields", "thinking-first"],
)
def test_what_can_be_read_without_guessing_is_read_at_the_first_answer(fake, make_chain, link, answer):
    fake.script(link, Reply.says(answer))
    assert make_chain(link).structured(ask(), HabitSuggestion) == HabitSuggestion(name="Read", importance=4)
    assert len(fake.requests(link)) == 1


@pytest.mark.parametrize(
    "answer",
    [
        '{"name": "Read", "importance": 4} or, if you prefer, {"name": "Run", "importance": 3}',
        '{"name": "Read", "importance": "four"}',
        '{"name": "Read", "importance": 4.5}',
        '["Read", 4]',
        "",
        '{"why": "books", "habit": {"name": "Read", "importance": 4}, because you like them}',
    ],
    ids=["two-objects", "word-for-a-number", "fraction-for-an-int", "an-array", "empty", "readable-inside-broken"],
)
def test_what_would_be_a_guess_is_asked_again_once_then_refused(fake, make_chain, answer):
    fake.script("mistral", Reply.says(answer), Reply.says(answer))
    with pytest.raises(AnswerUnreadable) as refused:
        make_chain("mistral").structured(ask(), HabitSuggestion)
    assert refused.value.key == "AI_ANSWER_UNUSABLE" and isinstance(refused.value, ChainExhausted)
    _first, second = fake.requests("mistral")
    assert JSON_RETRY_WARNING in second.body["messages"][0]["content"]


CUT = '{"name": "Read a chapter of a novel every evening before going to sl'


@pytest.mark.parametrize(("link", "finish"), [("mistral", "length"), ("glm", "length"), ("gemini", "MAX_TOKENS")])
def test_an_answer_cut_at_the_token_limit_is_asked_again_once_for_a_shorter_one(fake, make_chain, link, finish):
    fake.script(link, Reply.says(CUT, finish_reason=finish), Reply.says('{"name": "Read", "importance": 4}'))
    assert make_chain(link).structured(ask(), HabitSuggestion).name == "Read"
    first, second = fake.requests(link)
    system = json.dumps(second.body)  # the system prompt, in either protocol
    assert JSON_CUT_WARNING in system and JSON_CUT_WARNING not in json.dumps(first.body)
    assert CUT not in system  # the cut answer is not sent back: the prompt does not grow


def test_a_cut_answer_is_not_read_from_an_object_complete_inside_it(fake, make_chain):
    cut = '{"habits": [{"name": "Read", "importance": 4}, {"name": "Run", "impor'
    fake.script("mistral", Reply.says(cut, finish_reason="length"), Reply.says('{"name": "Walk", "importance": 2}'))
    assert make_chain("mistral").structured(ask(), HabitSuggestion).name == "Walk"
    assert JSON_CUT_WARNING in fake.requests("mistral")[1].body["messages"][0]["content"]


def test_a_cut_inside_a_fence_is_a_cut_too(fake, make_chain):
    fake.script("mistral", Reply.says('```json\n{"name": "Read", "importance": ', finish_reason="length"),
                Reply.says('{"name": "Read", "importance": 4}'))  # fmt: skip
    make_chain("mistral").structured(ask(), HabitSuggestion)
    assert JSON_CUT_WARNING in fake.requests("mistral")[1].body["messages"][0]["content"]


def test_two_cut_answers_are_refused_with_the_doors_error(fake, make_chain):
    fake.script("gemini", Reply.says(CUT, finish_reason="MAX_TOKENS"), Reply.says(CUT, finish_reason="MAX_TOKENS"))
    with pytest.raises(AnswerUnreadable) as refused:
        make_chain("gemini").structured(ask(), HabitSuggestion)
    assert "cut off" in str(refused.value)
    assert len(fake.requests("gemini")) == 2


def test_a_gemini_answer_cut_before_any_text_is_asked_again(fake, make_chain):
    fake.script("gemini", Reply(text=[], finish_reason="MAX_TOKENS"), Reply.says('{"name": "Read", "importance": 4}'))
    assert make_chain("gemini").structured(ask(), HabitSuggestion).importance == 4
    assert len(fake.requests("gemini")) == 2
