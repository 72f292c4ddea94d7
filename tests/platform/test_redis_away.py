"""What every Redis-backed piece does when Redis stops answering (app/redis_away.py)."""

import logging
import time

import pytest

from app.redis_away import AWAY, Away


class Gone(Exception):
    pass


def test_an_outage_is_said_once_redis_is_not_asked_within_a_pause_and_its_end_is_said_once(caplog):
    away = Away("stream slots", "counting streams per process", pause=0.2, errors=(Gone,))
    calls = []

    def failing():
        calls.append("asked")
        raise Gone("connection refused")

    with caplog.at_level(logging.WARNING, logger="beyou.redis"):
        assert away.call(failing) is AWAY
        assert away.call(failing) is AWAY  # within the pause: Redis is not asked
        assert calls == ["asked"]
        time.sleep(0.25)
        assert away.call(failing) is AWAY  # asked again after the pause, failed again: not said again
        assert calls == ["asked", "asked"]
        time.sleep(0.25)
        assert away.call(lambda answer: answer, 7) == 7
        assert away.call(lambda: "again") == "again"
    said = [record.getMessage() for record in caplog.records if record.name == "beyou.redis"]
    assert len(said) == 2
    assert said[0] == "stream slots: Redis is away; counting streams per process"
    assert said[1].startswith("stream slots: Redis is back after ")
    assert caplog.records[0].exc_info is not None  # the first failure's error is in the log


def test_an_error_redis_does_not_raise_goes_on_up():
    away = Away("rate limits", "counting in this process", errors=(Gone,))

    def broken():
        raise KeyError("a bug, not an outage")

    with pytest.raises(KeyError):  # a bug is not Redis being away
        away.call(broken)
    assert away.call(lambda: "ok") == "ok"
