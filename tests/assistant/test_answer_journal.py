"""The journal of running turns: every turn's note written in one statement and one commit, a
write that must be on record at once never covered by an older note, an ended answer left alone."""

import time
import uuid

from sqlalchemy import event

from app.assistant import answer_journal
from app.assistant import services as assistant
from app.assistant.models.chats import ChatMessage, Ending, Turn
from app.assistant.runner import TurnRef
from app.extensions import db
from tests.assistant.conftest import AgentClient, make_user


def claimed_turns(app, count):
    """`count` turns claimed, as a watcher claims them (each with its answer row), and not run:
    their ids, as a runner holds them."""
    make_user(app)
    ana = AgentClient(app)
    turn_ids = [uuid.UUID(ana.send_ok(ana.new_chat(), f"question {n}")) for n in range(count)]
    with app.app_context():
        turns = [db.session.get(Turn, turn_id) for turn_id in turn_ids]
        for turn in turns:
            assert assistant.claim(turn)
        return [TurnRef(turn.id, turn.chat_id, turn.question_id, turn.answer_id) for turn in turns]


def ended(app, turns):
    """Each turn ended with what its answer holds, as its runner would (nothing left running)."""
    with app.app_context():
        for turn in turns:
            assistant.end_turn_with_answer(turn, segments=db.session.get(ChatMessage, turn.answer_id).segments,
                                           transcript=[], link="mistral", ending=Ending.COMPLETE)  # fmt: skip


def answer_segments(app, turn):
    with app.app_context():
        return db.session.get(ChatMessage, turn.answer_id).segments


def text(words):
    return [{"type": "text", "text": words}]


def written_soon(app, turn, segments):
    deadline = time.monotonic() + 5
    while answer_segments(app, turn) != segments and time.monotonic() < deadline:
        time.sleep(0.05)
    return answer_segments(app, turn) == segments


def test_every_turn_s_note_goes_in_one_statement_and_one_commit(make_agent_app, fake):
    app = make_agent_app()
    turns = claimed_turns(app, 3)
    statements, commits = [], []
    with app.app_context():
        engine = db.engine

    def seen(_conn, _cursor, statement, _params, _context, executemany):
        if statement.lstrip().upper().startswith("UPDATE CHAT_MESSAGES"):
            statements.append(executemany)

    event.listen(engine, "before_cursor_execute", seen)
    event.listen(engine, "commit", lambda _conn: commits.append(1))
    try:
        journal = app.extensions["answer_journal"]
        for n, turn in enumerate(turns):
            journal.note(turn, text(f"answer {n} so far"), [], "mistral")
        assert all(written_soon(app, turn, text(f"answer {n} so far")) for n, turn in enumerate(turns))
    finally:
        event.remove(engine, "before_cursor_execute", seen)
        ended(app, turns)
    assert statements == [True]  # one executemany for the three answers
    assert len(commits) >= 1


def test_a_record_written_at_once_is_not_covered_by_an_older_note(make_agent_app, fake):
    app = make_agent_app()
    (turn,) = claimed_turns(app, 1)
    journal = app.extensions["answer_journal"]
    journal.note(turn, text("Creating"), [], "mistral")
    card = [{"type": "tool", "tool": "createUserTask", "kind": "write", "domains": [], "unfinished": True}]
    with app.app_context():
        journal.write_now(turn, text("Creating") + card, [], "mistral")  # a tool about to act
    time.sleep(answer_journal.WRITE_EVERY * 3)  # the writer's rounds pass
    assert answer_segments(app, turn) == text("Creating") + card
    ended(app, [turn])


def test_a_note_of_an_answer_that_ended_changes_nothing(make_agent_app, fake):
    app = make_agent_app()
    (turn,) = claimed_turns(app, 1)
    with app.app_context():
        assistant.end_turn_with_answer(turn, segments=text("The whole answer."), transcript=[], link="mistral",
                                       ending=Ending.COMPLETE)  # fmt: skip
    app.extensions["answer_journal"].note(turn, text("The whole"), [], "mistral")  # a note that came late
    time.sleep(answer_journal.WRITE_EVERY * 3)
    assert answer_segments(app, turn) == text("The whole answer.")
