"""Command-line commands: `flask seed-demo`, `flask users make-admin EMAIL`."""

import click
from flask import current_app
from flask.cli import AppGroup, with_appcontext

from app.services import accounts
from app.services.errors import NotFound

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
    """Create the demo account (idempotent) and print how to sign in."""
    email, password = current_app.config["DEMO_EMAIL"], current_app.config["DEMO_PASSWORD"]
    _user, created = accounts.ensure_demo_account(email, password)
    click.echo(("Created" if created else "Already there:") + f" demo account {email} / password {password}")


def init_app(app):
    app.cli.add_command(users_cli)
    app.cli.add_command(seed_demo)
