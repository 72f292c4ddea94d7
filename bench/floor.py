"""The app as the Procfile serves it, plus the bare routes the benches measure it against: the
floor of a figure is the same work done by Flask alone, on the same server, in the same run.

    gunicorn ... bench.floor:app    (bench.serving.procfile_server(..., floor=True))

- `GET /_floor/stream`: a bare SSE generator, a `: ping` every heartbeat (what a watcher of a
  silent turn sends), nothing else — no session, no database, no turn.
- `POST /_floor/turns` then `GET /_floor/turns/<id>/stream`: a bare SSE round trip — a POST that
  answers with an id, and a stream that sends one `token` event at once.
"""

import itertools
import time

from flask import Response

from app.extensions import csrf
from wsgi import app

_ids = itertools.count(1)


@app.get("/_floor/stream")
def bare_stream():
    heartbeat = app.config["AGENT_HEARTBEAT_SECONDS"]

    def beats():
        yield ": connected\n\n"
        while True:
            time.sleep(heartbeat)
            yield ": ping\n\n"

    return Response(beats(), mimetype="text/event-stream", headers={"Cache-Control": "no-cache"})


@app.post("/_floor/turns")
@csrf.exempt
def bare_post():
    return f'<div id="turn-{next(_ids)}"></div>'


@app.get("/_floor/turns/<int:turn_id>/stream")
def bare_round_trip(turn_id):
    return Response(
        [f"id: 1\nevent: token\ndata: {turn_id}\n\n", "event: done\ndata: \n\n"],
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache"},
    )
