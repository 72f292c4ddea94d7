"""The assistant graded by what it changed, not by what it said (issue 46, item 4): each task
seeds a fresh user, sends one to three messages through the real app (the POST, the turn's SSE
stream, the runner, the chain, the tools; a card's Confirm clicked where the task says so), then
holds the user's rows against the task's annotated goal: the expected rows exist with those
fields, nothing else of theirs changed, a second user seeded alike is untouched, a destructive
write stopped at its card, a refused request changed nothing, a question's answer says what it
must. pass^k is success on all k tries of a task (τ-bench's measure of consistency).

    .venv/bin/python -m bench.agent_eval [--tries 3] [--tasks id1,id2] [--smoke] [--out results.json]
    .venv/bin/python -m bench.agent_eval --local http://127.0.0.1:8080/v1 --model qwen3-4b
    .venv/bin/python -m bench.agent_eval --compare before.json after.json

The chain is the fake (tests/fakes, in this process) unless `--local` is given or a BEYOU_LLM_*
variable is set, in which case the environment's chain is used as the app would build it
(docs/configuration.md). Against the fake, every task's oracle (the replies an ideal model
sends, written in the task) is scripted, and the eval also checks the oracle could have been a
model: each call names a tool offered in that round and only ids an earlier message carried. So
a run against the fake proves the tasks and their checks: it must pass every task (the exit
status says so). Tasks and their schema: bench/agent_eval_tasks.toml, docs/agent-eval.md.

Prints one line per task (tries passed, pass^k, tools called, tokens in and out, time to the
first token and to the answer's end, the causes of its failures), each failure's details, and
the totals; `--out` writes them all as JSON, which `--compare` reads.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from app.llm.settings import CATALOGUE
from bench.eval import checks, tasks
from bench.eval import seed as seeding
from bench.eval.checks import CAUSES, Problem
from bench.eval.driver import EvalApp, tokens_so_far
from bench.eval.snapshot import diff, owned_rows

FAKE_TURN_SECONDS = 30
REAL_TURN_SECONDS = 180


# Choosing the chain --------------------------------------------------------------------------


def chain_from(options, environ=os.environ):
    """("fake", {}) or ("env"/"local", the LLM settings the app is built with)."""
    from_env = {name: value for name, value in environ.items() if name.startswith("BEYOU_LLM_")}
    keys = {name for link in CATALOGUE.values() for name in link.key_names}
    if options.local:
        local = {"BEYOU_LLM_ORDER": "local", "BEYOU_LLM_LOCAL_BASE_URL": options.local}
        if options.model:
            local["BEYOU_LLM_LOCAL_MODEL"] = options.model
        return "local", {**from_env, **local}
    if options.fake or not from_env:
        return "fake", {}
    return "env", {**from_env, **{name: environ[name] for name in keys if environ.get(name)}}


def fake_chain_env(fake, link):
    protocol = "gemini" if link == "gemini" else "openai"
    return {
        "BEYOU_LLM_ORDER": link,
        f"BEYOU_LLM_{link.upper()}_API_KEY": "eval",
        f"BEYOU_LLM_{link.upper()}_BASE_URL": fake.base_url(link, protocol),
        "BEYOU_LLM_FIRST_EVENT_TIMEOUT": "20",
    }


# One try of one task ---------------------------------------------------------------------------


@dataclass
class Try:
    problems: list[Problem] = field(default_factory=list)
    turns: list = field(default_factory=list)  # TurnResult per message
    clicks: list = field(default_factory=list)  # (tool, status) per Confirm clicked
    tokens_in: int = 0
    tokens_out: int = 0
    seconds: float = 0.0

    @property
    def passed(self):
        return not self.problems

    @property
    def causes(self):
        found = {problem.cause for problem in self.problems}
        return [cause for cause in CAUSES if cause in found]

    @property
    def calls(self):
        return [call for turn in self.turns for call in turn.calls]

    def as_data(self):
        return {
            "passed": self.passed,
            "causes": self.causes,
            "problems": [problem.as_data() for problem in self.problems],
            "turns": [turn.as_data() for turn in self.turns],
            "clicks": [{"tool": tool, "status": status} for tool, status in self.clicks],
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "seconds": round(self.seconds, 3),
        }


class Runner:
    """Runs tries of tasks on one app: against the fake (`fake` given, its oracle scripted) or
    against whatever chain the app was built with."""

    def __init__(self, app, fake=None, link="mistral", turn_seconds=FAKE_TURN_SECONDS, check_oracle=True):
        self.app, self.fake, self.link = app, fake, link
        self.turn_seconds = turn_seconds
        self.check_oracle = check_oracle

    def run(self, task):
        result = Try()
        started = time.perf_counter()
        tokens = tokens_so_far()
        try:
            self._run(task, result)
        finally:
            after = tokens_so_far()
            result.tokens_in, result.tokens_out = after[0] - tokens[0], after[1] - tokens[1]
            result.seconds = time.perf_counter() - started
        return result

    def _run(self, task, result):
        app = self.app
        actor_id, email = app.new_user("Ana", task.language)
        other_id, _email = app.new_user("Bruno", task.language)
        with app.app.app_context():
            try:
                for user_id in (actor_id, other_id):  # the same rows, the same names, for both
                    seeding.make(app.user(user_id), task.seed)
            except Exception as error:  # a DomainError or SeedError: the seed asks for what cannot be
                result.problems.append(Problem("setup", f"seeding failed: {error!r}"))
                return
        browser = app.browser(email)
        chat_id = browser.new_chat()
        with app.app.app_context():
            before, other_before = owned_rows(actor_id), owned_rows(other_id)
        for number, turn in enumerate(task.turns, start=1):
            if turn.say:
                self._say(task, turn, number, browser, chat_id, actor_id, result)
            else:
                self._click(task, turn, browser, actor_id, result)
            if turn.expect is not None:
                text = result.turns[-1].text if turn.say else ""
                when = f"after turn {number}"
                result.problems += self._judge(task, turn.expect, before, actor_id, text, result, when)
        text = result.turns[-1].text if result.turns else ""
        result.problems += self._judge(task, task.expect, before, actor_id, text, result, "at the end")
        with app.app.app_context():
            touched = diff(other_before, owned_rows(other_id))
        result.problems += [Problem("other user touched", change.describe()) for change in touched.changes]

    def _say(self, task, turn, number, browser, chat_id, actor_id, result):
        scripted = None
        if self.fake is not None:
            with self.app.app.app_context():
                scripted = [self._expanded(step, actor_id) for step in turn.oracle]
            self.fake.reset()
            self.fake.script(self.link, *(_reply(step, f"{number}{n}") for n, step in enumerate(scripted)))
        answered = self.app.turn(browser, chat_id, turn.say, task.page, self.turn_seconds)
        result.turns.append(answered)
        where = f"turn {number}"
        if answered.ending == "timeout" or answered.error_key == "TIMEOUT":
            result.problems.append(Problem("timeout", f"{where}: no answer within {self.turn_seconds} s"))
        elif answered.ending != "done":
            result.problems.append(Problem("turn failed", f"{where}: {answered.ending} ({answered.error_key})"))
        if scripted is not None and self.check_oracle:
            result.problems += [Problem("oracle", f"{where}: {p}") for p in oracle_problems(self.fake, self.link,
                                                                                              scripted)]  # fmt: skip

    def _expanded(self, step, actor_id):
        user = self.app.user(actor_id)
        calls = [{"name": call["name"], "args": seeding.expand(call["args"], user)} for call in step.calls]
        return tasks.Round(tuple(calls), step.text)

    def _click(self, task, turn, browser, actor_id, result):
        status, _action = self.app.confirm(browser, actor_id, turn.confirm or None)
        result.clicks.append((turn.confirm, status))
        named = turn.confirm or "any tool"
        if status is None:
            cause = checks.state_cause(result.calls, task.needs)
            result.problems.append(Problem(cause, f"no card waiting for {named} to confirm"))
        elif status != 200:
            result.problems.append(Problem("bad arguments", f"Confirm on the card of {named} answered {status}"))

    def _judge(self, task, expect, before, actor_id, text, result, when):
        problems = []
        with self.app.app.app_context():
            user = self.app.user(actor_id)
            after = owned_rows(actor_id)
            missing, unexplained = checks.state_problems(expect, before, after, diff(before, after), user)
        if missing:
            cause = checks.state_cause(result.calls, task.needs)
            problems += [Problem(cause, f"{when}: {detail}") for detail in missing]
        problems += [Problem("unexpected change", f"{when}: {change.describe()}") for change in unexplained]
        for tool in checks.missing_tools(result.calls, expect.get("called", [])):
            cause = "no tool called" if not result.calls else "wrong tool"
            problems.append(Problem(cause, f"{when}: {tool} was never called"))
        if expect.get("answer"):
            problems += [Problem("unusable answer", f"{when}: {detail}")
                         for detail in checks.answer_problems(expect["answer"], text)]  # fmt: skip
        return problems


def _reply(step, prefix):
    from tests.fakes import FakeCall, Reply

    calls = [FakeCall(call["name"], call["args"], id=f"call{prefix}{n}") for n, call in enumerate(step.calls)]
    words = step.text.split(" ")
    third = max(1, len(words) // 3)
    chunks = [" ".join(words[i : i + third]) for i in range(0, len(words), third)] if step.text else []
    chunks = [chunk + (" " if n < len(chunks) - 1 else "") for n, chunk in enumerate(chunks)]
    return Reply(text=chunks, tool_calls=calls)


def oracle_problems(fake, link, scripted):
    """What the oracle did that no model could: answered a call the turn never made, called a
    tool its round did not offer, or named an id nothing before the call carried."""
    import re

    requests = [r for r in fake.requests(link) if r.protocol in ("openai", "gemini")]
    problems = []
    if len(requests) != len(scripted):
        problems.append(f"the turn made {len(requests)} model calls, the oracle scripts {len(scripted)} rounds")
    for number, (request, step) in enumerate(zip(requests, scripted, strict=False), start=1):
        offered = _offered(request)
        said = json.dumps(request.messages, ensure_ascii=False)
        for call in step.calls:
            if call["name"] not in offered:
                problems.append(f"round {number}: {call['name']} was not offered (offered: {', '.join(offered)})")
            for found in re.findall(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
                                    json.dumps(call["args"])):  # fmt: skip
                if found not in said:
                    problems.append(f"round {number}: {call['name']} names the id {found}, which no earlier "
                                    "message carried (read it first)")  # fmt: skip
        problems += [f"round {number}: a strict provider would refuse the request: {p}" for p in request.problems]
    return problems


def _offered(request):
    tools = request.body.get("tools") or []
    if request.protocol == "gemini":
        return [d["name"] for tool in tools for d in tool.get("functionDeclarations", [])]
    return [tool["function"]["name"] for tool in tools]


# A whole run -------------------------------------------------------------------------------------


def run(selected, runner, tries, progress=None):
    """{task id: [Try, ...]} for `tries` tries of each task, in order."""
    results = {}
    for task in selected:
        results[task.id] = []
        for _ in range(tries):
            outcome = runner.run(task)
            results[task.id].append(outcome)
            if progress:
                progress(task, outcome)
    return results


def summary(selected, results, tries, chain):
    by_id = {task.id: task for task in selected}
    every = [outcome for outcomes in results.values() for outcome in outcomes]
    per_task = {}
    for task_id, outcomes in results.items():
        task = by_id[task_id]
        per_task[task_id] = {
            "summary": task.summary,
            "language": task.language,
            "messages": task.messages,
            "passed_tries": sum(o.passed for o in outcomes),
            "tries": len(outcomes),
            "pass_k": all(o.passed for o in outcomes),
            "causes": sorted({c for o in outcomes for c in o.causes}, key=CAUSES.index),
            "runs": [o.as_data() for o in outcomes],
        }
    firsts = [t.first_token for o in every for t in o.turns if t.first_token is not None]
    dones = [t.seconds for o in every for t in o.turns]
    causes = {}
    for outcome in every:
        for cause in outcome.causes:
            causes[cause] = causes.get(cause, 0) + 1
    totals = {
        "tasks": len(results),
        "tries": len(every),
        "k": tries,
        "passed_tries": sum(o.passed for o in every),
        "pass_rate": _share(sum(o.passed for o in every), len(every)),
        "pass_k_tasks": sum(t["pass_k"] for t in per_task.values()),
        "pass_k": _share(sum(t["pass_k"] for t in per_task.values()), len(per_task)),
        "causes": causes,
        "tokens_in": sum(o.tokens_in for o in every),
        "tokens_out": sum(o.tokens_out for o in every),
        "tool_calls": sum(len(o.calls) for o in every),
        "first_token_median": _median(firsts),
        "first_token_p90": _p90(firsts),
        "done_median": _median(dones),
        "done_p90": _p90(dones),
    }
    return {"chain": chain, "tries": tries, "tasks": per_task, "totals": totals}


def _share(part, whole):
    return round(part / whole, 4) if whole else 0.0


def _median(values):
    return round(statistics.median(values), 3) if values else None


def _p90(values):
    if len(values) < 2:
        return _median(values)
    return round(statistics.quantiles(values, n=10)[-1], 3)


# Printing ----------------------------------------------------------------------------------------


def print_report(report, verbose=False, out=sys.stdout):
    k = report["tries"]
    chain = report["chain"]
    print(f"chain: {chain['mode']} ({', '.join(chain['links'])}), {report['totals']['tasks']} tasks × {k} tries",
          file=out)  # fmt: skip
    header = f"{'task':34} {'lang':4} {'pass':>5} {'pass^k':>6} {'tools':>5} {'tok in':>8} {'tok out':>7} " \
             f"{'ttft s':>7} {'done s':>7}  causes"  # fmt: skip
    print(header, file=out)
    for task_id, task in report["tasks"].items():
        runs = task["runs"]
        tools = statistics.median([sum(len(t["tools"]) for t in run["turns"]) for run in runs]) if runs else 0
        tokens_in = statistics.fmean([run["tokens_in"] for run in runs]) if runs else 0
        tokens_out = statistics.fmean([run["tokens_out"] for run in runs]) if runs else 0
        firsts = [t["first_token"] for run in runs for t in run["turns"] if t["first_token"] is not None]
        dones = [t["seconds"] for run in runs for t in run["turns"]]
        print(f"{task_id:34} {task['language']:4} {task['passed_tries']:>2}/{task['tries']:<2} "
              f"{'yes' if task['pass_k'] else 'NO':>6} {tools:>5g} {tokens_in:>8.0f} {tokens_out:>7.0f} "
              f"{_seconds(_median(firsts)):>7} {_seconds(_median(dones)):>7}  {', '.join(task['causes'])}",
              file=out)  # fmt: skip
    failures = [(task_id, n, run) for task_id, task in report["tasks"].items()
                for n, run in enumerate(task["runs"], start=1) if not run["passed"]]  # fmt: skip
    if failures:
        print("\nfailures:", file=out)
    for task_id, n, run in failures:
        print(f"- {task_id} (try {n}): {', '.join(run['causes'])}", file=out)
        for problem in run["problems"]:
            print(f"    {problem['cause']}: {problem['detail']}", file=out)
        shown = [_call(call) for turn in run["turns"] for call in turn["calls"]]
        print(f"    calls: {'; '.join(shown) or 'none'}", file=out)
        if verbose:
            for turn in run["turns"]:
                print(f"    answer: {turn['text'][:400]!r}", file=out)
    totals = report["totals"]
    print(f"\ntries: {totals['tries']}, passed {totals['passed_tries']} ({totals['pass_rate']:.1%})", file=out)
    print(f"pass^{k} (every try of a task): {totals['pass_k_tasks']}/{totals['tasks']} tasks "
          f"({totals['pass_k']:.1%})", file=out)  # fmt: skip
    counted = sorted(totals["causes"].items(), key=lambda item: CAUSES.index(item[0]))
    causes = ", ".join(f"{cause} ×{count}" for cause, count in counted)
    print(f"causes of failed tries: {causes or 'none'}", file=out)
    print(f"tool calls: {totals['tool_calls']}; tokens: {totals['tokens_in']} in, {totals['tokens_out']} out", file=out)
    print(f"time to first token: median {_seconds(totals['first_token_median'])} s, p90 "
          f"{_seconds(totals['first_token_p90'])} s; to the answer's end: median {_seconds(totals['done_median'])} s, "
          f"p90 {_seconds(totals['done_p90'])} s", file=out)  # fmt: skip


def _call(call):
    arguments = json.dumps(call["arguments"], ensure_ascii=False)
    arguments = arguments if len(arguments) <= 160 else arguments[:159] + "…"
    return f"{call['name']}({arguments})" + (f" → {call['error']}" if call["error"] else "")


def _seconds(value):
    return "-" if value is None else f"{value:.2f}"


def compare(first_path, second_path, out=sys.stdout):
    """The tasks whose results differ between two runs, then both runs' totals."""
    first = json.loads(Path(first_path).read_text())
    second = json.loads(Path(second_path).read_text())
    print(f"A: {first_path} ({first['chain']['mode']}: {', '.join(first['chain']['links'])})", file=out)
    print(f"B: {second_path} ({second['chain']['mode']}: {', '.join(second['chain']['links'])})", file=out)
    print(f"{'task':34} {'A pass':>7} {'B pass':>7}  what changed", file=out)
    differing = 0
    for task_id in [task_id for task_id in first["tasks"] if task_id in second["tasks"]]:
        a, b = first["tasks"][task_id], second["tasks"][task_id]
        notes = []
        if a["pass_k"] != b["pass_k"]:
            notes.append("now passes every try" if b["pass_k"] else "no longer passes every try")
        gone, new = set(a["causes"]) - set(b["causes"]), set(b["causes"]) - set(a["causes"])
        if gone:
            notes.append(f"no more {', '.join(sorted(gone, key=CAUSES.index))}")
        if new:
            notes.append(f"new: {', '.join(sorted(new, key=CAUSES.index))}")
        if a["passed_tries"] / a["tries"] != b["passed_tries"] / b["tries"] and not notes:
            notes.append("pass rate moved")
        if notes:
            differing += 1
            print(f"{task_id:34} {_passes(a):>7} {_passes(b):>7}  {'; '.join(notes)}", file=out)
    if not differing:
        print("(no task run by both differs)", file=out)
    for label, report, other in (("A", first, second), ("B", second, first)):
        alone = [task_id for task_id in report["tasks"] if task_id not in other["tasks"]]
        if alone:
            print(f"only in {label}: {len(alone)} tasks ({', '.join(alone[:6])}{', …' if len(alone) > 6 else ''})",
                  file=out)  # fmt: skip
    for label, report in (("A", first), ("B", second)):
        totals = report["totals"]
        print(f"{label}: pass rate {totals['pass_rate']:.1%}, pass^{totals['k']} {totals['pass_k']:.1%} "
              f"({totals['pass_k_tasks']}/{totals['tasks']}), tokens {totals['tokens_in']} in / "
              f"{totals['tokens_out']} out, first token median {_seconds(totals['first_token_median'])} s",
              file=out)  # fmt: skip


def _passes(task):
    return "-" if task is None else f"{task['passed_tries']}/{task['tries']}"


# The command --------------------------------------------------------------------------------------


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)  # fmt: skip
    parser.add_argument("--tries", type=int, default=3, help="k of pass^k (default 3)")
    parser.add_argument("--tasks", help="only these task ids, comma-separated")
    parser.add_argument("--smoke", action="store_true", help="the smoke tasks, one try each (what CI runs)")
    parser.add_argument("--out", help="write the results as JSON to this file")
    parser.add_argument("--compare", nargs=2, metavar=("A.json", "B.json"), help="print how two results differ")
    parser.add_argument("--local", metavar="URL", help="an OpenAI-compatible server (llama.cpp, Ollama, vLLM)")
    parser.add_argument("--model", help="the model name the --local server serves")
    parser.add_argument("--fake", action="store_true", help="the fake chain even when BEYOU_LLM_* is set")
    parser.add_argument("--fake-link", default="mistral", choices=("mistral", "gemini"),
                        help="which protocol the fake speaks (default mistral: chat completions)")  # fmt: skip
    parser.add_argument("--turn-timeout", type=float, help=f"seconds a turn may take (default {FAKE_TURN_SECONDS} "
                        f"against the fake, {REAL_TURN_SECONDS} otherwise)")  # fmt: skip
    parser.add_argument("--file", default=str(tasks.TASKS_FILE), help="the task file")
    parser.add_argument("--database", help="an SQLAlchemy URL (default: a SQLite file in a temporary folder)")
    parser.add_argument("--list", action="store_true", help="list the tasks and exit")
    parser.add_argument("--verbose", action="store_true", help="print each failed try's answers too")
    options = parser.parse_args(argv)
    if options.compare:
        compare(*options.compare)
        return 0
    every = tasks.load(options.file)
    selected = tasks.select(every, options.tasks, options.smoke)
    if options.list:
        for task in selected:
            print(f"{task.id:34} {task.language}  {task.summary or ' / '.join(task.messages)}")
        return 0
    tries = 1 if options.smoke else options.tries
    mode, chain_env = chain_from(options)
    seconds = options.turn_timeout or (FAKE_TURN_SECONDS if mode == "fake" else REAL_TURN_SECONDS)
    report = evaluate(selected, tries, mode, chain_env, seconds, options)
    print_report(report, verbose=options.verbose)
    if options.out:
        Path(options.out).write_text(json.dumps(report, indent=1, ensure_ascii=False, default=str))
        print(f"results written to {options.out}")
    if mode == "fake" and report["totals"]["pass_k_tasks"] != report["totals"]["tasks"]:
        print("the fake must pass every task: a failure here is a task, a check or the app that is wrong")
        return 1
    return 0


def evaluate(selected, tries, mode, chain_env, seconds, options):
    from tests.fakes import FakeProviders

    with tempfile.TemporaryDirectory(prefix="beyou-eval-") as folder:
        database = options.database or f"sqlite:///{Path(folder) / 'eval.sqlite3'}"
        fake = FakeProviders().start() if mode == "fake" else None
        try:
            env = fake_chain_env(fake, options.fake_link) if fake else chain_env
            app = EvalApp(database, env, seconds)
            try:
                links = [f"{link.name}({link.model})" for link in app.chain.settings.links]
                if not links:
                    raise SystemExit(f"no usable LLM link: {app.chain.settings.skipped or 'none configured'}")
                chain = {"mode": mode, "links": links}
                print(f"chain: {mode} ({', '.join(links)}); {len(selected)} tasks × {tries} tries, "
                      f"{seconds:g} s per turn", flush=True)  # fmt: skip
                runner = Runner(app, fake, options.fake_link, seconds)
                started = time.perf_counter()
                results = run(selected, runner, tries, progress=_progress)
                print(f"\n{time.perf_counter() - started:.1f} s\n")
            finally:
                app.close()
        finally:
            if fake is not None:
                fake.stop()
    return summary(selected, results, tries, chain)


def _progress(task, outcome):
    print("." if outcome.passed else "F", end="", flush=True)


if __name__ == "__main__":
    sys.exit(main())
