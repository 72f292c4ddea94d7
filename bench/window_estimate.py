"""How far the window's estimate (app/llm/windows.py) is from a server's own count.

    .venv/bin/python -m bench.window_estimate [--base http://127.0.0.1:8081/v1 [--model NAME]]
        [--record tests/chain/recorded_windows.json --label "what served it"] [--smoke]

Sends each of a few real requests (a first round from /habits with its tools; a Portuguese chat
with a tool round) once, asking for one token, and prints the estimate beside the server's
`usage.prompt_tokens` and their ratio, then the ratios on one line (target: never below ×1.00,
at most ×1.25, as tests/chain/test_window_estimate.py holds the recorded ones). Without --base,
the catalogue's model (--model, SmolLM2-135M unless named) is served here for the run
(app/llm/local.py `served`). With --record, the requests as sent and the server's figure under
`--label` go into the file the test reads (a request whose text changed starts its figures
anew); --smoke (what CI runs) records nothing. Nothing is timed. Exits 3, saying why, when there
is no --base and the model is not installed here.
"""

from __future__ import annotations

import argparse
import json
from contextlib import nullcontext
from pathlib import Path
from types import SimpleNamespace

import httpx2

from app import create_app
from app.agent import toolsets
from app.assistant import prompt
from app.llm import ChatRequest, Message, ToolCall, local
from app.llm.windows import TOOLS, entry_tokens, request_tokens
from bench.serving import real_model_or_exit

SERVED = "smollm2-135m"  # served without --base: the catalogue's smallest, CI's
LOWEST, HIGHEST = 1.0, 1.25

PORTUGUESE = (
    "Olá! Esta semana quero pôr a vida em ordem: o relatório trimestral, que tenho de entregar até "
    "sexta-feira, a mudança de casa no fim do mês e o treino para a meia-maratona de outubro. Gostava "
    "de uma rotina de manhã simples: acordar às seis e meia, beber água, alongar dez minutos e correr "
    "três vezes por semana. Consegues ver que hábitos já tenho?"
)


def cases():
    """[(name, system, messages, tool entries)] built from the app's own prompt and tools."""
    app = create_app("test", LLM_ENV={"BEYOU_LLM_ORDER": "mistral", "BEYOU_LLM_MISTRAL_API_KEY": "bench"})
    built = []
    with app.test_request_context():
        for name, language, page, messages in (
            ("first round from /habits", "en", "/habits", [Message.user("Add a run to my morning routine")]),
            ("a Portuguese chat with a tool round", "pt", "/dashboard", portuguese_chat()),
        ):
            person = SimpleNamespace(name="Ana Lima", language=language, timezone="Europe/Lisbon",
                                     assistant_note="Prefere exercício de manhã; não come carne.")  # fmt: skip
            turn = SimpleNamespace(page=page, focus_entry_id=None)
            tools = toolsets.tools_for(page, messages)
            system = str(prompt.system_prompt(person, SimpleNamespace(note=None), turn, tools=tools))  # as a round's
            entries = [{"name": t.spec.name, "description": t.spec.description, "parameters": parameters(t.spec)}
                       for t in tools]  # fmt: skip
            built.append((name, system, messages, entries))
    return built


def parameters(spec):
    from app.llm.schemas import portable_schema

    return portable_schema(spec.args_model)


def portuguese_chat():
    call = ToolCall(id="call0", name="getUserHabits", arguments={})
    habits = [{"id": f"3f2c1d4e-5b6a-4c7d-8e9f-0a1b2c3d4e{n:02d}", "name": name, "importance": 3, "difficulty": 2,
               "streak": n, "categories": ["Saúde"]} for n, name in enumerate(("Ler 20 páginas", "Beber água",
                                                                                "Alongar", "Correr"))]  # fmt: skip
    return [
        Message.user(PORTUGUESE),
        Message(role="assistant", tool_calls=[call]),
        Message.tool_result(call, json.dumps({"habits": habits}, ensure_ascii=False)),
        Message(role="assistant", content="Já tens **Ler 20 páginas**, **Beber água**, **Alongar** e **Correr**."),
        Message.user("Ótimo! Junta-os todos à rotina «Manhãs», por favor, às sete e meia."),
    ]


def estimate(system, messages, entries):
    tools = TOOLS + sum(map(entry_tokens, entries)) if entries else 0
    return request_tokens(ChatRequest(system=system, messages=messages)) + tools


def wire_messages(system, messages):
    out = [{"role": "system", "content": system}]
    for message in messages:
        item = {"role": message.role, "content": message.content}
        if message.tool_calls:
            item["tool_calls"] = [{"id": c.id, "type": "function",
                                   "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
                                  for c in message.tool_calls]  # fmt: skip
        if message.tool_call_id:
            item["tool_call_id"] = message.tool_call_id
        out.append(item)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="the server's OpenAI-compatible base URL (default: serve --model here)")
    parser.add_argument("--model", help=f"the model the server is asked for (without --base: {SERVED} or another "
                        f"of {', '.join(sorted(local.MODELS))})")  # fmt: skip
    parser.add_argument("--record", type=Path)
    parser.add_argument("--label", help="what served the figures (server, build, model), with --record")
    parser.add_argument("--smoke", action="store_true", help="what CI runs: the two requests, nothing recorded")
    args = parser.parse_args()
    if args.smoke:  # the figures printed, none recorded
        args.record = None
    if args.record and not args.label:
        parser.error("--record needs --label")
    model = args.model or ("local" if args.base else SERVED)
    if not args.base and model not in local.MODELS:
        parser.error(f"without --base, --model is one of {', '.join(sorted(local.MODELS))}")
    with real_model_or_exit(), nullcontext() if args.base else local.served(model, ready_within=120) as served:
        measure(args.base or f"{served}/v1", model, args.record, args.label)


def measure(base, model, record, label):
    recorded = json.loads(record.read_text()) if record and record.exists() else []
    print(f"{'request':<40}{'estimate':>9}{'server':>8}{'ratio':>7}")
    ratios = []
    for name, system, messages, entries in cases():
        body = {"model": model, "max_tokens": 1, "messages": wire_messages(system, messages),
                "tools": [{"type": "function", "function": entry} for entry in entries]}  # fmt: skip
        said = httpx2.post(f"{base.rstrip('/')}/chat/completions", json=body, timeout=1800).json()
        counted = said["usage"]["prompt_tokens"]
        guess = estimate(system, messages, entries)
        ratios.append(guess / counted)
        print(f"{name:<40}{guess:>9,}{counted:>8,}{guess / counted:>7.2f}")
        if record:
            case = {"request": name, "system": system, "tools": entries,
                    "messages": [m.model_dump(exclude_defaults=True) for m in messages]}  # fmt: skip
            kept = next((r for r in recorded if {k: r[k] for k in case} == case), None)
            if kept is None:
                recorded = [r for r in recorded if r["request"] != name]
                kept = {**case, "prompt_tokens": {}}
                recorded.append(kept)
            kept["prompt_tokens"][label] = counted
    held = all(LOWEST <= ratio <= HIGHEST for ratio in ratios)
    print(f"estimate / server: {' … '.join(f'×{ratio:.2f}' for ratio in ratios)} "
          f"(target ×{LOWEST:.2f} to ×{HIGHEST:.2f}) -> {'OK' if held else 'OUT'}")  # fmt: skip
    if record:
        record.write_text(json.dumps(recorded, ensure_ascii=False, indent=1) + "\n")


if __name__ == "__main__":
    main()
