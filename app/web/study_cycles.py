"""Study cycles pages."""

from flask import Blueprint

bp = Blueprint("study_cycles", __name__, url_prefix="/notebook/cycles")
