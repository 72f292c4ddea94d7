"""Command-line commands: `flask seed-demo`, `flask users make-admin EMAIL`, `flask day-close`,
`flask end-abandoned-turns`, `flask clock`, `flask notebook-embed`, `flask run-local`."""

import os
import signal
import subprocess
import sys
import time

import click
from flask import current_app
from flask.cli import AppGroup, with_appcontext

from app import demo
from app.assistant import services as assistant
from app.extensions import db
from app.llm import local
from app.notebook import embeddings
from app.profile import accounts
from app.routines import day_close
from app.shared.errors import NotFound

users_cli = AppGroup("users", help="Manage accounts.")


@users_cli.command("make-admin")
@click.argument("email")
def make_admin(email):
    """Grant admin to the account with EMAIL (no page can do this)."""
    try:
        user = accounts.make_admin(email)
    except NotFound:
        raise click.ClickException(f"No account with the email {email!r}.") from None
    click.echo(f"{user.email} is now an admin.")


@click.command("seed-demo")
@with_appcontext
def seed_demo():
    """Create the demo account with two months of a believable life (idempotent) and print how
    to sign in."""
    email, password = current_app.config["DEMO_EMAIL"], current_app.config["DEMO_PASSWORD"]
    user, created = accounts.ensure_demo_account(email, password)
    click.echo(("Created" if created else "Already there:") + f" demo account {email} / password {password}")
    life = demo.give_a_life(user)
    if life is None:
        click.echo("Its life was already there: nothing changed.")
    else:
        click.echo(f"Gave it a life: {life.summary()}.")


@click.command("day-close")
@with_appcontext
def close_days():
    """Close every finished local day not closed yet (idempotent; safe to run at any time)."""
    report = day_close.close_days()
    click.echo(f"Closed {report.days} day(s) for {report.users} user(s).")
    if report.failed:
        raise click.ClickException(f"The close failed for {len(report.failed)} user(s); see the log.")


@click.command("end-abandoned-turns")
@with_appcontext
def end_abandoned_turns():
    """End the assistant's turns whose worker is gone (their lease lapsed) as INTERRUPTED."""
    click.echo(f"Ended {assistant.end_abandoned_turns()} abandoned turn(s).")


@click.command("clock")
@click.option("--every", default=600, show_default=True, help="Seconds between two day closes.")
@with_appcontext
def clock(every):
    """Run the day close now and then every few minutes, for ever (the Procfile's clock process);
    in between, every third of a turn lease, end the assistant's abandoned turns.

    Each user's day closes shortly after their own midnight, whatever their time zone. A turn
    whose worker was killed is ended within a minute even if nobody watches it again."""
    sweep_every = max(current_app.config["AGENT_LEASE_SECONDS"] / 3, 1)
    next_close = time.monotonic()
    while True:
        if time.monotonic() >= next_close:
            report = day_close.close_days()
            if report.days or report.failed:
                click.echo(f"Closed {report.days} day(s) for {report.users} user(s); {len(report.failed)} failed.")
            next_close = time.monotonic() + max(every, 1)
        try:
            ended = assistant.end_abandoned_turns()
        except Exception as error:  # a locked or unreachable database: the next pass tries again
            db.session.rollback()
            click.echo(f"The sweep of abandoned turns failed this time: {error}", err=True)
        else:
            if ended:
                click.echo(f"Ended {ended} abandoned assistant turn(s) as interrupted.")
        db.session.remove()  # no rows held between runs
        time.sleep(min(sweep_every, max(next_close - time.monotonic(), 0.1)))


@click.command("notebook-embed")
@with_appcontext
def notebook_embed():
    """Embed every study passage that has no vector of the configured model yet (after the key
    is first set, or the model changed); pages also catch up on their own when shown."""
    if not embeddings.configured():
        raise click.ClickException("Embeddings are off: set BEYOU_EMBEDDINGS_API_KEY first.")
    sources, passages, failed = embeddings.embed_everything()
    click.echo(f"Embedded {passages} passage(s) of {sources} source(s).")
    if failed:
        raise click.ClickException(f"{failed} source(s) failed; see the log. Run the command again later.")


@click.command("run-local")
@click.option("--model", type=click.Choice(sorted(local.MODELS)), default=local.DEFAULT_MODEL, show_default=True)
@click.option("--port", default=5000, show_default=True, help="The app's port.")
@click.option("--model-port", default=8081, show_default=True, help="The model server's port.")
def run_local(model, port, model_port):
    """Serve the app with a private model: llama.cpp's server on this machine as the only link,
    so no AI provider receives anything. Ctrl-C stops both."""
    chosen = local.MODELS[model]
    click.echo(f"Starting {model} at http://127.0.0.1:{model_port} ({chosen.note})")
    app_process = None
    try:
        with local.served(chosen, ready_within=120, port=model_port, show_output=True) as base:
            environment = {**os.environ, **local.link_environment(chosen, base)}
            environment.setdefault("BEYOU_PUBLIC_URL", f"http://127.0.0.1:{port}")
            app_process = subprocess.Popen(
                [sys.executable, "-m", "flask", "run", "--host", "127.0.0.1", "--port", str(port)], env=environment
            )
            app_process.wait()
    except local.ModelMissing as missing:  # before anything started
        raise click.ClickException(f"{missing}\nInstall it: python -m app.llm.local install --model {model}") from None
    except local.NotServing as failed:
        raise click.ClickException(f"{failed} (at http://127.0.0.1:{model_port}/health)") from None
    except KeyboardInterrupt:
        pass
    finally:
        if app_process is not None and app_process.poll() is None:
            app_process.send_signal(signal.SIGINT)
            try:
                app_process.wait(10)
            except subprocess.TimeoutExpired:
                app_process.kill()


def init_app(app):
    app.cli.add_command(users_cli)
    app.cli.add_command(seed_demo)
    app.cli.add_command(close_days)
    app.cli.add_command(end_abandoned_turns)
    app.cli.add_command(clock)
    app.cli.add_command(notebook_embed)
    app.cli.add_command(run_local)
