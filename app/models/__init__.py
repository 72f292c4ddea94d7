"""SQLAlchemy models, one module per domain. Importing this package registers every table."""

from app.models.user import User

__all__ = ["User"]
