"""The app as the Procfile serves it, plus the bare routes the benches measure it against: the
floor of a figure is the same work done by Flask alone, on the same server, in the same run.

    gunicorn ... bench.floor:app    (bench.serving.procfile_server(..., floor=True))

- `GET /_floor/stream`: a bare SSE generator, a `: ping` every heartbeat (what a watcher of a
  silent turn sends), nothing else — no session, no database, no turn.
- `POST /_floor/turns` then `GET /_floor/turns/<id>/stream`: a bare SSE round trip — a POST that
  answers with an id, and a stream that sends one `token` event at once.
- `POST /_floor/recorded` then `GET /_floor/recorded/<id>/stream`: the same round trip with the two
  writes the architecture puts before any answer's first token, and nothing else: the POST records
  the message (one INSERT, committed), the stream claims it (one UPDATE from pending to running,
  committed) before its `token` event. The rows go to a table of the bench's own
  (`bench.serving.FLOOR_TURNS`), which the bench creates.
- `GET /_floor/relay/<n>`: the lean relay — the same `openai` call as an OpenAI-compatible link
  (to `BENCH_LEAN_BASE_URL`), the answer read with the app's own line-and-JSON parsing, one SSE
  `token` write per chunk, on the request's own greenlet: no turn, no log, no database.
  `bench.concurrent_answers` measures the assistant's CPU per relayed chunk against it.
"""

import functools
import itertools
import os
import time
import uuid

from flask import Response, request
from sqlalchemy import insert, update

from app.extensions import csrf, db
from bench.serving import FLOOR_TURNS
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
    return _one_token(turn_id)


@app.post("/_floor/recorded")
@csrf.exempt
def recorded_post():
    turn_id = str(uuid.uuid4())
    db.session.execute(insert(FLOOR_TURNS).values(id=turn_id, text=request.form.get("message", ""), status="pending"))
    db.session.commit()
    return f'<div id="turn-{turn_id}"></div>'


@app.get("/_floor/recorded/<turn_id>/stream")
def recorded_round_trip(turn_id):
    claim = update(FLOOR_TURNS).where(FLOOR_TURNS.c.id == turn_id, FLOOR_TURNS.c.status == "pending")
    db.session.execute(claim.values(status="running"))
    db.session.commit()
    return _one_token(turn_id)


def _one_token(turn_id):
    return Response(
        [f"id: 1\nevent: token\ndata: {turn_id}\n\n", "event: done\ndata: \n\n"],
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache"},
    )


@functools.cache
def _lean_client():
    """One client for every relay, built on the first (as a link's is), over the links' own
    HTTP client."""
    import openai

    from app.llm.http import link_http_client
    from app.llm.settings import Timeouts

    http, _transport = link_http_client(Timeouts(first_event=120, total=600))
    return openai.OpenAI(api_key="bench", base_url=os.environ["BENCH_LEAN_BASE_URL"], max_retries=0, http_client=http)


@app.get("/_floor/relay/<int:relay_id>")
def lean_relay(relay_id):
    from app.llm.providers.openai_compat import _chunks

    def relay():
        messages = [{"role": "user", "content": f"relay {relay_id}"}]
        stream = _lean_client().chat.completions.create(model="lean", messages=messages, stream=True)
        try:
            for chunk in _chunks(stream.response.iter_lines()):
                for choice in chunk.get("choices") or []:
                    if text := (choice.get("delta") or {}).get("content"):
                        yield f"event: token\ndata: {text}\n\n"
        finally:
            stream.close()
        yield "event: done\ndata: \n\n"

    return Response(relay(), mimetype="text/event-stream", headers={"Cache-Control": "no-cache"})
