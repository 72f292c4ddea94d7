"""Time from the message POST to the first `token` event, through the whole stack, against the
bare SDK's time to first token on the same fake provider.

    .venv/bin/python -m bench.agent_ttft [--runs 200]

The app runs under the Procfile's server (gunicorn, gevent worker) on 127.0.0.1 with a SQLite
file in a temporary folder; a client posts a message and reads the turn's SSE stream as a browser
would. The bare side is one `openai` streaming call to the same fake carrying a request of the
same size (the system prompt and every tool schema). Prints medians, p90 and the difference.
Target: under 15 ms added at the median.
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
import time
from pathlib import Path

import openai
import requests

from app import create_app
from app.extensions import db
from app.services import accounts
from bench.serving import procfile_server
from tests.fakes import FakeProviders, Reply

PROMPT = "What should I focus on today?"


class Browser(requests.Session):
    """A session that knows the server's address and sends the CSRF header htmx would."""

    def __init__(self, base_url):
        super().__init__()
        self.base_url = base_url

    def request(self, method, url, *args, **kwargs):
        return super().request(method, self.base_url + url, *args, **kwargs)


def signed_in_client(base_url):
    client = Browser(base_url)
    page = client.get("/login").text
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    client.post("/login", data={"email": "bench@example.com", "password": "bench password 1", "csrf_token": token})
    token = re.search(r'name="csrf-token" content="([^"]+)"', client.get("/dashboard").text).group(1)
    client.headers.update({"X-CSRFToken": token, "HX-Request": "true"})
    return client


def through_the_app(client, chat_id):
    started = time.perf_counter()
    html = client.post(f"/ai/agent/chats/{chat_id}/messages", data={"message": PROMPT, "page": "/dashboard"}).text
    posted = time.perf_counter() - started
    turn_id = re.search(r'id="turn-([0-9a-f-]{36})"', html).group(1)
    first = None
    with client.get(f"/ai/agent/turns/{turn_id}/stream", stream=True) as response:
        for line in response.iter_lines(decode_unicode=True):
            if first is None and line == "event: token":
                first = time.perf_counter() - started
            if line in ("event: done", "event: failed"):
                break
    return first, posted


def same_sized_request():
    """What the assistant sends — a system prompt of the same size and every tool's schema — so
    the bare call does the same wire work and only the stack's own cost shows in the difference."""
    from app.agent.prompt import PROMPTS
    from app.agent.tools import registry
    from app.llm.schemas import portable_schema

    tools = [
        {"type": "function", "function": {"name": t.name, "description": t.description,
                                          "parameters": portable_schema(t.args_model)}}
        for t in registry.REGISTRY.values()
    ]  # fmt: skip
    system = (PROMPTS / "agent.md").read_text()
    return [{"role": "system", "content": system}, {"role": "user", "content": PROMPT}], tools


def bare_sdk(fake, messages, tools):
    client = openai.OpenAI(api_key="bench", base_url=fake.base_url("mistral"), max_retries=0)
    started = time.perf_counter()
    first = None
    stream = client.chat.completions.create(model="mistral-small-latest", messages=messages, tools=tools, stream=True)
    for chunk in stream:
        if first is None and chunk.choices and chunk.choices[0].delta.content:
            first = time.perf_counter() - started
    return first


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    options = parser.parse_args()
    with FakeProviders() as fake, tempfile.TemporaryDirectory() as folder:
        env = {
            "BEYOU_ENV": "development",
            "BEYOU_DATABASE_URL": f"sqlite:///{Path(folder) / 'bench.sqlite3'}",
            "BEYOU_LLM_ORDER": "mistral",
            "BEYOU_LLM_MISTRAL_API_KEY": "bench",
            "BEYOU_LLM_MISTRAL_BASE_URL": fake.base_url("mistral"),
            "BEYOU_AGENT_RATE_LIMIT": "100000 per hour",
            "BEYOU_AUTH_IP_LIMIT": "1000 per minute",
        }
        app = create_app("development", SQLALCHEMY_DATABASE_URI=env["BEYOU_DATABASE_URL"])
        with app.app_context():
            db.create_all()
            accounts.register(name="Bench", email="bench@example.com", password="bench password 1")
        with procfile_server(env) as (base_url, _process):
            run_bench(base_url, fake, options.runs)


def run_bench(base_url, fake, runs):
    client = signed_in_client(base_url)
    messages, tools = same_sized_request()
    app_times, sdk_times, post_times = [], [], []
    for run in range(runs + 5):
        chat_id = re.search(r'data-chat-id="([^"]+)"', client.post("/ai/agent/chats").text).group(1)
        fake.script("mistral", Reply.says("Start ", "with ", "the ", "hardest ", "task."))
        app_time, post_time = through_the_app(client, chat_id)
        fake.script("mistral", Reply.says("Start ", "with ", "the ", "hardest ", "task."))
        sdk_time = bare_sdk(fake, messages, tools)
        if run >= 5:  # the first runs warm caches and connections
            app_times.append(app_time * 1000)
            post_times.append(post_time * 1000)
            sdk_times.append(sdk_time * 1000)

    def p90(values):
        return statistics.quantiles(values, n=10)[-1]

    app_median, sdk_median = statistics.median(app_times), statistics.median(sdk_times)
    print(f"runs: {runs}")
    print(f"{'':28}{'median':>10}{'p90':>10}")
    print(f"{'bare SDK, first token':28}{sdk_median:>8.2f}ms{p90(sdk_times):>8.2f}ms")
    print(f"{'POST → first token event':28}{app_median:>8.2f}ms{p90(app_times):>8.2f}ms")
    print(f"{'  of which the POST':28}{statistics.median(post_times):>8.2f}ms{p90(post_times):>8.2f}ms")
    added = app_median - sdk_median
    print(f"added by the stack at the median: {added:.2f} ms (target < 15 ms) -> {'OK' if added < 15 else 'OVER'}")


if __name__ == "__main__":
    main()
