"""What a model call holds while the model is silent: thousands of turns wait like this at once,
so no turn may hold its own copy of the system prompt (PromptPieces)."""

import threading
import time
import tracemalloc
from pathlib import Path

import app as app_package
from app.llm import ChatRequest, Message, PromptPieces
from tests.fakes import Reply

SHARED = "Fixed instructions that every turn shares. " * 1300  # ~55 KB, a template's fixed text
MADE_BY_THE_CALL = [  # not the fake provider's copy, nor the buffer of the read that waits
    tracemalloc.Filter(True, f"{Path(app_package.__file__).parent}/*", all_frames=True),
    tracemalloc.Filter(False, "*/_backends/sync.py"),
]


def test_a_call_waiting_on_its_model_holds_no_joined_copy_of_its_prompt(fake, make_chain):
    fake.script("mistral", Reply.says("Here", first_byte_delay=2.0))
    chain = make_chain("mistral")
    request = ChatRequest(system=PromptPieces((SHARED, "The person is called Ana.")), messages=[Message.user("hi")])
    answer = []
    tracemalloc.start(20)
    try:
        caller = threading.Thread(target=lambda: answer.extend(chain.stream(request)))
        caller.start()
        deadline = time.monotonic() + 10
        while not fake.requests("mistral") and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)  # the request is on the wire; the call waits for the model's first byte
        held = tracemalloc.take_snapshot().filter_traces(MADE_BY_THE_CALL).traces
        largest = max(trace.size for trace in held)
    finally:
        tracemalloc.stop()
    caller.join(timeout=10)
    (sent,) = fake.requests("mistral")
    assert sent.body["messages"][0] == {"role": "system", "content": str(request.system)}  # whole on the wire
    assert "Here" in str(answer)
    assert largest < len(SHARED) / 2  # neither the joined prompt nor the request's bytes are held
