"""The window's estimate (app/llm/windows.py) against what real servers counted for the same
requests (tests/chain/recorded_windows.json, written by `python -m bench.window_estimate --record`).

An estimate below a server's count lets through a request the server refuses as longer than its
window, so it must never be below; one far above it drops history the window would have held, so
it may be at most a quarter above."""

import json
from pathlib import Path

import pytest

from app.llm import Message
from bench.window_estimate import estimate

RECORDED = json.loads((Path(__file__).with_name("recorded_windows.json")).read_text(encoding="utf-8"))
MOST_ABOVE = 1.25

FIGURES = [
    pytest.param(case, label, counted, id=f"{case['request']} / {label}")
    for case in RECORDED
    for label, counted in case["prompt_tokens"].items()
]


def test_every_request_has_a_server_figure():
    assert FIGURES and all(case["prompt_tokens"] for case in RECORDED)


@pytest.mark.parametrize(("case", "label", "counted"), FIGURES)
def test_the_estimate_is_never_below_the_server_count_and_at_most_a_quarter_above(case, label, counted):
    messages = [Message.model_validate(message) for message in case["messages"]]
    guess = estimate(case["system"], messages, case["tools"])
    assert counted <= guess <= counted * MOST_ABOVE, f"{guess} estimated, {counted} counted: ×{guess / counted:.2f}"
