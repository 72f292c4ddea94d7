"""What every domain's part of the data export reads its rows with: a user's rows of a table in a
stable order, dates as ISO text, an enum as its value."""

from app.extensions import db


def iso(value):
    return value.isoformat() if value is not None else None


def as_text(value):
    return str(value) if value is not None else None


def owned_rows(model, user, *order):
    """The user's rows of `model`, in `order` and then by id, so two exports list them alike."""
    return db.session.scalars(db.select(model).where(model.user_id == user.id).order_by(*order, model.id)).all()
