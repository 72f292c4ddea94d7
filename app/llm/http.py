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
  line for a broken JSON chunk: a Gemini link reads its streams without them.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
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
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            stream = _EndReadAfterDone(response.stream, self._local)
            if self._drop_sse_comments:
                stream = _WithoutComments(stream)
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
        if getattr(self._local, "draining", False):
            timeout = DRAIN_SECONDS if timeout is None else min(timeout, DRAIN_SECONDS)
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


class _EndReadAfterDone(httpx2.SyncByteStream):
    """An event stream that, closed after its `data: [DONE]`, first reads the few bytes that end
    the HTTP body, so its connection goes back to the pool. The openai SDK stops reading at
    `[DONE]` and closes the response, and a response closed before its end closes its connection:
    every model call would then open a new one, a TCP and TLS handshake before its first token.
    A stream closed before `[DONE]` (a call cancelled or cut) closes as it did, and the ending is
    waited for at most DRAIN_SECONDS."""

    def __init__(self, inner: httpx2.SyncByteStream, local: threading.local):
        self._inner = inner
        self._local = local
        self._tail = b""
        self._done_said = False

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._inner:
            self._tail = (self._tail + chunk)[-len(DONE) - 2 :]
            self._done_said = self._done_said or DONE in self._tail
            yield chunk

    def close(self) -> None:
        if self._done_said:
            self._local.draining = True
            try:
                for _rest in self._inner:
                    pass
            except (httpx2.HTTPError, OSError):
                pass  # the connection is closed below instead of kept
            finally:
                self._local.draining = False
        self._inner.close()


DONE = b"data: [DONE]"
DRAIN_SECONDS = 0.25


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
