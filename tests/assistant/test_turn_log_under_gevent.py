"""Under gevent, sending an event never gives way to another greenlet. A condition over a plain
lock once did, on every notify and wait, while holding the log's one lock: at 400 answers
streaming at once every runner queued on that lock behind the others, and a turn's text left
every half second instead of every 30 ms (docs/performance.md, "The token path")."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

RUNNERS_SENDING_TO_WAITING_WATCHERS = """
from gevent import monkey
monkey.patch_all()

import json, sys
import gevent, greenlet
from app.assistant.turn_log import turn_log_for

TURNS = 50
log = turn_log_for(sys.argv[1])  # in memory, or in Redis with this process's copy and a flusher
for turn in range(TURNS):
    log.begin(turn)
heard = {}

def watch(turn):
    after = 0
    while after < 3:
        events = log.read(turn, after, wait=10)
        after = events[-1].id
    heard[turn] = after

watchers = [gevent.spawn(watch, turn) for turn in range(TURNS)]
gevent.sleep(0.05)  # every watcher waits on its turn
gave_way = []
sending = None

def trace(event, args):
    if event == "switch" and sending is not None and args[0] is sending:
        gave_way.append(event)

greenlet.settrace(trace)
for _round in range(3):
    for turn in range(TURNS):
        sending = greenlet.getcurrent()
        log.send(turn, "token", "word ")
        sending = None
    gevent.sleep(0.01)  # the watchers write, as they do in the runner's gather
greenlet.settrace(None)
gevent.joinall(watchers, timeout=10)
print(json.dumps({"gave_way": len(gave_way), "heard": sorted(heard.values())}))
"""


@pytest.mark.parametrize("store", ["memory", "redis"])
def test_a_send_to_waiting_watchers_never_gives_way(store):
    redis_url = ""
    if store == "redis":
        redis_url = os.environ.get("BEYOU_TEST_REDIS_URL")
        if not redis_url:
            pytest.skip("needs BEYOU_TEST_REDIS_URL (a real Redis)")
    result = subprocess.run([sys.executable, "-c", RUNNERS_SENDING_TO_WAITING_WATCHERS, redis_url], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)  # fmt: skip
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    assert outcome["heard"] == [3] * 50  # every watcher heard every event
    assert outcome["gave_way"] == 0
