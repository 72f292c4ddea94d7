"""What running turns have said so far, written on their answer rows for every turn at once.

A streaming turn notes its answer about every second (`note`); one writer per process writes
the latest note of every turn in one statement and one commit, four times a second. Hundreds of
turns streaming at once cost one transaction, not hundreds, and no runner waits on the
database (a pool or a lock) between two pieces of its text.

A write that must be on record before something happens — a tool about to act, and what it did
— is written at once (`write_now`), in the runner's own transaction. It takes the writer's lock
and drops the turn's older note, so a note written late never covers a newer record. The
answer's end is written by `services.end_turn_with_answer`; a note that comes after it changes
nothing (the journal's statement leaves ended answers alone).
"""

import logging
import threading
import time

from app import daemons
from app.assistant import services as assistant
from app.extensions import db, sqlite_patience

log = logging.getLogger("beyou.agent")

WRITE_EVERY = 0.25  # seconds between two writes of the notes: a note is on record within this
PATIENCE = 0.5  # a write waits this long for a SQLite lock, then tries next time
IDLE_ROUNDS = 40  # a writer with nothing to write for this many rounds stops (the next note starts one)


class AnswerJournal:
    def __init__(self, app):
        self.app = app
        self._lock = threading.Lock()
        self._writing = threading.Lock()  # held while a write is on its way: one at a time
        self._notes = {}  # answer id -> its latest note
        self._writer_running = False

    def note(self, turn, segments, transcript, link):
        """Keep this as what the turn has said so far; the writer puts it on record shortly."""
        with self._lock:
            self._notes[turn.answer_id] = _entry(turn, segments, transcript, link)
            if not self._writer_running:
                self._writer_running = True
                daemons.start(self._write_forever, "answer-journal")

    def write_now(self, turn, segments, transcript, link):
        """Put this on record now, in the caller's session (raises as the database does)."""
        with self._writing:
            with self._lock:
                self._notes.pop(turn.answer_id, None)
            with sqlite_patience(PATIENCE):
                assistant.record_progress([_entry(turn, segments, transcript, link)])

    def forget(self, turn):
        """The turn is ending: its answer is written whole, a note of it no longer matters."""
        with self._lock:
            self._notes.pop(turn.answer_id, None)

    def _write_forever(self):
        idle = 0
        while True:
            time.sleep(WRITE_EVERY)
            with self._writing:
                with self._lock:
                    notes, self._notes = list(self._notes.values()), {}
                if notes and not self._write(notes):
                    with self._lock:  # tried again next time, unless a newer note came meanwhile
                        for entry in notes:
                            self._notes.setdefault(entry["answer"], entry)
            idle = 0 if notes else idle + 1
            with self._lock:  # under the lock `note` takes: a note from now on starts a new writer
                if idle >= IDLE_ROUNDS and not self._notes:
                    self._writer_running = False
                    return

    def _write(self, entries):
        """Whether the entries were written, in one statement and one commit."""
        with self.app.app_context():
            try:
                with sqlite_patience(PATIENCE):
                    assistant.record_progress(entries)
                return True
            except Exception:
                log.warning("%d answers' journal could not be written this time", len(entries), exc_info=True)
                db.session.rollback()
                return False
            finally:
                db.session.remove()


def _entry(turn, segments, transcript, link):
    return {"answer": turn.answer_id, "segments": segments, "transcript": transcript, "link": link}


def init_app(app):
    app.extensions["answer_journal"] = AnswerJournal(app)
