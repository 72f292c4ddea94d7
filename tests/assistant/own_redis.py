"""A redis-server of the test's own, on a free port, that the test stops and starts again.

Nothing is saved (`--save "" --appendonly no`): a restart comes back empty, as a Redis without
persistence (or a new one after a failover) does, so whatever the app kept there must be rebuilt.
"""

import os
import shutil
import socket
import subprocess
import time

import pytest
import redis

REDIS_SERVER = shutil.which("redis-server") or next(
    (path for path in ("/usr/bin/redis-server", "/usr/sbin/redis-server") if os.path.exists(path)), None
)


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class OwnRedis:
    def __init__(self, folder):
        self.folder = folder
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._process = None

    def start(self, within=10):
        self._process = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.folder), "--loglevel", "warning"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        client = redis.Redis(port=self.port, socket_connect_timeout=0.5)
        deadline = time.monotonic() + within
        while True:
            try:
                client.ping()
                return
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)
            finally:
                client.close()

    def stop(self):
        if self._process is not None:
            self._process.kill()  # what a crash or a restart looks like from outside: the sockets drop
            self._process.wait(10)
            self._process = None

    def client(self):
        return redis.Redis.from_url(self.url)


@pytest.fixture
def own_redis(tmp_path):
    if REDIS_SERVER is None:
        pytest.skip("needs redis-server")
    server = OwnRedis(tmp_path)
    server.start()
    yield server
    server.stop()
