"""How pages and static files travel: compressed, and static files cached until they change.

Static files live where what uses them lives: the shell's in static/ at the top, a domain's in
its package's own static/ folder (app/mood/app/mood/static/css/mood.css). Like Django's static finders,
`url_for("static", filename="css/mood.css")` names a file in whichever folder holds it, so the
URLs are one namespace (/app/mood/static/css/mood.css) and a folder may not repeat another's name.

Every `url_for("static", filename=...)` carries `v=`, the first 12 hex digits of the file's
SHA-256. A request that names the file's current `v` is answered with a year-long, immutable
`Cache-Control`, so moving between pages re-uses the stylesheets, scripts and icon sprite
without asking the server again; a deploy that changes a file changes its `v`, so browsers fetch
the new one. A request without `v`, or with an old one (a tab opened before the deploy), is
served as before and revalidated.

Responses are compressed (zstd, brotli or gzip, as the browser accepts) by Flask-Compress, except
the assistant's Server-Sent Events, whose every event must reach the browser as it happens.
"""

import hashlib
from functools import lru_cache
from pathlib import Path

from flask import abort, has_request_context, request, send_from_directory, url_for
from flask_compress import Compress
from markupsafe import Markup, escape
from werkzeug.security import safe_join

from app.shared import icons

YEAR = 365 * 24 * 60 * 60
COMPRESSED = [
    "text/html",
    "text/css",
    "text/plain",
    "text/javascript",
    "application/javascript",
    "application/json",
    "image/svg+xml",
]  # not text/event-stream: a compressor holds events back until its buffer fills

SPRITE = "vendor/feather-sprite-4.29.2.svg"  # the line icons (Feather, MIT licence)

compress = Compress()


def init_app(app):
    app.config.setdefault("COMPRESS_MIMETYPES", COMPRESSED)
    app.config.setdefault("COMPRESS_MIN_SIZE", 1024)
    compress.init_app(app)

    folders = static_folders(app)
    known = {}  # filename -> version; a running server's files only change under `flask run --debug`

    def current_version(filename):
        if app.debug:
            return version_of(folders, filename)
        if filename not in known:
            known[filename] = version_of(folders, filename)
        return known[filename]

    def serve_static(filename):
        folder = folder_of(folders, filename)
        if folder is None:
            abort(404)
        return send_from_directory(folder, filename, max_age=app.get_send_file_max_age(filename))

    app.view_functions["static"] = serve_static

    @app.url_defaults
    def fingerprint_static(endpoint, values):
        if endpoint == "static" and "v" not in values:
            version = current_version(values.get("filename", ""))
            if version:
                values["v"] = version

    app.add_template_global(icon)
    app.add_template_global(entity_icon)

    @app.after_request
    def cache_fingerprinted(response):
        if request.endpoint != "static" or response.status_code not in (200, 304):
            return response
        version = request.args.get("v")
        if version and version == current_version((request.view_args or {}).get("filename", "")):
            response.cache_control.public = True
            response.cache_control.max_age = YEAR
            response.cache_control.immutable = True
            response.cache_control.no_cache = None
        return response


def static_folders(app):
    """Where static files are looked for: the shell's static/ first, then each package's own."""
    packages = Path(app.root_path)
    return [
        app.static_folder,
        *(str(found) for found in sorted([*packages.glob("*/static"), *packages.glob("*/*/static")])),
    ]


def folder_of(folders, filename):
    """The folder holding `filename`, or None."""
    for folder in folders:
        path = safe_join(folder, filename) if filename else None
        if path is not None and Path(path).is_file():
            return folder
    return None


def version_of(folders, filename):
    """The content version of a static file, or None when there is no such file."""
    folder = folder_of(folders, filename)
    if folder is None:
        return None
    path = safe_join(folder, filename)
    stat = Path(path).stat()
    return _digest(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=256)
def _digest(path, _mtime_ns, _size):
    """Hashed once per file version (the modification time and size are part of the key)."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:12]


# Icons ------------------------------------------------------------------------------------------
#
# Every template draws them (~150 on a heavy dashboard), so they are Python functions, not Jinja
# macros: a macro call costs a new frame and its arguments' bookkeeping, ten times the markup.


def icon(name, label=None):
    """A line icon from the sprite."""
    return Markup(f'<svg class="icon" {_described(label)} width="20" height="20">'
                  f'<use href="{escape(_sprite_href())}#{escape(name)}"></use></svg>')  # fmt: skip


def entity_icon(icon_id, label=None):
    """An entity's icon from the catalogue (app/shared/icons.py): an emoji or a line icon; an
    unknown id shows the default."""
    emoji = icons.emoji_for(icon_id or "")
    if emoji:
        return Markup(f'<span class="entity-icon emoji" {_described(label)}>{escape(emoji)}</span>')
    return Markup(f'<span class="entity-icon">{icon(icons.resolve(icon_id or ""), label)}</span>')


def _described(label):
    """With a `label`, an image a screen reader names; without, decoration it skips."""
    return f'role="img" aria-label="{escape(label)}"' if label else 'aria-hidden="true"'


def _sprite_href():
    """The icon sprite's URL, built once per request."""
    if not has_request_context():
        return url_for("static", filename=SPRITE)
    href = request.environ.get("beyou.sprite_href")
    if href is None:
        href = request.environ["beyou.sprite_href"] = url_for("static", filename=SPRITE)
    return href
