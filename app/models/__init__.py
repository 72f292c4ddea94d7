"""SQLAlchemy models, one module per domain. Importing this package registers every table.

Which modules exist is declared once, in app/domains.py (each domain's `models`, plus the
shared mixins); each module's classes are re-exported here, so `from app.models import Habit`
reads the same whatever domain a model belongs to.
"""

from importlib import import_module

from app import domains
from app.extensions import db


def _model_modules():
    declared = [module for domain in domains.DOMAINS for module in domain.models]
    return dict.fromkeys([*domains.SHARED_MODELS, *declared])


for _name in _model_modules():
    _module = import_module(f"{__name__}.{_name}")
    globals().update(
        {name: value for name, value in vars(_module).items() if getattr(value, "__module__", None) == _module.__name__}
    )


def include_object(_object, name, kind, _reflected, _compare_to):
    """Alembic's filter: leave out the objects a model declares as hand-made DDL (full-text
    indexes the ORM cannot describe, app/models/study_sources.py), which its migration makes."""
    return (kind, name) not in db.metadata.info.get("hand_made", ())
