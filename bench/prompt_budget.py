"""How many bytes the first model round of a turn carries, page by page.

    .venv/bin/python -m bench.prompt_budget [--smoke]

A free key's tokens-per-minute quota is shared by every user of the app, so what each round
re-sends (the system prompt and the tool specs) caps how many turns a minute the whole service
answers. For each page (every navigation area, the deeper pages a toolset is carried from, and a
message sent from no page) this prints the
bytes of the system prompt and of the tools of the first round, serialised exactly as the
OpenAI-compatible adapter sends them (the SDK's compact JSON, UTF-8); then their average over the
pages and the worst case; and the same with every registered tool sent (the whole catalogue of
../shared/spec/features.md), for comparison. Target: every page's tools <= 10 KB
(tests/assistant/test_toolsets.py holds it with `first_round`). Nothing is measured in time, so
the figures do not depend on the machine's load, and `--smoke` (what CI runs) is the whole run.
"""

from __future__ import annotations

import argparse
import json
from statistics import mean
from types import SimpleNamespace

from app import create_app
from app.agent import registry, toolsets
from app.assistant import prompt
from app.llm import ChainSettings, ChatRequest, Message, build_chain
from app.web.navigation import AREAS

TARGET = 10_000


def wire_bytes(value):
    """As the openai SDK serialises a request body (compact separators, UTF-8)."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def adapter():
    """The OpenAI-compatible adapter whose request body is measured."""
    env = {"BEYOU_ENV": "development", "BEYOU_LLM_ORDER": "mistral", "BEYOU_LLM_MISTRAL_API_KEY": "bench"}
    return build_chain(ChainSettings.from_env(env)).adapters[0]


def first_round(adapter, page, tools=None):
    """(system prompt bytes, tools bytes, tool count) of a turn's first model round sent from
    `page` ("" for no page), with `tools` instead of the page's when given. Needs a request context."""
    user = SimpleNamespace(name="Ana", language="en", timezone="Europe/Lisbon", assistant_note=None)
    turn = SimpleNamespace(page=page or None, focus_entry_id=None)
    ask = [Message.user("Add a run to my morning routine")]
    carried = (
        toolsets.tools_for(page, ask) if tools is None else list(registry.REGISTRY.values())
    )  # what the prompt's parts follow
    tools = [tool.spec for tool in carried] if tools is None else tools
    request = ChatRequest(
        system=prompt.system_prompt(user, SimpleNamespace(note=None), turn, tools=carried), messages=ask, tools=tools
    )
    params = adapter._params(request)  # the body the adapter hands the SDK
    return len(str(request.system).encode()), wire_bytes(params["extra_body"].get("tools", [])), len(tools)


def pages(app):
    """[(name, path)]: every navigation area, each deeper page a toolset is carried from (the study
    cycles' /notebook/cycles, Focus mode's /focus), and a message sent from no page. Needs a request context."""
    areas = [(area.slug, area.url) for area in AREAS]
    served = [rule.rule for rule in app.url_map.iter_rules()]
    deeper = sorted(
        {named for toolset in toolsets.TOOLSETS.values() for named in toolset.pages} - {s for s, _ in areas}
    )
    deeper = [(named, f"/{named}") for named in deeper if any(rule.startswith(f"/{named}") for rule in served)]
    return areas + deeper + [("(no page)", "")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="what CI runs: the same, it takes seconds")
    parser.parse_args()
    app = create_app("test", LLM_ENV={"BEYOU_LLM_ORDER": "mistral", "BEYOU_LLM_MISTRAL_API_KEY": "bench"})
    sender = adapter()
    with app.test_request_context():
        every_spec = [tool.spec for tool in registry.REGISTRY.values()]
        rows = [(slug, page, *first_round(sender, page)) for slug, page in pages(app)]
        everything = first_round(sender, "", every_spec)

    print(f"First model round of a turn, bytes as sent ({len(registry.REGISTRY)} registered tools)\n")
    print(f"{'page':<16}{'path':<16}{'system':>8}{'tools':>8}{'count':>7}")
    for slug, page, system, tools, count in rows:
        print(f"{slug:<16}{page or '-':<16}{system:>8,}{tools:>8,}{count:>7}")
    systems, tools = [row[2] for row in rows], [row[3] for row in rows]
    worst = max(rows, key=lambda row: row[3])
    print(f"{'average':<32}{mean(systems):>8,.0f}{mean(tools):>8,.0f}")
    print(f"{'worst (' + worst[0] + ')':<32}{worst[2]:>8,}{worst[3]:>8,}")
    print(f"{'every tool sent':<32}{everything[0]:>8,}{everything[1]:>8,}{everything[2]:>7}")
    verdict = "holds" if worst[3] <= TARGET else "MISSED"
    print(f"target: every page's tools <= {TARGET:,} bytes: {verdict} (the average is "
          f"{mean(tools) / everything[1]:.0%} of every tool)")  # fmt: skip


if __name__ == "__main__":
    main()
