"""A task's expectations held against what changed: every change the task expects must be there,
and every change it does not expect (or allow) is a failure, so a model that does the right thing
and something else besides does not pass.

Each expectation claims the changes it explains: a created or deleted row whole, a changed row's
columns named in `to`. What is left unclaimed, and not in `allow` (or ALWAYS_ALLOWED), is an
unexpected change. The causes a failure is put down to are in CAUSES.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from dataclasses import dataclass, replace
from fnmatch import fnmatch

from bench.eval import seed as seeding
from bench.eval.snapshot import Diff, plain

# What a failure is put down to, in the order they are looked for.
CAUSES = (
    "setup",  # the task's seed or a placeholder names what is not there: the task is wrong
    "timeout",  # the turn did not end within its time
    "turn failed",  # the turn ended with an error (no model reachable, interrupted…)
    "other user touched",  # a row of the second user changed
    "no tool called",  # a change was expected and the model called no tool (or only openToolsets)
    "refused by validation",  # a call was refused (invalid arguments, a name not found…) and the state is wrong
    "wrong tool",  # the tools a right answer calls were not all called
    "bad arguments",  # the right tools ran, and the state is still not the expected one
    "unexpected change",  # something changed that the task did not expect (a duplicate, a refused task acting)
    "unusable answer",  # the answer's text lacks what the question's answer must say
    "oracle",  # fake only: the scripted ideal model does what no model could (a tool not offered, an id never read)
)

# Changes no task needs to name: the conversation itself, and signing in.
ALWAYS_ALLOWED = ("chats", "chat_messages", "turns", "user_sessions", "users.last_login_at",
                  "users.assistant_note")  # fmt: skip
# Groups a task's `allow` may name: what a check-in (or a completion) moves besides its own row.
ALLOW_GROUPS = {
    "xp": (
        "*.xp",
        "*.current_streak",
        "*.best_streak",
        "*.total_check_ins",
        "*.first_check_in",
        "*.last_check_in",
        "*.max_constance",
        "xp_days",
        "day_outcomes",
        "tasks.done_on",
        "goals.xp_reward",
    ),
}
CORE_TOOLS = {"openToolsets"}  # a call that does nothing on its own


@dataclass(frozen=True)
class Problem:
    cause: str
    detail: str

    def as_data(self):
        return {"cause": self.cause, "detail": self.detail}


class StateProblem(Exception):
    """An expectation of the state is not met (the cause is decided from the calls made)."""


# Matching values ---------------------------------------------------------------------------------


def _expected(value, user):
    value = seeding.expand(value, user)
    return value.isoformat() if isinstance(value, dt.date | dt.datetime | dt.time) else value


def _equal(actual, expected):
    if isinstance(actual, bool) or isinstance(expected, bool):
        return actual is expected or (isinstance(actual, bool) and actual == expected)
    if isinstance(actual, int | float) and isinstance(expected, int | float):
        return abs(actual - expected) < 1e-9
    return plain(actual) == expected


def matches_value(actual, matcher, user):
    if not isinstance(matcher, dict):
        return _equal(actual, _expected(matcher, user))
    held = True
    for kind, raw in matcher.items():
        wanted = _expected(raw, user)
        if kind == "eq":
            held &= _equal(actual, wanted)
        elif kind == "ne":
            held &= not _equal(actual, wanted)
        elif kind == "icontains":
            pieces = wanted if isinstance(wanted, list) else [wanted]
            held &= isinstance(actual, str) and all(str(p).casefold() in actual.casefold() for p in pieces)
        elif kind == "any_of":
            held &= any(_equal(actual, option) for option in wanted)
        elif kind == "gte":
            held &= actual is not None and actual >= wanted
        elif kind == "lte":
            held &= actual is not None and actual <= wanted
        elif kind == "null":
            held &= (actual is None) == bool(wanted)
    return held


def matches(row, where, user):
    return all(matches_value(row.get(column), matcher, user) for column, matcher in (where or {}).items())


def _shown(where, user=None):
    if user is not None:
        with contextlib.suppress(seeding.SeedError):  # else as written: it names a row that is gone
            where = seeding.expand(where, user)
    return ", ".join(f"{column} {matcher!r}" for column, matcher in (where or {}).items()) or "any row"


def _row_label(row):
    return next((f"“{row[c]}”" for c in ("name", "title", "text", "item_name", "tool") if row.get(c)), "a row")


# Judging a state ----------------------------------------------------------------------------------


class Claims:
    """Which changes the expectations explained: whole rows, or columns of a changed row."""

    def __init__(self):
        self.rows, self.columns = set(), set()

    def row(self, table, key):
        self.rows.add((table, key))

    def column(self, table, key, column):
        self.columns.add((table, key, column))


def state_problems(expect, before, after, changes: Diff, user):
    """What of the expected state is missing (StateProblem details) and what changed unexplained."""
    claims = Claims()
    missing = []
    checks = (("created", _created), ("changed", _changed), ("deleted", _deleted), ("unchanged", _unchanged),
              ("pending", _pending))  # fmt: skip
    for kind, check in checks:
        for expectation in expect.get(kind, []):
            try:
                missing += check(expectation, before, after, changes, user, claims)
            except seeding.SeedError as error:
                missing.append(f"{kind}: {error}")
    allowed = [*ALWAYS_ALLOWED]
    for name in expect.get("allow", []):
        allowed += ALLOW_GROUPS.get(name, (name,))
    unexplained = [left for change in changes.changes if (left := _unexplained(change, claims, allowed))]
    return missing, unexplained


def _unexplained(change, claims, allowed):
    """The change, or the part of it (its columns) that nothing claimed or allowed; None."""
    if (change.table, change.key) in claims.rows:
        return None
    if change.kind != "changed":
        whole = any(pattern == change.table or fnmatch(change.table, pattern) or pattern == f"{change.table}.*"
                    for pattern in allowed)  # fmt: skip
        return None if whole else change
    left = tuple(
        column
        for column in change.columns
        if (change.table, change.key, column) not in claims.columns
        and not any(pattern == change.table or fnmatch(f"{change.table}.{column}", pattern) for pattern in allowed)
    )
    return replace(change, columns=left) if left else None


def _created(expectation, before, after, changes, user, claims):
    table, where, count = expectation["table"], expectation.get("where", {}), expectation.get("count", 1)
    new = changes.of(table, "created")
    found = [c for c in new if matches(c.after, where, user)]
    for change in found:
        claims.row(table, change.key)
    if len(found) == count:
        return []
    others = "; ".join(_row_label(c.after) for c in new if c not in found) or "none"
    return [
        f"{count} new {table} row(s) with {_shown(where, user)} expected, {len(found)} found (other new rows: {others})"
    ]


def _before_rows(table, where, before, user):
    return [(key, row) for key, row in before.get(table, {}).items() if matches(row, where, user)]


def _seeded(expectation, before, user):
    """The seed's rows an expectation names, and what is wrong with the task when they are not
    the rows it says (none, or not `count` of them)."""
    table, where = expectation["table"], expectation.get("where", {})
    rows = _before_rows(table, where, before, user)
    problems = []
    if "count" in expectation and len(rows) != expectation["count"]:
        problems.append(f"the seed has {len(rows)} {table} rows with {_shown(where, user)}, the task says "
                        f"{expectation['count']}")  # fmt: skip
    if not rows:
        problems.append(f"no {table} row with {_shown(where, user)} before the conversation (the task is wrong)")
    return rows, problems


def _changed(expectation, before, after, changes, user, claims):
    table, to = expectation["table"], expectation.get("to", {})
    rows, problems = _seeded(expectation, before, user)
    for key, row in rows:
        now = after.get(table, {}).get(key)
        if now is None:
            problems.append(f"{table} {_row_label(row)} was deleted, not changed")
            continue
        for column in to:
            claims.column(table, key, column)
        wrong = {c: now.get(c) for c, m in to.items() if not matches_value(now.get(c), m, user)}
        if wrong:
            problems.append(f"{table} {_row_label(row)}: {', '.join(f'{c} is {v!r}' for c, v in wrong.items())}, "
                            f"expected {_shown({c: to[c] for c in wrong}, user)}")  # fmt: skip
    return problems


def _deleted(expectation, before, after, changes, user, claims):
    table = expectation["table"]
    rows, problems = _seeded(expectation, before, user)
    for key, row in rows:
        claims.row(table, key)
        if key in after.get(table, {}):
            problems.append(f"{table} {_row_label(row)} still exists")
    return problems


def _unchanged(expectation, before, after, changes, user, claims):
    table = expectation["table"]
    rows, problems = _seeded(expectation, before, user)
    touched = {c.key: c for c in changes.of(table)}
    return [*problems, *(f"{table} {_row_label(row)} should not have changed: {touched[key].describe()}"
                         for key, row in rows if key in touched)]  # fmt: skip


def _pending(expectation, before, after, changes, user, claims):
    tool, count = expectation["tool"], expectation.get("count", 1)
    summary = expectation.get("summary")
    waiting = [c for c in changes.of("pending_actions", "created") if c.after.get("tool") == tool]
    found = [c for c in waiting if c.after.get("state") == "PENDING"
             and (summary is None or matches_value(c.after.get("summary"), summary, user))]  # fmt: skip
    for change in found:
        claims.row("pending_actions", change.key)
    if len(found) == count:
        return []
    cards = "; ".join(f"{c.after.get('summary')!r} ({c.after.get('state')})" for c in waiting) or "none"
    return [f"{count} card(s) waiting for {tool} expected, {len(found)} found (its cards: {cards})"]


def answer_problems(answer, text):
    """What the answer's text lacks: every `contains`, one of `any`, none of `none` (any letter case)."""
    folded = (text or "").casefold()
    problems = [f"the answer does not say {word!r}" for word in answer.get("contains", [])
                if word.casefold() not in folded]  # fmt: skip
    options = answer.get("any", [])
    if options and not any(word.casefold() in folded for word in options):
        problems.append(f"the answer says none of {options!r}")
    problems += [f"the answer says {word!r}" for word in answer.get("none", []) if word.casefold() in folded]
    return problems


def state_cause(calls, needs):
    """Why the state is not the expected one, from the calls the turns made."""
    acting = [call for call in calls if call["name"] not in CORE_TOOLS]
    if not acting:
        return "no tool called"
    refused = [call for call in acting if call.get("error")]
    if refused:
        return "refused by validation"
    if missing_tools(calls, needs):
        return "wrong tool"
    return "bad arguments"


def missing_tools(calls, needs):
    """The tools of `needs` never called (an entry "a|b" is met by either)."""
    called = {call["name"] for call in calls}
    return [tool for tool in needs if not any(option in called for option in tool.split("|"))]
