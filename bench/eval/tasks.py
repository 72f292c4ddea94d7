"""The eval's tasks, read from TOML (bench/agent_eval_tasks.toml) and checked before anything
runs: an unknown key, a table or column that does not exist, an oracle calling a tool nobody
declared is the task file's mistake, said with the task's id.

The schema is in docs/agent-eval.md; in short:

    [seeds.<name>]            a seed (bench/eval/seed.py) tasks can share by name
    [[task]]
    id, summary, language (en|pt), page (default /dashboard), seeds = [names], smoke (bool)
    [task.seed]               the task's own seed, made after the named ones
    [[task.turn]]             say = "…" (a message), or confirm = "<tool>" (click Confirm on its card)
    [[task.turn.oracle]]      one model round of an ideal model: calls = [{name, args}] and/or text
    [task.turn.expect]        checked right after that turn (optional)
    [task.expect]             checked at the end: created, changed, deleted, unchanged, pending,
                              allow, refused, answer, tools, called
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from app import domains
from app.agent.registry import REGISTRY
from app.extensions import db
from bench.eval import seed as seeding

TASKS_FILE = Path(__file__).resolve().parent.parent / "agent_eval_tasks.toml"

TASK_KEYS = {"id", "summary", "language", "page", "seeds", "seed", "smoke", "turn", "expect"}
TURN_KEYS = {"say", "confirm", "oracle", "expect"}
ROUND_KEYS = {"calls", "text"}
CALL_KEYS = {"name", "args"}
EXPECT_KEYS = {"created", "changed", "deleted", "unchanged", "pending", "allow", "refused", "answer", "tools", "called"}
ROW_KEYS = {"created": {"table", "where", "count"}, "changed": {"table", "where", "to", "count"},
            "deleted": {"table", "where", "count"}, "unchanged": {"table", "where"},
            "pending": {"tool", "summary", "count"}}  # fmt: skip
ANSWER_KEYS = {"contains", "any", "none"}
MATCHERS = {"eq", "ne", "icontains", "any_of", "gte", "lte", "null"}
LANGUAGES = ("en", "pt")


class TaskFileError(Exception):
    pass


@dataclass(frozen=True)
class Round:
    """One model call of the oracle: the tools it calls, and/or the text it says."""

    calls: tuple[dict, ...] = ()
    text: str = ""


@dataclass(frozen=True)
class Turn:
    say: str | None = None
    confirm: str | None = None  # a tool name; "" for whichever card waits
    oracle: tuple[Round, ...] = ()
    expect: dict | None = None


@dataclass(frozen=True)
class Task:
    id: str
    summary: str
    language: str
    page: str
    seed: dict
    turns: tuple[Turn, ...]
    expect: dict
    smoke: bool = False
    needs: tuple[str, ...] = field(default=())  # the write tools a right answer calls

    @property
    def messages(self):
        return [turn.say for turn in self.turns if turn.say]


def load(path=TASKS_FILE):
    domains.load("models")  # the tables and tools a task names, as create_app finds them
    domains.load("tools")
    with open(path, "rb") as handle:
        data = tomllib.load(handle)
    unknown = set(data) - {"seeds", "task"}
    if unknown:
        raise TaskFileError(f"{path}: unknown top-level keys {sorted(unknown)}")
    seeds = data.get("seeds", {})
    for name, named in seeds.items():
        _check_seed(named, f"seed {name}")
    tasks = [_task(raw, seeds) for raw in data.get("task", [])]
    ids = [task.id for task in tasks]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise TaskFileError(f"{path}: task ids used twice: {duplicates}")
    return tasks


def select(tasks, ids=None, smoke=False):
    if ids:
        wanted = [i.strip() for i in ids.split(",") if i.strip()]
        known = {task.id for task in tasks}
        missing = [i for i in wanted if i not in known]
        if missing:
            raise TaskFileError(f"no task named {', '.join(missing)}")
        return [task for task in tasks if task.id in wanted]
    if smoke:
        return [task for task in tasks if task.smoke]
    return tasks


def _task(raw, seeds):
    where = f"task {raw.get('id', '?')}"
    _keys(raw, TASK_KEYS, where)
    for required in ("id", "language", "turn"):
        if required not in raw:
            raise TaskFileError(f"{where}: no {required}")
    if raw["language"] not in LANGUAGES:
        raise TaskFileError(f"{where}: language must be one of {LANGUAGES}")
    names = raw.get("seeds", [])
    missing = [name for name in names if name not in seeds]
    if missing:
        raise TaskFileError(f"{where}: no seed named {missing}")
    _check_seed(raw.get("seed", {}), where)
    turns = tuple(_turn(turn, f"{where} turn {n + 1}") for n, turn in enumerate(raw["turn"]))
    if not any(turn.say for turn in turns):
        raise TaskFileError(f"{where}: no message to say")
    expect = raw.get("expect", {})
    _check_expect(expect, where)
    for n, turn in enumerate(turns):
        if turn.expect is not None:
            _check_expect(turn.expect, f"{where} turn {n + 1}")
    needs = expect.get("tools") or [
        call["name"] for turn in turns for step in turn.oracle for call in step.calls
        if REGISTRY[call["name"]].kind == "write"
    ]  # fmt: skip
    return Task(
        id=raw["id"],
        summary=raw.get("summary", ""),
        language=raw["language"],
        page=raw.get("page", "/dashboard"),
        seed=seeding.merged(*(seeds[name] for name in names), raw.get("seed", {})),
        turns=turns,
        expect=expect,
        smoke=bool(raw.get("smoke", False)),
        needs=tuple(dict.fromkeys(needs)),
    )


def _turn(raw, where):
    _keys(raw, TURN_KEYS, where)
    if ("say" in raw) == ("confirm" in raw):
        raise TaskFileError(f"{where}: a turn either says a message or confirms a card")
    rounds = []
    for n, step in enumerate(raw.get("oracle", [])):
        _keys(step, ROUND_KEYS, f"{where} oracle round {n + 1}")
        for call in step.get("calls", []):
            _keys(call, CALL_KEYS, f"{where} oracle round {n + 1}")
            if call.get("name") not in REGISTRY:
                raise TaskFileError(f"{where}: the oracle calls {call.get('name')!r}, which is no tool")
        rounds.append(Round(tuple({"name": c["name"], "args": c.get("args", {})} for c in step.get("calls", [])),
                            step.get("text", "")))  # fmt: skip
    if "say" in raw and (not rounds or rounds[-1].calls):
        raise TaskFileError(f"{where}: the oracle's last round must answer in text, without calls")
    if "confirm" in raw and rounds:
        raise TaskFileError(f"{where}: a click has no oracle")
    confirm = raw.get("confirm")
    if confirm is not None:
        confirm = "" if confirm is True else confirm
        if confirm and confirm not in REGISTRY:
            raise TaskFileError(f"{where}: confirm names {confirm!r}, which is no tool")
    return Turn(say=raw.get("say"), confirm=confirm, oracle=tuple(rounds), expect=raw.get("expect"))


def _check_seed(seed, where):
    try:
        seeding.merged(seed)
    except seeding.SeedError as error:
        raise TaskFileError(f"{where}: {error}") from None


def _check_expect(expect, where):
    _keys(expect, EXPECT_KEYS, f"{where} expect")
    for kind, keys in ROW_KEYS.items():
        for n, row in enumerate(expect.get(kind, [])):
            label = f"{where} expect.{kind}[{n}]"
            _keys(row, keys, label)
            if kind == "pending":
                if row.get("tool") not in REGISTRY:
                    raise TaskFileError(f"{label}: no tool {row.get('tool')!r}")
                continue
            table = db.metadata.tables.get(row.get("table"))
            if table is None:
                raise TaskFileError(f"{label}: no table {row.get('table')!r}")
            for part in ("where", "to"):
                for column, matcher in row.get(part, {}).items():
                    if column not in table.c:
                        raise TaskFileError(f"{label}: {table.name} has no column {column!r}")
                    if isinstance(matcher, dict) and not set(matcher) <= MATCHERS:
                        raise TaskFileError(f"{label}: unknown matcher in {sorted(set(matcher) - MATCHERS)}")
    _keys(expect.get("answer", {}), ANSWER_KEYS, f"{where} expect.answer")
    for key in ("tools", "called"):
        for tool in expect.get(key, []):
            if any(option not in REGISTRY for option in tool.split("|")):
                raise TaskFileError(f"{where} expect.{key}: no tool {tool!r}")
    if expect.get("refused") and any(expect.get(kind) for kind in ROW_KEYS):
        raise TaskFileError(f"{where}: a refused request expects no change")


def _keys(mapping, allowed, where):
    if not isinstance(mapping, dict):
        raise TaskFileError(f"{where}: expected a table, got {mapping!r}")
    unknown = set(mapping) - allowed
    if unknown:
        raise TaskFileError(f"{where}: unknown keys {sorted(unknown)} (allowed: {sorted(allowed)})")
