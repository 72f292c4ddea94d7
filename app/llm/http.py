"""The HTTP client every link's SDK is handed.

It exists for what the SDKs cannot do on their own:

- each link's connect and read budgets apply whatever timeout the SDK would pass (google-genai
  only knows one number);
- a caller that stops listening can cut the connection under an SDK that is blocked reading it,
  from another thread or greenlet (`Cut`): the chain reads each link on a helper thread, and a
  provider that sends nothing, or only keep-alive comments, must not keep a cancelled turn's
  connection open;
- a cancelled call closes the responses it opened (google-genai does not close its stream when
  its generator is closed), so the transport remembers them while a caller is watching;
- SSE comments (`: keepalive`) are legal in any event stream, but google-genai takes a comment
  line for a broken JSON chunk: a Gemini link reads its streams without them;
- a body that has said its last word (an event stream's `data: [DONE]`, a JSON document whole,
  Gemini's finish reason) is read to its end within DRAIN_SECONDS and DRAIN_BYTES (`tail`): a
  server that holds the body open after it — silent, trickling bytes, sending comments, never
  ending its chunked body — costs that connection, never a thread or a worker's CPU.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any

import httpcore2
import httpx2

from app.llm.settings import Timeouts


class Cut:
    """Cuts every connection the reading thread used while it read under `LinkTransport.cutting`.

    A connection goes back to the pool when a call ends, and another call may take it: a
    connection is cut only while its last reader was this handle's thread and that thread is
    still reading (a call that ended well keeps its connection alive for the next one).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._streams: list[_CuttableStream] = []
        self._done = False

    @property
    def done(self) -> bool:
        return self._done

    def __call__(self) -> None:
        with self._lock:
            self._done = True
            streams = [stream for stream in self._streams if stream.reader is self]
        for stream in streams:
            stream.shut()

    def _release(self) -> None:
        """The reader is done: its connections are back in the pool, other calls' to use."""
        with self._lock:
            self._streams.clear()

    def _claim(self, stream: _CuttableStream) -> None:
        with self._lock:
            stream.reader = self
            if stream not in self._streams:
                self._streams.append(stream)
            cut_already = self._done
        if cut_already:  # cut while the reader was still connecting: it must not go on
            stream.shut()


class LinkTransport(httpx2.BaseTransport):
    def __init__(self, timeouts: Timeouts, *, drop_sse_comments: bool = False):
        self._inner = httpx2.HTTPTransport(retries=0, limits=connection_limits())
        self._timeouts = timeouts
        self._local = threading.local()  # per greenlet under gevent
        self._drop_sse_comments = drop_sse_comments
        # httpx takes no network backend; its pool only reads this one when it opens a connection.
        pool = self._inner._pool
        pool._network_backend = _CuttableBackend(pool._network_backend, self._local)

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        # The chain measures the first-event, idle and total budgets on model events; the read
        # timeout is only the backstop that ends a helper thread nobody cut.
        request.extensions = {
            **request.extensions,
            "timeout": httpx2.Timeout(self._timeouts.total, connect=self._timeouts.connect).as_dict(),
        }
        if isinstance(request.stream, httpx2.ByteStream):  # a JSON body: sent once, then let go
            request.stream, request._content = _SentOnce(request.content), b""
        response = self._inner.handle_request(request)
        content_type = response.headers.get("content-type", "")
        stream: httpx2.SyncByteStream | None = None
        if content_type.startswith("text/event-stream"):
            stream = _WithLastWord(response.stream, self._local, _SaidDone())
            if self._drop_sse_comments:
                stream = _WithoutComments(stream)
        elif "json" in content_type and "content-length" not in response.headers:
            stream = _WithLastWord(response.stream, self._local, _JsonWhole())  # chunked, or ended by closing
        if stream is not None:
            response = httpx2.Response(
                response.status_code, headers=response.headers, stream=stream, extensions=response.extensions
            )
        opened = getattr(self._local, "opened", None)
        if opened is not None:
            opened.append(response)
        return response

    @contextmanager
    def watching(self, *, opened: list[httpx2.Response]) -> Iterator[None]:
        """While inside, responses opened by this thread land in `opened`."""
        previous = getattr(self._local, "opened", None)
        self._local.opened = opened
        try:
            yield
        finally:
            self._local.opened = previous

    @contextmanager
    def bounded(self, bound: ReadBound | None) -> Iterator[None]:
        """While inside, this thread's reads are bounded by `bound` (None: not at all): a body's
        tail for a link that knows from the answer itself that it ended (Gemini's finish reason),
        or a whole call's time for a caller that waits on it in a request."""
        previous = getattr(self._local, "bound", None)
        self._local.bound = bound
        try:
            yield
        finally:
            self._local.bound = previous

    @contextmanager
    def cutting(self, cut: Cut) -> Iterator[None]:
        """While inside, `cut()` (from any thread) cuts the connections this thread reads."""
        previous = getattr(self._local, "cut", None)
        self._local.cut = cut
        try:
            yield
        finally:
            self._local.cut = previous
            cut._release()

    def close(self) -> None:
        self._inner.close()


class _SentOnce(httpx2.SyncByteStream):
    """A request body that lets go of its bytes once they are sent (nothing here retries a
    request): a turn may wait minutes on its model, and its body — the prompt and every tool's
    schema, ~14 KiB — would otherwise stay in memory until the answer ends."""

    def __init__(self, body: bytes):
        self._body = body

    def __iter__(self) -> Iterator[bytes]:
        body, self._body = self._body, b""
        yield body


class _CuttableBackend(httpcore2.NetworkBackend):
    def __init__(self, inner: httpcore2.NetworkBackend, local: threading.local):
        self._inner = inner
        self._local = local

    def connect_tcp(self, *args: Any, **kwargs: Any) -> httpcore2.NetworkStream:
        return _CuttableStream(self._inner.connect_tcp(*args, **kwargs), self._local)

    def connect_unix_socket(self, *args: Any, **kwargs: Any) -> httpcore2.NetworkStream:
        return _CuttableStream(self._inner.connect_unix_socket(*args, **kwargs), self._local)

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class _CuttableStream(httpcore2.NetworkStream):
    """A connection that knows which `Cut` last read it, and can be shut from another thread.

    `shutdown` (unlike `close`) wakes a thread blocked reading the socket, and a greenlet too.
    """

    def __init__(self, inner: httpcore2.NetworkStream, local: threading.local):
        self._inner = inner
        self._local = local
        self.reader: Cut | None = None

    def _claim(self) -> None:
        cut = getattr(self._local, "cut", None)
        if cut is not None:
            cut._claim(self)
        else:
            self.reader = None

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        self._claim()
        bound = getattr(self._local, "bound", None)
        if bound is not None:
            return bound.read(self._inner, max_bytes, timeout)
        return self._inner.read(max_bytes, timeout)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._claim()
        self._inner.write(buffer, timeout)

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, *args: Any, **kwargs: Any) -> httpcore2.NetworkStream:
        return _CuttableStream(self._inner.start_tls(*args, **kwargs), self._local)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)

    def shut(self) -> None:
        sock = self._inner.get_extra_info("socket")
        if sock is not None:
            with suppress(OSError):
                socket.socket.shutdown(sock, socket.SHUT_RDWR)  # the plain socket's, also under TLS


DRAIN_SECONDS = 0.25  # how long a body that said its last word may take to end, in all
DRAIN_BYTES = 4096  # how much it may still send meanwhile (a chunked body's end is 5 bytes)


class ReadBound:
    """How long, and how much, a thread may still read: each read waits at most until `seconds`
    from now in all, and `max_bytes` may come meanwhile. Past either a read fails, and a response
    closed before its end closes its connection instead of giving it back to the pool."""

    def __init__(self, seconds: float, max_bytes: int, *, what: str):
        self._seconds, self._max_bytes, self._what = seconds, max_bytes, what
        self._until = time.monotonic() + seconds
        self._left = max_bytes

    def read(self, inner: httpcore2.NetworkStream, max_bytes: int, timeout: float | None) -> bytes:
        remaining = self._until - time.monotonic()
        if remaining <= 0:
            raise httpcore2.ReadTimeout(f"{self._what} did not end within {self._seconds:g}s")
        data = inner.read(max_bytes, remaining if timeout is None else min(timeout, remaining))
        self._left -= len(data)
        if self._left < 0:
            raise httpcore2.ReadError(f"{self._what} sent over {self._max_bytes} bytes")
        return data


def tail() -> ReadBound:
    """What a body may still send once it said its last word: its end, within DRAIN_SECONDS and
    DRAIN_BYTES of that word."""
    return ReadBound(DRAIN_SECONDS, DRAIN_BYTES, what="the body after its last word")


class _WithLastWord(httpx2.SyncByteStream):
    """A body that says its last word before it ends; once it did, the rest is read as its `tail`.

    Reading the end matters: the openai SDK stops at `[DONE]` and closes the response, and a
    response closed before its end closes its connection, so every model call would open a new
    one (a TCP and TLS handshake before its first token). Bounding it matters as much: a server
    that holds the body open after its last word must not hold the thread reading it. A body
    closed before its last word (a call cancelled or cut) closes at once."""

    def __init__(self, inner: httpx2.SyncByteStream, local: threading.local, said: Callable[[bytes], bool]):
        self._inner = inner
        self._local = local
        self._said = said
        self._chunks: Iterator[bytes] | None = None
        self._tail: ReadBound | None = None
        self._ended = False

    def __iter__(self) -> Iterator[bytes]:
        self._chunks = iter(self._inner)
        for chunk in self._chunks:
            if self._said(chunk):  # before it is given: a reader may stop at the last word
                self._tail = tail()
                yield chunk
                yield from self._rest()
                return
            yield chunk
        self._ended = True

    def _rest(self) -> Iterator[bytes]:
        """What comes after the last word, within its tail (a bound overrun ends it quietly: the
        answer is whole, and the connection closes below)."""
        while self._chunks is not None and not self._ended:
            outer, self._local.bound = getattr(self._local, "bound", None), self._tail
            try:
                chunk = next(self._chunks, None)
            except (httpx2.HTTPError, OSError):
                return
            finally:
                self._local.bound = outer
            if chunk is None:
                self._ended = True
                return
            yield chunk

    def close(self) -> None:
        if self._tail is not None:
            for _rest in self._rest():
                pass
        self._inner.close()


class _SaidDone:
    """Whether an event stream said `data: [DONE]` (the OpenAI protocol's last event)."""

    def __init__(self) -> None:
        self._seen = b""

    def __call__(self, chunk: bytes) -> bool:
        self._seen = (self._seen + chunk)[-len(DONE) - 2 :]
        return DONE in self._seen


DONE = b"data: [DONE]"


class _JsonWhole:
    """Whether a JSON body holds its whole document (a body sent without a length)."""

    def __init__(self) -> None:
        self._body = bytearray()

    def __call__(self, chunk: bytes) -> bool:
        self._body += chunk
        if not self._body.rstrip().endswith((b"}", b"]")):
            return False
        try:
            json.loads(self._body)
        except ValueError:
            return False
        return True


class _WithoutComments(httpx2.SyncByteStream):
    """An event stream without its comment lines (`:` first); every other byte passes unchanged."""

    def __init__(self, inner: httpx2.SyncByteStream):
        self._inner = inner

    def __iter__(self) -> Iterator[bytes]:
        pending = b""
        for chunk in self._inner:
            *lines, pending = (pending + chunk).split(b"\n")
            kept = b"".join(line + b"\n" for line in lines if not line.startswith(b":"))
            if kept:
                yield kept
        if pending and not pending.startswith(b":"):
            yield pending

    def close(self) -> None:
        self._inner.close()


def connection_limits() -> httpx2.Limits:
    """How many connections one link may hold open in one worker process. httpx allows 100, so
    the 101st answer streaming at once would wait for a connection (and time out). A running
    turn holds one connection, and a worker runs as many turns as its users start (each user
    two at most): the ceiling is set above what a worker can hold (5,000 streams on two), and a
    few idle connections are kept warm for the next turns."""
    streams = int(os.environ.get("BEYOU_LLM_CONNECTIONS_PER_LINK") or DEFAULT_CONNECTIONS_PER_LINK)
    return httpx2.Limits(max_connections=streams, max_keepalive_connections=min(streams, KEEPALIVE_CONNECTIONS))


DEFAULT_CONNECTIONS_PER_LINK = 5000
KEEPALIVE_CONNECTIONS = 100


def link_http_client(timeouts: Timeouts, *, drop_sse_comments: bool = False) -> tuple[httpx2.Client, LinkTransport]:
    transport = LinkTransport(timeouts, drop_sse_comments=drop_sse_comments)
    client = httpx2.Client(transport=transport, timeout=timeouts.total, follow_redirects=True)
    return client, transport
