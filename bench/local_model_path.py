"""The token path with a real model: first token and text rate through the whole app, beside the
same request sent straight to the same llama.cpp server, in the same run.

    .venv/bin/python -m bench.local_model_path [--model smollm2-135m] [--runs 10] [--smoke]

The model server is app/llm/local.py's (`python -m app.llm.local serve`), the app the Procfile's
server (gunicorn, gevent worker) on a SQLite file, its only link pointed at the model as
`flask run-local` points it. Each run: a new chat, one message POSTed and its SSE stream read as a
browser reads it (to the first `token` event, then to `done`); then the very request the app sent
(kept by a pass-through in front of the model server, which both sides go through) sent with the
openai SDK, streaming. Which side goes first alternates, and both find the server's prompt cache in the same state: the
shared beginning of the prompt is read once, at the warm-up, as it is for a person's second turn.

Prints medians: the time to first token of each side, and their ratio (target: the app's at most
×1.1 the direct one's); the text rate after the first token, characters a second, of each.
Exits 3, saying why, when the model is not installed here.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import openai
import requests

from app import create_app
from app.extensions import db
from app.llm import local
from app.profile import accounts
from bench.agent_ttft import signed_in_client
from bench.serving import procfile_server, real_model_or_exit

PROMPT = "Give me one short tip to start my day."


class Recorder:
    """A pass-through in front of the model server that keeps the last chat body the app sent."""

    def __init__(self, target):
        self.target, self.last_body = target, None
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                answer = requests.get(recorder.target + self.path, timeout=30)
                self._send(answer.status_code, answer.headers.get("Content-Type", ""), [answer.content])

            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if self.path.endswith("/chat/completions"):
                    recorder.last_body = json.loads(body)
                answer = requests.post(recorder.target + self.path, data=body, stream=True, timeout=600,
                                       headers={"Content-Type": "application/json"})  # fmt: skip
                self._send(answer.status_code, answer.headers.get("Content-Type", ""), answer.iter_content(None))

            def _send(self, status, content_type, pieces):
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for piece in pieces:
                    if piece:
                        self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                        self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"


def through_the_app(client, chat_id):
    """Seconds to the first `token` event (from the POST), and the answer's characters a second
    after it."""
    started = time.perf_counter()
    html = client.post(f"/ai/agent/chats/{chat_id}/messages", data={"message": PROMPT, "page": "/dashboard"}).text
    turn_id = re.search(r'id="turn-([0-9a-f-]{36})"', html).group(1)
    first, text, last = None, 0, None
    event = None
    with client.get(f"/ai/agent/turns/{turn_id}/stream", stream=True) as response:
        for line in response.iter_lines(decode_unicode=True):
            if line.startswith("event: "):
                event = line[7:]
                if event in ("done", "failed"):
                    break
            elif line.startswith("data: ") and event == "token":
                now = time.perf_counter()
                first = first if first is not None else now - started
                text, last = text + len(line) - 6, now
    return first, _rate(text, started + (first or 0), last)


def straight(client, body):
    started = time.perf_counter()
    first, text, last = None, 0, None
    request = {key: value for key, value in body.items() if key not in ("stream", "stream_options")}
    for chunk in client.chat.completions.create(stream=True, **request):
        if chunk.choices and chunk.choices[0].delta.content:
            now = time.perf_counter()
            first = first if first is not None else now - started
            text, last = text + len(chunk.choices[0].delta.content), now
    return first, _rate(text, started + (first or 0), last)


def _rate(characters, since, until):
    return characters / (until - since) if until and until > since else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=sorted(local.MODELS), default="smollm2-135m")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--smoke", action="store_true", help="what CI runs: two short runs of the smallest model")
    options = parser.parse_args()
    answer_tokens = local.ANSWER_TOKENS
    if options.smoke:  # and answers of a few lines: the rate needs some text, not a page of it
        options.runs, options.model, answer_tokens = 2, "smollm2-135m", 128
    model = local.MODELS[options.model]
    with real_model_or_exit():
        serving = local.served(model, ready_within=120, answer_tokens=answer_tokens)
        with serving as base, tempfile.TemporaryDirectory() as folder:
            run(options, model, Recorder(base), folder)


def run(options, model, recorder, folder):
    database_url = f"sqlite:///{folder}/bench.sqlite3"
    app = create_app("development", SQLALCHEMY_DATABASE_URI=database_url)
    with app.app_context():
        db.create_all()
        accounts.register(name="Bench", email="bench@example.com", password="bench password 1")
        db.engine.dispose()
    env = {
        **local.link_environment(model, recorder.url),
        "BEYOU_ENV": "development",
        "BEYOU_DATABASE_URL": database_url,
        "BEYOU_AGENT_RATE_LIMIT": "100000 per hour",
        "BEYOU_AUTH_IP_LIMIT": "1000 per minute",
    }
    timeout = model.first_event_seconds
    sdk = openai.OpenAI(api_key="local", base_url=f"{recorder.url}/v1", max_retries=0, timeout=timeout)
    with procfile_server(env) as (base_url, _process):
        client = signed_in_client(base_url)

        def new_chat():
            return re.search(r'data-chat-id="([^"]+)"', client.post("/ai/agent/chats").text).group(1)

        through_the_app(client, new_chat())  # warm-up: the prompt's shared beginning read once
        body = recorder.last_body
        results = {"app": [], "straight": []}
        for index in range(options.runs):
            sides = [("app", lambda: through_the_app(client, new_chat())), ("straight", lambda: straight(sdk, body))]
            for name, measure in sides if index % 2 == 0 else reversed(sides):
                results[name].append(measure())
    report(model, options.runs, results, body)


def report(model, runs, results, body):
    def median(side, index):
        values = [run[index] for run in results[side] if run[index] is not None]
        return statistics.median(values) if values else float("nan")

    app_first, straight_first = median("app", 0), median("straight", 0)
    print(f"{model.name}, {runs} runs, prompt of {len(json.dumps(body))} bytes, {len(body.get('tools', []))} tools")
    print(f"{'':28}{'app':>10}{'straight':>10}")
    print(f"{'first token (s, median)':28}{app_first:>10.2f}{straight_first:>10.2f}")
    print(f"{'text after it (chars/s)':28}{median('app', 1):>10.0f}{median('straight', 1):>10.0f}")
    ratio = app_first / straight_first
    print(f"first token, app / straight: ×{ratio:.2f} (target ≤ ×1.1) -> {'OK' if ratio <= 1.1 else 'OVER'}")


if __name__ == "__main__":
    main()
