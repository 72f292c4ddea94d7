"""The study notebook's AI on a page (/notebook/...): the tutor, the studio and the board's
planning, each in its own section below, all through app/services/study_ai.py."""

from flask import Blueprint

bp = Blueprint("study_ai", __name__, url_prefix="/notebook")

# -- the tutor --
