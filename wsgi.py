"""The WSGI entry point: `gunicorn wsgi:app` (see the Procfile) or `flask --app wsgi run`."""

from app import create_app

app = create_app()
