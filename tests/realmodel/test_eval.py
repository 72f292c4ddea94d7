"""The assistant's eval (bench/agent_eval.py) at its smoke size against the real model: every
smoke task runs to an outcome through the real app, chain and server. How many pass is printed
(`-s`, and in the run's summary), not asserted: a 135M model rarely calls a tool right, and the
figure is what a model change moves."""

import json

import pytest

from app.llm import local
from bench import agent_eval
from bench.eval import tasks
from tests.realmodel.conftest import MODEL

pytestmark = pytest.mark.realmodel

ENDINGS = {"done", "failed", "timeout", "refused"}  # bench/eval/driver.py TurnResult.ending


def test_every_smoke_task_runs_to_an_outcome(model_server, tmp_path, monkeypatch, record_property):
    for name, value in local.link_environment(MODEL, model_server).items():
        if name.startswith("BEYOU_LLM_"):  # the first event a CPU can meet, as `flask run-local` sets it
            monkeypatch.setenv(name, value)
    results = tmp_path / "eval.json"
    said = agent_eval.main(["--smoke", "--local", f"{model_server}/v1", "--model", MODEL.name, "--out", str(results)])
    report = json.loads(results.read_text())
    assert said == 0 and report["chain"] == {"mode": "local", "links": [f"local({MODEL.name})"]}
    smoke = {task.id for task in tasks.select(tasks.load(tasks.TASKS_FILE), smoke=True)}
    assert set(report["tasks"]) == smoke
    for task_id, task in report["tasks"].items():
        [run] = task["runs"]
        endings = [turn["ending"] for turn in run["turns"]]
        assert endings and set(endings) <= ENDINGS, (task_id, run["problems"])
    totals = report["totals"]
    assert totals["tokens_in"] > 0  # the model read the tasks' prompts
    passed = f"{totals['passed_tries']}/{totals['tries']} tasks passed ({totals['pass_rate']:.0%})"
    line = f"bench.agent_eval --smoke against {MODEL.name}: {passed}"
    print(line)
    record_property("realmodel_summary", line)
