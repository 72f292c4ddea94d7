"""The schema changes only through migrations: they build an empty database, and agree with the models."""

import os
import uuid

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from flask_migrate import upgrade

from app import create_app
from app.extensions import db
from app.shared.models import include_object


def upgraded_and_diffed(url):
    app = create_app("test", SQLALCHEMY_DATABASE_URI=url)
    with app.app_context():
        upgrade()
        with db.engine.connect() as connection:
            context = MigrationContext.configure(
                connection, opts={"compare_type": True, "render_as_batch": True, "include_object": include_object}
            )
            diff = compare_metadata(context, db.metadata)
            tables = set(sa.inspect(connection).get_table_names())
        db.engine.dispose()
    return diff, tables


def test_migrations_build_an_empty_sqlite_and_match_the_models(tmp_path):
    diff, tables = upgraded_and_diffed(f"sqlite:///{tmp_path / 'fresh.sqlite3'}")
    assert diff == []
    assert set(db.metadata.tables) <= tables


@pytest.mark.skipif(not os.environ.get("BEYOU_TEST_DATABASE_URL"), reason="BEYOU_TEST_DATABASE_URL not set")
def test_migrations_build_an_empty_postgresql_and_match_the_models():
    server = sa.make_url(os.environ["BEYOU_TEST_DATABASE_URL"])
    name = f"beyou_migrations_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
    try:
        diff, tables = upgraded_and_diffed(server.set(database=name).render_as_string(hide_password=False))
        assert diff == []
        assert set(db.metadata.tables) <= tables
    finally:
        with admin.connect() as connection:
            connection.execute(sa.text(f'DROP DATABASE "{name}" WITH (FORCE)'))
        admin.dispose()


def _whole(index):
    """Whether the index covers every row (a partial one, with a WHERE, answers only its own)."""
    return all(options.get("where") is None for options in index.dialect_options.values())


def _keys(table):
    """(name, column names) of what can answer a lookup on the table: its primary key, its unique
    constraints and its whole indexes."""
    keys = [("primary key", table.primary_key)]
    keys += [(c.name, c) for c in table.constraints if isinstance(c, sa.UniqueConstraint)]
    keys += [(index.name, index) for index in table.indexes if _whole(index)]
    return [(name, [column.name for column in key.columns]) for name, key in keys]


def test_no_index_repeats_the_leading_columns_of_another_key():
    """Each message, check or mood written updates every index of its table: an index whose
    columns begin another key's only costs writes, since that key answers the same lookups."""
    repeated = []
    for table in db.metadata.sorted_tables:
        keys = _keys(table)
        for index in table.indexes:
            columns = [column.name for column in index.columns]
            if index.unique or not _whole(index):
                continue
            repeated += [
                f"{table.name}: {index.name} begins {name}"
                for name, key in keys
                if name != index.name and key[: len(columns)] == columns
            ]
    assert repeated == []


def test_every_foreign_key_starts_an_index_or_a_key():
    """What the test above leaves out must still be found: a row's children by their parent (a
    cascade, a page's rows by their owner) through an index, whether its own or a key's. A model
    that says its unique key starts with the owner (`Owned.owner_indexed = False`) must mean it."""
    leading = {
        table.name: {columns[0] for _name, columns in _keys(table) if columns} for table in db.metadata.sorted_tables
    }
    unindexed = [
        f"{table.name}.{key.parent.name}"
        for table in db.metadata.sorted_tables
        for key in table.foreign_keys
        if key.parent.name not in leading[table.name]
    ]
    assert unindexed == []
