"""The statements a message runs before its first token (issue 17's first token): the POST, the
watcher's GET that claims the turn, and the runner's reads before the model call. Nothing is read
back after a commit: the POST's answer is rendered from the turn and the user it just wrote, the
claim and the budget work from ids read before the claim's commit."""

import re
import threading

from sqlalchemy import event

from app.extensions import db
from tests.assistant.conftest import turn_id_in, wait_for_turn
from tests.fakes import Reply

POST_STATEMENTS = [
    "SELECT users",  # the signed-in user
    "UPDATE chats",  # title and last activity, through its owner: locked while the message is placed
    "UPDATE turns",  # the chat's pending turns ended, its running ones asked to stop
    "INSERT chat_messages",  # the message, after the chat's last one (found by the INSERT itself)
    "INSERT turns",
]
CLAIM_STATEMENTS = [
    "SELECT users",  # the signed-in user
    "SELECT turns",  # the turn, through its owner
    "UPDATE chats",  # last activity: locked while the answer row is placed
    "UPDATE turns",  # claimed
    "INSERT chat_messages",  # the answer's journal row, after the chat's last message
]
RUNNER_STATEMENTS = [
    "SELECT turns",  # the turn, its user and its chat in one
    "SELECT chat_messages",  # the chat's recent messages
]


def shape(statement):
    """A statement as its verb and the first table it names: "SELECT users", "INSERT turns"."""
    verb = statement.split(None, 1)[0].upper()
    table = re.search(r"\b(?:FROM|UPDATE|INTO)\s+\"?(\w+)", statement, re.IGNORECASE).group(1)
    return f"{verb} {table}"


def record_statements(app):
    """(thread name, shape) of every statement from now on; call the returned function to stop."""
    seen = []
    with app.app_context():
        engine = db.engine

    def record(_conn, _cursor, statement, _parameters, _context, _many):
        seen.append((threading.current_thread().name, shape(statement)))

    event.listen(engine, "before_cursor_execute", record)
    return seen, lambda: event.remove(engine, "before_cursor_execute", record)


def of_thread(seen, prefix):
    return [statement for name, statement in seen if name.startswith(prefix)]


def test_a_message_reads_nothing_back_before_its_first_token(ana, fake, agent_app):
    chat_id = ana.new_chat()
    # Paced: the statements are counted up to the first token, and an answer said at once could
    # end (and write its end) before the watcher has heard its first word on a loaded machine.
    fake.script("mistral", Reply.says("Start ", "with ", "the ", "hardest ", "task.", pace=0.5))
    seen, stop = record_statements(agent_app)

    response = ana.send(chat_id, "What should I focus on today?")
    html = response.get_data(as_text=True)
    posted = of_thread(seen, "MainThread")
    seen.clear()
    turn_id = turn_id_in(html)
    live = ana.open_stream(turn_id)
    live.until("token")
    stop()

    assert response.status_code == 200 and "What should I focus on today?" in html
    assert posted == POST_STATEMENTS
    assert of_thread(seen, "MainThread") == CLAIM_STATEMENTS
    assert of_thread(seen, f"turn-{turn_id}") == RUNNER_STATEMENTS  # not the lease keeper's questions
    assert [event["name"] for event in live.rest()][-1] == "done"
    wait_for_turn(agent_app, turn_id)
