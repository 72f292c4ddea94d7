"""The recipes docs/llm.md gives for Ollama, vLLM and LM Studio: each is three settings, and the
app's chain built from them alone talks to a server speaking their protocol — here llama.cpp's,
which is what Ollama and LM Studio run, on this machine's address instead of theirs."""

import re
from urllib.parse import urlsplit

import pytest

from app import ROOT
from app.llm import ChainSettings, ChatRequest, Completed, Message, TextDelta, build_chain

pytestmark = pytest.mark.realmodel

RECIPE = re.compile(r"^(BEYOU_LLM_ORDER=\S+ BEYOU_LLM_LOCAL_BASE_URL=\S+ BEYOU_LLM_LOCAL_MODEL=\S+)$", re.M)
CPU = re.compile(r"^# and for each, on a CPU: (.+)$", re.M)
DOCS = (ROOT / "docs" / "llm.md").read_text(encoding="utf-8")


def settings(line):
    return dict(pair.split("=", 1) for pair in line.split())


def test_the_docs_give_a_recipe_for_each_server():
    assert len(RECIPE.findall(DOCS)) == 3 and CPU.search(DOCS)


@pytest.mark.parametrize("recipe", RECIPE.findall(DOCS), ids=["ollama", "vllm", "lm-studio"])
def test_a_documented_recipe_alone_reaches_a_server_of_that_protocol(recipe, model_server):
    environment = {**settings(recipe), **settings(CPU.search(DOCS).group(1))}
    documented = urlsplit(environment["BEYOU_LLM_LOCAL_BASE_URL"])
    assert documented.hostname == "127.0.0.1" and documented.path == "/v1"
    environment["BEYOU_LLM_LOCAL_BASE_URL"] = f"{model_server}{documented.path}"  # this machine's server
    environment.pop("BEYOU_AI_REQUEST_SECONDS")  # the app's setting, not the chain's
    chain = build_chain(ChainSettings.from_env(environment))
    try:
        events = list(chain.stream(ChatRequest(messages=[Message.user("Say hello in three words.")])))
    finally:
        chain.close()
    assert "".join(event.text for event in events if isinstance(event, TextDelta)).strip()
    assert isinstance([e for e in events if isinstance(e, Completed)][-1], Completed)
