"""How many bytes the first model round of a turn carries, page by page.

    .venv/bin/python -m bench.prompt_budget

A free key's tokens-per-minute quota is shared by every user of the app, so what each round
re-sends (the system prompt and the tool specs) caps how many turns a minute the whole service
answers. For each page (every navigation area, and a message sent from no page) this prints the
bytes of the system prompt and of the tools of the first round, serialised exactly as the
OpenAI-compatible adapter sends them (the SDK's compact JSON, UTF-8); then their average over the
pages and the worst case; the same with every registered tool sent, for comparison; and a
projection with the full catalogue of ../shared/spec/features.md, its missing tools counted at the
average size of the registered ones. Target: the tools part averages <= 10 KB per round.
Nothing is measured in time, so the figures do not depend on the machine's load.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from statistics import mean
from types import SimpleNamespace

from app import create_app
from app.agent import registry, toolsets
from app.assistant import prompt
from app.llm import ChainSettings, ChatRequest, Message, build_chain
from app.web.navigation import AREAS

TARGET = 10_000
FEATURES = Path(__file__).resolve().parents[2] / "shared" / "spec" / "features.md"
# Where the tools of domains that have not landed yet will be sent from the first round (their
# pages in the catalogue). Focus mode is opened from the routines and the dashboard: counted on both.
PROJECTED_PAGES = {
    "Focus mode": ("routines", "dashboard"),
    "Mood": ("mood",),
    "Ideas board": ("ideas",),
    "Study notebook": ("notebook",),
    "Study cycles": ("notebook",),
}
SUMMARY_BYTES = 60  # what one more toolset adds to openToolsets' description (one "name (summary)")


def wire_bytes(value):
    """As the openai SDK serialises a request body (compact separators, UTF-8)."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


def catalogue_tools():
    """{domain: [tool names]} from the features document's table of the agent's tools."""
    text = FEATURES.read_text(encoding="utf-8")
    table = text.split("## The agent's tools", 1)[1].split("\n\n", 2)[1]
    rows = re.findall(r"^\| ([^|]+?) \| ([^|]+?) \|$", table, flags=re.MULTILINE)
    return {domain: [name.strip() for name in names.split(",")] for domain, names in rows if domain != "Domain"}


def main():
    app = create_app("test", LLM_ENV={"BEYOU_LLM_ORDER": "mistral", "BEYOU_LLM_MISTRAL_API_KEY": "bench"})
    adapter = build_chain(ChainSettings.from_env({"BEYOU_ENV": "development", "BEYOU_LLM_ORDER": "mistral",
                                                  "BEYOU_LLM_MISTRAL_API_KEY": "bench"})).adapters[0]  # fmt: skip
    user = SimpleNamespace(name="Ana", language="en", timezone="Europe/Lisbon", assistant_note=None)
    chat = SimpleNamespace(note=None)
    ask = [Message.user("Add a run to my morning routine")]

    def round_bytes(page, tools):
        turn = SimpleNamespace(page=page or None, focus_entry_id=None)
        request = ChatRequest(system=prompt.system_prompt(user, chat, turn), messages=ask, tools=tools)
        params = adapter._params(request)  # the body the adapter hands the SDK
        return len(str(request.system).encode()), wire_bytes(params.get("tools", [])), len(tools)

    with app.test_request_context():
        pages = [(area.slug, area.url) for area in AREAS] + [("(no page)", "")]
        every_spec = [tool.spec for tool in registry.REGISTRY.values()]
        rows = [(slug, page, *round_bytes(page, toolsets.specs_for(page, ask))) for slug, page in pages]
        everything = round_bytes("", every_spec)
        sizes = {tool.name: wire_bytes(adapter._params(ChatRequest(tools=[tool.spec]))["tools"]) - 2
                 for tool in registry.REGISTRY.values()}  # fmt: skip

    print(f"First model round of a turn, bytes as sent ({len(registry.REGISTRY)} registered tools)\n")
    print(f"{'page':<16}{'path':<16}{'system':>8}{'tools':>8}{'count':>7}")
    for slug, page, system, tools, count in rows:
        print(f"{slug:<16}{page or '-':<16}{system:>8,}{tools:>8,}{count:>7}")
    systems, tools = [row[2] for row in rows], [row[3] for row in rows]
    worst = max(rows, key=lambda row: row[3])
    print(f"{'average':<32}{mean(systems):>8,.0f}{mean(tools):>8,.0f}")
    print(f"{'worst (' + worst[0] + ')':<32}{max(systems):>8,}{worst[3]:>8,}")
    print(f"{'every tool sent':<32}{everything[0]:>8,}{everything[1]:>8,}{everything[2]:>7}")
    verdict = "holds" if mean(tools) <= TARGET else "MISSED"
    print(f"target: tools average <= {TARGET:,} bytes: {verdict} ({mean(tools) / everything[1]:.0%} of every tool)")

    # Projection: the catalogue's missing tools at the average size of a registered domain tool.
    catalogue = catalogue_tools()
    missing = {domain: [n for n in names if n not in registry.REGISTRY] for domain, names in catalogue.items()}
    missing = {domain: names for domain, names in missing.items() if names}
    average_spec = mean(size for name, size in sizes.items() if not registry.REGISTRY[name].core)
    total = len(registry.REGISTRY) + sum(len(names) for names in missing.values())
    print(f"\nProjection with the whole catalogue ({total} tools: {sum(map(len, missing.values()))} more, "
          f"{average_spec:,.0f} bytes each; openToolsets names {len(missing)} more toolsets)")  # fmt: skip
    projected = []
    for slug, _page, _system, tools_now, _count in rows:
        landing = sum(len(names) for domain, names in missing.items() if slug in PROJECTED_PAGES.get(domain, ()))
        projected.append((slug, tools_now + len(missing) * SUMMARY_BYTES + landing * average_spec))
    for slug, size in projected:
        print(f"{slug:<32}{'':>8}{size:>8,.0f}")
    sizes_projected = [size for _slug, size in projected]
    worst_projected = max(projected, key=lambda row: row[1])
    every_projected = everything[1] + sum(map(len, missing.values())) * average_spec + len(missing) * SUMMARY_BYTES
    print(f"{'average':<32}{'':>8}{mean(sizes_projected):>8,.0f}")
    print(f"{'worst (' + worst_projected[0] + ')':<32}{'':>8}{worst_projected[1]:>8,.0f}")
    print(f"{'every tool sent':<32}{'':>8}{every_projected:>8,.0f}{total:>7}")
    verdict = "holds" if mean(sizes_projected) <= TARGET else "MISSED"
    print(f"target: tools average <= {TARGET:,} bytes: {verdict}")


if __name__ == "__main__":
    main()
