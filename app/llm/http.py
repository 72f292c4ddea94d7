"""The HTTP client every link's SDK is handed.

It exists for two reasons the SDKs cannot serve on their own: each link's connect / first-event
/ total budgets apply whatever timeout the SDK would pass (google-genai only knows one number),
and a cancelled turn must be able to close the response it is reading (google-genai does not
close its stream when its generator is closed), so the transport remembers the responses it
opened while a caller is watching.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import httpx2

from app.llm.settings import Timeouts


class LinkTransport(httpx2.BaseTransport):
    def __init__(self, timeouts: Timeouts):
        self._inner = httpx2.HTTPTransport(retries=0)
        self._timeouts = timeouts
        self._local = threading.local()

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        read = getattr(self._local, "read_timeout", None) or self._timeouts.total
        request.extensions = {
            **request.extensions,
            "timeout": httpx2.Timeout(read, connect=self._timeouts.connect).as_dict(),
        }
        response = self._inner.handle_request(request)
        opened = getattr(self._local, "opened", None)
        if opened is not None:
            opened.append(response)
        return response

    @contextmanager
    def watching(self, *, read_timeout: float, opened: list[httpx2.Response]) -> Iterator[None]:
        """While inside, requests from this thread use `read_timeout` and land in `opened`."""
        previous = getattr(self._local, "read_timeout", None), getattr(self._local, "opened", None)
        self._local.read_timeout, self._local.opened = read_timeout, opened
        try:
            yield
        finally:
            self._local.read_timeout, self._local.opened = previous

    def close(self) -> None:
        self._inner.close()


def link_http_client(timeouts: Timeouts) -> tuple[httpx2.Client, LinkTransport]:
    transport = LinkTransport(timeouts)
    client = httpx2.Client(transport=transport, timeout=timeouts.total, follow_redirects=True)
    return client, transport
