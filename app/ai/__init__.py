"""The doors to the chain other than the agent's: the onboarding assistant, the daily briefing and
the study notebook's AI.

Each is one structured call with no tools and no memory, counted under its own metrics label and
spending its own per-user bucket (app/llm/door.py); the services that use them (onboarding,
briefing) build the request and clean the answer.
"""

import threading

from flask import current_app

from app.llm import Model, RateBucket, model

ONBOARDING_BUCKET = RateBucket("onboarding", "ONBOARDING_RATE_LIMIT")
BRIEFING_BUCKET = RateBucket("briefing", "BRIEFING_RATE_LIMIT")
STUDY_BUCKET = RateBucket("study", "STUDY_AI_RATE_LIMIT")


def onboarding_model() -> Model:
    """The onboarding assistant's door: 30 calls an hour per user by default."""
    return model("onboarding", bucket=ONBOARDING_BUCKET)


def briefing_model() -> Model:
    """The daily briefing's door: a ceiling per user and day (one briefing a day is generated)."""
    return model("briefing", bucket=BRIEFING_BUCKET)


def study_model() -> Model:
    """The study notebook's door (tutor, studio outputs, AI flashcards, planning): 60 calls an
    hour per user by default, apart from the assistant's 30."""
    return model("study", bucket=STUDY_BUCKET)


def in_background(name, work, *args):
    """Run `work(*args)` on a daemon thread (a greenlet under gevent) inside this app's context:
    a generation that stores itself after the request that started it has answered."""
    app = current_app._get_current_object()

    def run():
        with app.app_context():
            work(*args)

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    return thread
