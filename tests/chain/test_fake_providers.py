"""The fake providers answer only callers that are still there.

On a loaded machine a request that a cut stream left behind can be read by the fake only after its
test ended; it must take neither the next test's scripted reply nor a place among its requests
(it once made the first-event timeout test read the fake's echo instead of its script)."""

import json
import socket

from tests.fakes import FakeProviders, Reply
from tests.fakes.server import _handler_for


def a_request(provider="mistral"):
    body = json.dumps({"model": "m", "stream": True, "messages": [{"role": "user", "content": "Hi"}]}).encode()
    head = (
        f"POST /{provider}/v1/chat/completions HTTP/1.1\r\nHost: fake\r\nContent-Type: application/json\r\n"
        "Connection: close\r\n"  # one request: the handler, run in this thread, does not wait for another
    )
    return head.encode() + f"Content-Length: {len(body)}\r\n\r\n".encode() + body


def handled(fake, request, *, caller_stays):
    """Hand one raw request to the fake's handler, its caller gone first unless it stays."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        caller = socket.create_connection(listener.getsockname())
        server_side, _address = listener.accept()
    caller.sendall(request)
    if not caller_stays:
        caller.close()
    _handler_for(fake)(server_side, ("127.0.0.1", 0), fake._server)
    if caller_stays:
        caller.close()
    server_side.close()


def test_a_request_whose_caller_hung_up_takes_no_scripted_reply():
    fake = FakeProviders()
    try:
        fake.script("mistral", Reply.says("Kept for the caller still waiting"))
        handled(fake, a_request(), caller_stays=False)
        assert fake.requests() == []
        handled(fake, a_request(), caller_stays=True)
        (answered,) = fake.requests("mistral")
        assert answered.finished.is_set() and fake._scripted("mistral") is None  # the script went to it
    finally:
        fake._server.server_close()
