"""What the chain costs on top of a bare SDK call, against the same local fake provider.

    .venv/bin/python -m bench.chain_overhead [--runs 300] [--chunks 20] [--smoke]

For each provider kind it alternates a bare SDK streaming call and the same call through the
chain, measures time to first token and total time, and prints medians side by side with the
difference and the ratio. Target: the chain adds under 5 ms to the median time to first token.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Iterator

import openai
from google import genai
from google.genai import types

from app.llm import ChainSettings, ChatRequest, Message, TextDelta, build_chain
from tests.fakes import FakeProviders, Reply

PROMPT = "Summarise my week in one line."


def timed(stream: Callable[[], Iterator[object]], is_text: Callable[[object], bool]) -> tuple[float, float]:
    started = time.perf_counter()
    first = None
    for item in stream():
        if first is None and is_text(item):
            first = time.perf_counter() - started
    return first or float("nan"), time.perf_counter() - started


def bare_openai(fake: FakeProviders) -> Callable[[], Iterator[object]]:
    client = openai.OpenAI(api_key="bench", base_url=fake.base_url("mistral"), max_retries=0)

    def stream() -> Iterator[object]:
        chunks = client.chat.completions.create(
            model="mistral-small-latest", messages=[{"role": "user", "content": PROMPT}], stream=True
        )
        for chunk in chunks:
            if chunk.choices and chunk.choices[0].delta.content:
                yield chunk.choices[0].delta.content

    return stream


def bare_gemini(fake: FakeProviders) -> Callable[[], Iterator[object]]:
    client = genai.Client(
        api_key="bench",
        http_options=types.HttpOptions(base_url=fake.base_url("gemini", "gemini"), api_version="v1beta"),
    )

    def stream() -> Iterator[object]:
        for chunk in client.models.generate_content_stream(model="gemini-2.5-flash", contents=PROMPT):
            for part in chunk.candidates[0].content.parts or []:
                if part.text:
                    yield part.text

    return stream


def through_chain(fake: FakeProviders, link: str) -> Callable[[], Iterator[object]]:
    env = {
        "BEYOU_LLM_ORDER": link,
        f"BEYOU_LLM_{link.upper()}_API_KEY": "bench",
        f"BEYOU_LLM_{link.upper()}_BASE_URL": fake.base_url(link, "gemini" if link == "gemini" else "openai"),
    }
    chain = build_chain(ChainSettings.from_env(env))
    request = ChatRequest(messages=[Message.user(PROMPT)])
    return lambda: chain.stream(request)


def compare(fake: FakeProviders, link: str, bare: Callable[[], Iterator[object]], runs: int, chunks: int) -> None:
    chained = through_chain(fake, link)
    samples: dict[str, list[tuple[float, float]]] = {"bare": [], "chain": []}
    for run in range(runs + 10):
        for mode, stream, is_text in (
            ("bare", bare, lambda item: isinstance(item, str)),
            ("chain", chained, lambda item: isinstance(item, TextDelta)),
        ):
            fake.script(link, Reply.says(*["token "] * chunks))
            result = timed(stream, is_text)
            if run >= 10:  # warm-up runs are not counted
                samples[mode].append(result)
        fake.reset()

    def median(mode: str, index: int) -> float:
        return statistics.median(s[index] for s in samples[mode]) * 1000

    print(f"\n{link} ({runs} runs each, {chunks} chunks per answer)")
    print(f"{'':24}{'bare SDK':>10}{'chain':>10}{'added':>10}{'ratio':>8}")
    for label, index in (("time to first token ms", 0), ("total time ms", 1)):
        bare_ms, chain_ms = median("bare", index), median("chain", index)
        print(f"{label:24}{bare_ms:10.2f}{chain_ms:10.2f}{chain_ms - bare_ms:10.2f}{chain_ms / bare_ms:8.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--chunks", type=int, default=20)
    parser.add_argument("--smoke", action="store_true", help="what CI runs: tiny sizes, the same code paths")
    args = parser.parse_args()
    if args.smoke:
        args.runs, args.chunks = 5, 3
    with FakeProviders() as fake:
        compare(fake, "mistral", bare_openai(fake), args.runs, args.chunks)
        compare(fake, "gemini", bare_gemini(fake), args.runs, args.chunks)


if __name__ == "__main__":
    main()
