"""A local HTTP server that speaks like the model providers, scripted per test.

One server plays several providers by path prefix: `/<provider>/v1/chat/completions` is the
OpenAI-compatible protocol, `/<provider>/<version>/models/<model>:streamGenerateContent` (and
`:generateContent`) is Gemini's. Each provider has its own queue of `Reply`s; an empty queue
echoes the last user message. Every request is recorded, so tests assert what was sent.

Two more protocols answer beside the chat ones (tests/fakes/search.py): `/<name>/v1/embeddings`,
OpenAI's embeddings (deterministic vectors unless a failure is scripted), and
`/<name>/search`, Tavily's web search (a scripted `Reply(body=...)` is its answer). A Gemini
`generateContent` that asks for the Google Search tool is answered with grounding (a scripted
`Reply(grounding=[...])`, or two pages about the words searched), and its grounding links,
`GET /<name>/grounding-api-redirect/<token>`, redirect to the pages as Google's do.

A provider told its window (`serve_window`) answers what a self-hosted server says of it:
llama.cpp's `GET /<name>/props` and `GET /<name>/v1/models`, vLLM's `/v1/models`, Ollama's
`GET /<name>/api/ps`; any other provider answers them 404. These reads are kept apart
(`window_reads`), not among `requests`.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from tests.fakes import search, strict, wire
from tests.fakes.script import Reply, echo_reply

CONTROL = "/_fake/"  # the control paths of a fake run as its own process
WINDOW_PATHS = ("props", "v1/models", "api/ps")  # where self-hosted servers say their window


@dataclass
class RecordedRequest:
    provider: str
    protocol: str  # "openai" | "gemini" | "embeddings" | "tavily" | "redirect"
    path: str
    headers: dict[str, str]  # lower-cased names
    body: Any
    streamed: bool
    problems: list[str] = field(default_factory=list)  # what a strict provider would refuse
    client_port: int = 0  # the same port twice: the client reused its connection
    frames_sent: int = 0
    disconnected: threading.Event = field(default_factory=threading.Event)
    finished: threading.Event = field(default_factory=threading.Event)

    def summary(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "protocol": self.protocol,
            "frames_sent": self.frames_sent,
            "disconnected": self.disconnected.is_set(),
            "finished": self.finished.is_set(),
        }

    @property
    def messages(self) -> list[dict]:
        """The chat-completions messages (OpenAI protocol) or Gemini contents."""
        return self.body.get("messages") or self.body.get("contents") or []


class FakeProviders:
    """`with FakeProviders() as fake:` starts it on an ephemeral port of 127.0.0.1."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0):
        self._queues: dict[str, deque[Reply]] = defaultdict(deque)
        self._records: list[RecordedRequest] = []
        self._windows: dict[str, tuple[int, str]] = {}
        self._window_reads: list[tuple[str, str]] = []
        self._lock = threading.Lock()
        self._server = _QuietServer((host, port), _handler_for(self))
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def base_url(self, provider: str, protocol: str = "openai") -> str:
        """What to put in `BEYOU_LLM_<NAME>_BASE_URL` for this provider."""
        return f"{self.url}/{provider}" + ("/v1" if protocol == "openai" else "")

    def start(self) -> FakeProviders:
        self._thread = threading.Thread(target=self._server.serve_forever, name="fake-providers", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeProviders:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- scripting and inspection ----------------------------------------------------------------

    def script(self, provider: str, *replies: Reply) -> None:
        with self._lock:
            self._queues[provider].extend(replies)

    def load(self, script: dict[str, list[dict]]) -> None:
        """Queues replies from a JSON-shaped script: `{"mistral": [{"text": ["Hi"]}, ...]}`."""
        for provider, replies in script.items():
            self.script(provider, *(Reply.from_dict(r) for r in replies))

    def requests(self, provider: str | None = None) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self._records if provider is None or r.provider == provider]

    def serve_window(self, provider: str, tokens: int, server: str = "llama.cpp") -> None:
        """The provider says it holds `tokens`, as `server` says it: "llama.cpp", "vllm" or "ollama"."""
        with self._lock:
            self._windows[provider] = (tokens, server)

    def window_reads(self, provider: str) -> list[str]:
        """The paths the provider was asked its window at, in order."""
        with self._lock:
            return [path for asked, path in self._window_reads if asked == provider]

    def reset(self) -> None:
        with self._lock:
            self._queues.clear()
            self._records.clear()
            self._windows.clear()
            self._window_reads.clear()

    def _scripted(self, provider: str) -> Reply | None:
        with self._lock:
            queue = self._queues[provider]
            return queue.popleft() if queue else None

    def _next_reply(self, provider: str, last_user_text: str) -> Reply:
        with self._lock:
            queue = self._queues[provider]
            return queue.popleft() if queue else echo_reply(last_user_text)

    def _record(self, record: RecordedRequest) -> None:
        with self._lock:
            self._records.append(record)


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024  # a provider takes a thousand turns' connections at once (benches) without refusing any

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that hang up (timeouts, cancelled turns) are part of the script, not errors."""
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _handler_for(fake: FakeProviders) -> type[BaseHTTPRequestHandler]:
    class Handler(_ProviderHandler):
        providers = fake

    return Handler


class _ProviderHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # small SSE frames must leave at once, as from a real provider
    providers: FakeProviders

    def log_message(self, format: str, *args: Any) -> None:  # quiet in tests
        pass

    def do_POST(self) -> None:
        parts = urlsplit(self.path)
        provider = parts.path.strip("/").split("/", 1)[0]
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_raw": raw.decode(errors="replace")}

        if parts.path.startswith(CONTROL):
            self._control(parts.path.removeprefix(CONTROL), body)
            return
        if self._caller_gone():
            self.close_connection = True  # nobody to answer, and no scripted reply taken
            return
        if parts.path.endswith("/embeddings") or parts.path.endswith("/search"):
            self._answer_search(provider, parts.path, body)
            return
        if parts.path.endswith("/chat/completions"):
            protocol, streamed = "openai", bool(body.get("stream"))
            model = body.get("model", "fake-model")
        elif ":streamGenerateContent" in parts.path or ":generateContent" in parts.path:
            protocol, streamed = "gemini", ":streamGenerateContent" in parts.path
            model = parts.path.rsplit("/", 1)[-1].split(":", 1)[0]
        else:
            self._send_json(404, {"error": {"message": f"no fake route for {parts.path}"}})
            return

        problems = strict.openai_problems(body, provider) if protocol == "openai" else strict.gemini_problems(body)
        headers = {k.lower(): v for k, v in self.headers.items()}
        record = RecordedRequest(provider, protocol, self.path, headers, body, streamed, problems,
                                 client_port=self.client_address[1])  # fmt: skip
        self.providers._record(record)
        if problems:
            self._send_json(400, {"error": {"code": 400, "message": "; ".join(problems), "status": "INVALID_ARGUMENT"}})
            return
        if protocol == "gemini" and search.google_search_requested(body):
            reply = self.providers._scripted(provider) or Reply()
        else:
            reply = self.providers._next_reply(provider, _last_user_text(protocol, body))
        try:
            self._answer(record, reply, model)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            record.disconnected.set()
            self.close_connection = True
        finally:
            record.finished.set()

    def do_GET(self) -> None:
        """A grounding link: redirects to its page, as vertexaisearch.cloud.google.com does. Or
        a question about the provider's window."""
        provider, _, rest = urlsplit(self.path).path.strip("/").partition("/")
        if rest in WINDOW_PATHS:
            self._answer_window(provider, rest)
            return
        kind, _, token = rest.partition("/")
        target = search.redirect_target(token) if kind == search.REDIRECT else None
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.providers._record(RecordedRequest(provider, "redirect", self.path, headers, None, False))
        if target is None:
            self._send_json(404, {"error": {"message": f"no fake route for {self.path}"}})
            return
        self._send_raw(302, b"", "text/html; charset=UTF-8", {"Location": target})

    def _answer_window(self, provider: str, path: str) -> None:
        with self.providers._lock:
            self.providers._window_reads.append((provider, path))
            tokens, server = self.providers._windows.get(provider, (0, ""))
        said = wire.window_answer(server, path, tokens, provider)
        if said is None:
            self._send_json(404, {"error": {"message": f"no fake route for {self.path}"}})
        else:
            self._send_json(200, said)

    def _answer_search(self, provider: str, path: str, body: Any) -> None:
        """An embeddings or web-search request: a scripted failure or answer, else the default."""
        protocol = "embeddings" if path.endswith("/embeddings") else "tavily"
        headers = {k.lower(): v for k, v in self.headers.items()}
        record = RecordedRequest(
            provider, protocol, self.path, headers, body, False, client_port=self.client_address[1]
        )
        self.providers._record(record)
        reply = self.providers._scripted(provider)
        try:
            if reply is not None and reply.first_byte_delay and not self._silent_for(reply.first_byte_delay):
                record.disconnected.set()
                self.close_connection = True
            elif reply is not None and reply.tail:
                self._never_ending_json(record, reply)
            elif reply is not None and (reply.status != 200 or reply.body is not None):
                self._send_json(
                    reply.status,
                    reply.body if reply.body is not None else wire.openai_error_body(reply.status),
                    reply.headers,
                )
            elif protocol == "embeddings":
                self._send_json(200, search.embeddings_answer(body, body.get("model", "fake-embed")))
            else:
                self._send_json(200, search.tavily_answer(body))
        finally:
            record.finished.set()

    def _control(self, command: str, body: Any) -> None:
        """Scripting from another process (`python -m tests.fakes`): `POST /_fake/script` with a
        JSON script, `/_fake/reset`, `/_fake/requests` (what was received, in order)."""
        if command == "script":
            self.providers.load(body)
            self._send_json(200, {"ok": True})
        elif command == "reset":
            self.providers.reset()
            self._send_json(200, {"ok": True})
        elif command == "requests":
            self._send_json(200, [record.summary() for record in self.providers.requests()])
        else:
            self._send_json(404, {"error": {"message": f"no control command {command!r}"}})

    def _answer(self, record: RecordedRequest, reply: Reply, model: str) -> None:
        if reply.first_byte_delay and not self._silent_for(reply.first_byte_delay):
            record.disconnected.set()
            self.close_connection = True
            return
        if reply.status != 200:
            body = reply.body
            if body is None:
                body = (wire.openai_error_body if record.protocol == "openai" else wire.gemini_error_body)(reply.status)
            self._send_json(reply.status, body, reply.headers)
            return
        if not record.streamed and search.google_search_requested(record.body):
            if reply.tail:
                self._never_ending_json(record, reply)
                return
            query = _last_user_text("gemini", record.body)
            pages = search.default_grounding(query) if reply.grounding is None else reply.grounding
            redirects = f"{self.providers.url}/{record.provider}/{search.REDIRECT}/"
            self._send_json(200, search.gemini_grounded_answer(pages, query, model, redirects), reply.headers)
            return
        if not record.streamed:
            render = wire.openai_completion if record.protocol == "openai" else wire.gemini_response
            body = json.dumps(render(reply, model)).encode()
            if reply.garbage_after is not None:  # a document cut short
                body = b'{"choices": [ {"message": ' if record.protocol == "openai" else b'{"candidates": [ {'
            if reply.tail:
                self._open_body("application/json", reply)
                self._piece(body)
                self._hold_open(record, reply, json_body=True)
                return
            self._send_raw(200, body, "application/json", reply.headers)
            return
        frames = (wire.openai_stream if record.protocol == "openai" else wire.gemini_stream)(reply, model)
        self._stream(record, frames, reply)

    def _stream(self, record: RecordedRequest, frames: list[wire.Frame], reply: Reply) -> None:
        self._open_body("text/event-stream", reply)
        next_at = time.monotonic()
        for index, frame in enumerate(frames):
            if index and reply.pace:  # on a schedule: a loaded server catches up, as a model's own clock would
                next_at += reply.pace
                time.sleep(max(0.0, next_at - time.monotonic()))
            if frame.control == wire.CUT:
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
                return
            if frame.control == wire.STALL:
                if not self._stall(reply):
                    raise ConnectionResetError("the client went away during the stall")
                next_at = time.monotonic()
                continue
            if isinstance(frame.payload, str):
                data = frame.payload
            else:
                data = "data: " + json.dumps(frame.payload, ensure_ascii=not reply.split_characters)
            event = (data + "\n\n").encode()
            for piece in _cut_in_a_character(event) if reply.split_characters and frame.content else (event,):
                self._piece(piece)
            record.frames_sent += 1
        if reply.tail:
            self._hold_open(record, reply)
            return
        if reply.linger and not self._silent_for(reply.linger):
            self.close_connection = True
            return
        self._chunk(b"")

    def _open_body(self, content_type: str, reply: Reply) -> None:
        """A 200's head: a chunked body, or (a "silent" tail) one that only closing would end."""
        self._chunked = reply.tail != "silent"
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        if self._chunked:
            self.send_header("Transfer-Encoding", "chunked")
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()

    def _piece(self, data: bytes) -> None:
        if self._chunked:
            self._chunk(data)
        else:
            self.wfile.write(data)
            self.wfile.flush()

    def _never_ending_json(self, record: RecordedRequest, reply: Reply) -> None:
        """A JSON answer that begins and never ends: the reply's tail in place of the rest."""
        self._open_body("application/json", reply)
        self._piece(b'{"results": [')
        self._hold_open(record, reply, json_body=True)

    def _hold_open(self, record: RecordedRequest, reply: Reply, *, json_body: bool = False) -> None:
        """The reply's tail (tests/fakes/script.py TAILS) after its last word, for `linger` seconds
        (a minute by default) or until the client hangs up, which `record.disconnected` tells."""
        self.close_connection = True
        deadline = time.monotonic() + (reply.linger or 60.0)
        keepalive = b"\n" if json_body else b": keepalive\n\n"
        try:
            while time.monotonic() < deadline:
                if reply.tail == "trickle":
                    if not self._silent_for(0.1):
                        break
                    self._piece(b" " if json_body else b":")
                elif reply.tail == "comments":
                    if not self._silent_for(0.01):
                        break
                    self._piece(keepalive)
                elif not self._silent_for(0.1):
                    break
            else:
                return
        except OSError:
            pass
        record.disconnected.set()

    def _caller_gone(self) -> bool:
        """Whether the caller hung up before its request was taken up. On a loaded machine a
        request a cut stream left behind may be read only after its test ended: it must not take
        the next test's scripted reply, nor count among that test's requests."""
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return bool(readable) and not self.connection.recv(1, socket.MSG_PEEK)
        except OSError:
            return True

    def _silent_for(self, seconds: float) -> bool:
        """Says nothing for `seconds`; False as soon as the client hangs up (it is watched)."""
        deadline = time.monotonic() + seconds
        while (remaining := deadline - time.monotonic()) > 0:
            readable, _, _ = select.select([self.connection], [], [], min(remaining, 0.05))
            if readable and not self.connection.recv(1, socket.MSG_PEEK):
                return False
        return True

    def _stall(self, reply: Reply) -> bool:
        """The reply's stall: silence, or only keep-alive comments. False if the client left."""
        if reply.keepalive_every is None:
            return self._silent_for(reply.stall_for)
        deadline = time.monotonic() + reply.stall_for
        while (remaining := deadline - time.monotonic()) > 0:
            if not self._silent_for(min(reply.keepalive_every, remaining)):
                return False
            if deadline - time.monotonic() > 0:
                self._piece(b": keepalive\n\n")
        return True

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _send_json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        raw = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self._send_raw(status, raw, "application/json", headers or {})

    def _send_raw(self, status: int, raw: bytes, content_type: str, headers: dict[str, str]) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(raw)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(raw)
        self.wfile.flush()


def _cut_in_a_character(event: bytes) -> tuple[bytes, ...]:
    """An event in two pieces, cut after the first byte of its first multi-byte UTF-8 character
    (a lead byte is 0b11xxxxxx), as a server writing its bytes as they come may cut it; an event
    with no such character, whole."""
    lead = next((at for at, byte in enumerate(event) if byte >= 0xC0), None)
    return (event,) if lead is None else (event[: lead + 1], event[lead + 1 :])


def _last_user_text(protocol: str, body: dict) -> str:
    if protocol == "openai":
        users = [m for m in body.get("messages", []) if m.get("role") == "user"]
        content = users[-1].get("content", "") if users else ""
        return content if isinstance(content, str) else json.dumps(content)
    for content in reversed(body.get("contents", [])):
        texts = [p["text"] for p in content.get("parts", []) if content.get("role") == "user" and "text" in p]
        if texts:
            return " ".join(texts)
    return ""
