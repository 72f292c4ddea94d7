"""Endpoints for the process manager, not for people."""

from flask import Blueprint, jsonify
from sqlalchemy import text

from app.extensions import csrf, db, limiter

bp = Blueprint("system", __name__)


@bp.get("/healthz")
@limiter.exempt
@csrf.exempt
def healthz():
    """200 when the database answers, 503 when it does not."""
    try:
        db.session.execute(text("SELECT 1"))
    except Exception:  # any driver error means "not healthy"; the body says no more
        db.session.rollback()
        return jsonify(status="unavailable", database=False), 503
    return jsonify(status="ok", database=True)
