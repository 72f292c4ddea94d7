"""The links' HTTP transport: what a call keeps while it waits on its model."""

import contextlib
import json
import socket
import threading

import httpx2

from app.llm.http import LinkTransport
from app.llm.settings import Timeouts
from tests.fakes.raw import read_request


def test_a_request_s_body_is_let_go_once_sent_while_the_model_is_still_silent():
    """A turn may wait minutes for its first token; its body (the prompt and every tool's
    schema) is sent whole first, and then nothing holds it any more."""
    listener = socket.create_server(("127.0.0.1", 0))
    received, body_read, test_over = [], threading.Event(), threading.Event()

    def silent_provider():
        connection, _address = listener.accept()
        with connection:
            received.append(read_request(connection))
            body_read.set()
            test_over.wait(10)  # silent until then

    provider = threading.Thread(target=silent_provider, daemon=True)
    provider.start()
    payload = {"messages": [{"role": "system", "content": "x" * 20_000}]}
    transport = LinkTransport(Timeouts(total=5))
    client = httpx2.Client(transport=transport)
    request = client.build_request("POST", f"http://127.0.0.1:{listener.getsockname()[1]}/v1/chat", json=payload)

    def call():
        with contextlib.suppress(httpx2.HTTPError):  # the provider hangs up at the end
            client.send(request)

    caller = threading.Thread(target=call, daemon=True)
    try:
        caller.start()
        assert body_read.wait(5), "the provider never received the whole body"
        assert json.loads(received[0]) == payload
        assert request.content == b""
        assert b"".join(request.stream) == b""
    finally:
        test_over.set()
        listener.close()
        provider.join(6)
        caller.join(6)
        transport.close()
