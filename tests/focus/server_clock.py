"""The Focus timer's clock on a server the browser tests run in-process: real time, plus what a
test moved it on by, so a minute of focus passes at once on both sides of the wire (Playwright's
clock moves the page's time; this moves the server's, which the timer's state is kept by)."""

from datetime import UTC, datetime, timedelta

from app.focus import services as focus


class ServerClock:
    def __init__(self):
        self.ahead = timedelta(0)

    def __call__(self):
        return datetime.now(UTC) + self.ahead

    def run_for(self, milliseconds):
        self.ahead += timedelta(milliseconds=milliseconds)


def installed(monkeypatch):
    """A ServerClock the timer's services read the time from, for the length of one test."""
    clock = ServerClock()
    monkeypatch.setattr(focus, "utcnow", clock)
    return clock
