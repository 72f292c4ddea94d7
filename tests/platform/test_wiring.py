"""A domain is wired through its one declaration in app/domains.py, and a half-wired domain fails here.

`complaints(declarations, facts)` compares the declarations with what the code holds (the
announcements services make, the tools registered, the blueprints in app/web, the tables, the
refusal keys services raise, the routes' arguments) and names, for each disagreement, the
domain and the wiring point: one of the eight lists the declarations replace. The last test
removes each point in turn from a copy of the declarations and shows that the checker names it.
"""

import ast
import dataclasses
import enum
import re
import uuid
from collections import defaultdict
from pathlib import Path

import pytest
from sqlalchemy import event

from app import domains, events, models
from app.agent.tools import registry
from app.extensions import db
from app.services import configuration, errors
from app.web import blueprint_modules, navigation

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "app"

EVENTS, MESSAGES, EXPORT, BLUEPRINTS, NAVIGATION, TOOLS, MODELS, SWEEP = (
    "events.DOMAINS",
    "errors.MESSAGES",
    "EXPORT_SECTIONS",
    "blueprints",
    "navigation.AREAS",
    "tools",
    "models",
    "ownership sweep",
)
REFUSAL_KEY = re.compile(r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$")


@dataclasses.dataclass(frozen=True)
class Facts:
    """What the code holds, read once; the checker compares declarations with it."""

    announced: dict  # domain name → service modules announcing it
    listened: dict  # domain name → templates listening for domain:<name>
    tools: dict  # tool name → (its domain, its module under app/agent/tools)
    tool_modules: set  # modules under app/agent/tools declaring a @tool
    blueprint_modules: set  # modules under app/web defining a Blueprint
    endpoints: set
    route_arguments: set  # (endpoint, argument) of every rule
    tables: dict  # table name → the module under app/models defining it
    model_modules: set
    deletion_reaches: set  # tables account deletion deletes from
    raised: dict  # refusal key → service modules raising it
    service_modules: set
    export_functions: set  # section names with an export_<section> function


def _modules(folder, holding=None):
    """The modules of `folder`; with `holding`, only those whose source matches that pattern."""
    return {
        path.stem
        for path in (APP / folder).glob("*.py")
        if path.stem != "__init__" and (holding is None or re.search(holding, path.read_text(), re.MULTILINE))
    }


def _announced_literals():
    found = defaultdict(set)
    for path in (APP / "services").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "announce":
                for argument in node.args[1:]:
                    if isinstance(argument, ast.Constant):
                        found[argument.value].add(path.stem)
    return found


def _listened_in_templates():
    found = defaultdict(set)
    for path in (ROOT / "templates").rglob("*.html"):
        for name in re.findall(r"domain:([A-Za-z_]+)", path.read_text()):
            found[name].add(str(path.relative_to(ROOT)))
    return found


def _enum_words():
    """Enum member names and values: strings like "SHORT_TERM" that are data, not refusals."""
    words = set()
    for value in vars(models).values():
        if isinstance(value, type) and issubclass(value, enum.Enum):
            words |= {member.name for member in value} | {str(member.value) for member in value}
    return words


def _raised_keys():
    """Every UPPER_SNAKE string in app/services that is neither a lookup key (`config["X"]`) nor
    an enum word: the refusal keys the services raise or put in a refusal's details (errors.py
    itself only defines them)."""
    data = _enum_words()
    found = defaultdict(set)
    for path in (APP / "services").glob("*.py"):
        if path.stem == "errors":
            continue
        tree = ast.parse(path.read_text())
        lookups = {id(node.slice) for node in ast.walk(tree) if isinstance(node, ast.Subscript)}
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and REFUSAL_KEY.match(node.value)
                and id(node) not in lookups
                and node.value not in data
            ):
                found[node.value].add(path.stem)
    return found


def _table_modules():
    found = {}
    for mapper in db.Model.registry.mappers:
        found[mapper.local_table.name] = mapper.class_.__module__.rsplit(".", 1)[1]
    for name in _modules("models"):
        module = __import__(f"app.models.{name}", fromlist=["_"])
        for value in vars(module).values():
            if getattr(value, "metadata", None) is db.metadata and hasattr(value, "c"):
                found.setdefault(value.name, name)
    return found


def _tables_account_deletion_reaches(app):
    """Run the deletion's row removal for an id no one has, and note every table it deletes from."""
    reached = {"users"}  # delete_account removes the user row itself

    def note(_connection, statement, *_):
        if getattr(statement, "is_delete", False):
            reached.add(statement.table.name)

    with app.app_context():
        event.listen(db.engine, "before_execute", note)
        try:
            configuration._remove_rows_of(uuid.uuid4())
        finally:
            event.remove(db.engine, "before_execute", note)
            db.session.rollback()
    return reached


def _module_of(tool):
    return tool.handler.__module__.rsplit(".", 1)[1]


@pytest.fixture(scope="module")
def facts(app):
    rules = list(app.url_map.iter_rules())
    return Facts(
        announced=_announced_literals(),
        listened=_listened_in_templates(),
        tools={
            name: (tool.domain, tool.handler.__module__.rsplit(".", 1)[1]) for name, tool in registry.REGISTRY.items()
        },
        tool_modules=_modules("agent/tools", holding=r"@tool\(|^declare_entity_tools\("),
        blueprint_modules=_modules("web", holding=r"^bp = "),  # a page area's module-level blueprint
        endpoints={rule.endpoint for rule in rules},
        route_arguments={(rule.endpoint, argument) for rule in rules for argument in rule.arguments},
        tables=_table_modules(),
        model_modules=_modules("models"),
        deletion_reaches=_tables_account_deletion_reaches(app),
        raised=_raised_keys(),
        service_modules=_modules("services"),
        export_functions={name.removeprefix("export_") for name in vars(configuration) if name.startswith("export_")},
    )


def complaints(declarations, facts):
    """Every way the declarations and the code disagree, as "<domain>: <wiring point>: <what>"."""
    found = []
    say = found.append
    by_name = {domain.name: domain for domain in declarations}
    by_blueprint = {domain.blueprint: domain.name for domain in declarations if domain.built}
    table_owner = {table: domain.name for domain in declarations for table in domain.tables}
    service_owner = {module: domain.name for domain in declarations for module in domain.services}

    # events.DOMAINS: every name a service announces, a tool belongs to or a template listens for
    for name, where in sorted(facts.announced.items()):
        if name not in by_name:
            say(f"{name}: {EVENTS}: announced by {sorted(where)}, but no domain is declared by that name")
    for tool, (name, _module) in sorted(facts.tools.items()):
        if name not in by_name:
            say(f"{name}: {EVENTS}: tool {tool} belongs to it, but no domain is declared by that name")
    for name, where in sorted(facts.listened.items()):
        if name not in by_name:
            say(f"{name}: {EVENTS}: {sorted(where)} listen for domain:{name}, which no domain announces")

    # blueprints and navigation.AREAS
    for module in sorted(facts.blueprint_modules - set(by_blueprint) - set(domains.INFRASTRUCTURE_BLUEPRINTS)):
        say(f"{module}: {BLUEPRINTS}: app/web/{module}.py defines a blueprint no domain declares")
    for domain in declarations:
        area = domain.area
        if domain.built and domain.blueprint not in facts.blueprint_modules:
            say(f"{domain.name}: {BLUEPRINTS}: app/web/{domain.blueprint}.py defines no blueprint")
        if not domain.built and (domain.services or domain.tools or domain.models):
            say(f"{domain.name}: {BLUEPRINTS}: it has services, tools or models but no blueprint showing them")
        if area is None:
            say(f"{domain.name}: {NAVIGATION}: no area: declare its Area, or Elsewhere(where it is reached)")
        elif isinstance(area, domains.Area) and area.endpoint:
            if area.endpoint.split(".")[0] != domain.blueprint:
                say(f"{domain.name}: {BLUEPRINTS}: its area links to {area.endpoint}, outside its blueprint")
            elif area.endpoint not in facts.endpoints:
                say(f"{domain.name}: {NAVIGATION}: its area links to {area.endpoint}, which is no route")

    # tools: each tool lives in a module its domain lists (so it is imported, and found)
    listed = {module for domain in declarations for module in domain.tools}
    for module in sorted(facts.tool_modules - listed):
        say(f"{module}: {TOOLS}: app/agent/tools/{module}.py declares tools no domain lists")
    for tool, (name, module) in sorted(facts.tools.items()):
        if name in by_name and module not in by_name[name].tools:
            say(f"{name}: {TOOLS}: {tool} is declared in app/agent/tools/{module}.py, which {name} does not list")

    # models: every table belongs to one domain, which names the module defining it
    shared_or_declared = set(domains.SHARED_MODELS) | {module for domain in declarations for module in domain.models}
    for module in sorted(facts.model_modules - shared_or_declared):
        say(f"{module}: {MODELS}: app/models/{module}.py belongs to no domain")
    for table, module in sorted(facts.tables.items()):
        owner = table_owner.get(table)
        if owner is None:
            say(f"{table}: {MODELS}: table {table} (app/models/{module}.py) belongs to no domain")
        elif table not in by_name[owner].models.get(module, ()):
            say(f"{owner}: {MODELS}: table {table} is defined in app/models/{module}.py, not where it says")
        if table not in facts.deletion_reaches:
            say(f"{owner or table}: {MODELS}: account deletion never reaches table {table}")
    for domain in declarations:
        named = {t for tables in domain.export.values() for t in tables} | set(domain.not_exported)
        named |= set(domain.ids.values())
        for table in sorted(named - set(domain.tables)):
            say(f"{domain.name}: {MODELS}: it exports or names table {table}, which is not among its models")

    # EXPORT_SECTIONS: every table is exported by its domain, or said to be left out and why
    for domain in declarations:
        exported = {table for tables in domain.export.values() for table in tables} | set(domain.not_exported)
        for table in sorted(set(domain.tables) - exported):
            say(f"{domain.name}: {EXPORT}: table {table} is in no export section and not said to be left out")
        for section in sorted(set(domain.export) - facts.export_functions):
            say(f"{domain.name}: {EXPORT}: section {section} has no export_{section} in app/services/configuration.py")

    # errors.MESSAGES: every refusal key a service raises has a message
    messages = set(errors.SHARED_MESSAGES) | {key for domain in declarations for key in domain.errors}
    for module in sorted(facts.service_modules - set(service_owner) - set(domains.SHARED_SERVICES)):
        say(f"{module}: services: app/services/{module}.py belongs to no domain")
    for key, raised_in in sorted(facts.raised.items()):
        if key not in messages:
            for owner in sorted({service_owner.get(module, module) for module in raised_in}):
                say(f"{owner}: {MESSAGES}: {key}, raised in app/services, has no message")

    # ownership sweep: every route argument names a declared row, or is declared not to be one
    sources = {argument for domain in declarations for argument in domain.ids}
    for endpoint, argument in sorted(facts.route_arguments):
        if argument not in sources and argument not in domains.ROUTE_ARGUMENTS_THAT_ARE_NOT_ROWS:
            blueprint = endpoint.split(".")[0]
            stem = argument.removesuffix("_id")
            owner = by_blueprint.get(blueprint) or table_owner.get(stem) or table_owner.get(f"{stem}s") or blueprint
            say(f"{owner}: {SWEEP}: {endpoint} takes {argument}, which no domain's ids name")
    return found


def test_the_declarations_and_the_code_agree(facts):
    assert complaints(domains.DOMAINS, facts) == []


def test_the_eight_lists_are_derived_from_the_declarations(app):
    declared = domains.DOMAINS
    assert {domain.name for domain in declared} == events.DOMAINS
    assert {**errors.SHARED_MESSAGES, **{k: v for d in declared for k, v in d.errors.items()}} == errors.MESSAGES
    assert list(configuration.EXPORT_SECTIONS) == [section for domain in declared for section in domain.export]
    assert set(app.blueprints) == set(blueprint_modules())
    assert [area.slug for area in navigation.AREAS] == [d.area.slug or d.name for d in declared if d.navigation_area]
    assert {_module_of(tool) for tool in registry.REGISTRY.values()} == {
        module for domain in declared for module in domain.tools
    }
    assert set(db.metadata.tables) == {table for domain in declared for table in domain.tables}


def test_one_name_per_domain_across_announcements_and_navigation():
    names = [domain.name for domain in domains.DOMAINS]
    assert len(names) == len(set(names))
    assert "ideas" in names and "quickNotes" not in names
    renamed = {area.slug: domain.name for domain in domains.DOMAINS if (area := domain.navigation_area)}
    assert {slug: name for slug, name in renamed.items() if slug != name} == {"configuration": "profile"}


def _without(point):
    """A copy of one declaration with one wiring point taken out (None: the declaration itself)."""
    cleared = {
        MESSAGES: {"errors": {}},
        EXPORT: {"export": {}},
        BLUEPRINTS: {"blueprint": None},
        NAVIGATION: {"area": None},
        TOOLS: {"tools": ()},
        MODELS: {"models": {}},
        SWEEP: {"ids": {}},
    }
    if point == EVENTS:
        return lambda domain: None
    return lambda domain: dataclasses.replace(domain, **cleared[point])


def _has(domain, point):
    """Whether the domain is wired at that point today (removing it can only matter then)."""
    return {
        EVENTS: domain.name in USED_NAMES,
        MESSAGES: bool(domain.errors),
        EXPORT: bool(domain.export),
        BLUEPRINTS: domain.built,
        NAVIGATION: domain.area is not None,
        TOOLS: bool(domain.tools),
        MODELS: bool(domain.models),
        SWEEP: bool(domain.ids),
    }[point]


USED_NAMES = set(_announced_literals()) | {tool.domain for tool in registry.REGISTRY.values()}
POINTS = (EVENTS, MESSAGES, EXPORT, BLUEPRINTS, NAVIGATION, TOOLS, MODELS, SWEEP)
REMOVALS = [
    pytest.param(domain.name, point, id=f"{domain.name}-without-{point}")
    for domain in domains.DOMAINS
    for point in POINTS
    if _has(domain, point)
]


@pytest.mark.parametrize(("name", "point"), REMOVALS)
def test_removing_any_wiring_point_of_a_domain_is_named_by_the_checker(facts, name, point):
    remove = _without(point)
    declarations = [remove(domain) if domain.name == name else domain for domain in domains.DOMAINS]
    found = complaints([domain for domain in declarations if domain is not None], facts)
    assert any(complaint.startswith(f"{name}: {point}:") for complaint in found), found


def test_the_removals_cover_every_point_of_every_built_domain_owning_data():
    """The parametrisation above covers every point of every built domain that owns data."""
    covered = {(values[0], values[1]) for values in (removal.values for removal in REMOVALS)}
    for domain in domains.DOMAINS:
        if domain.built and domain.models:
            assert {point for name, point in covered if name == domain.name} == set(POINTS) - (
                set() if domain.ids else {SWEEP}
            ), domain.name


# A domain declared but not built yet, as every domain starts (docs/adding-a-domain.md).
CALENDAR = domains.Domain("calendar", domains.Elsewhere("a calendar that is not built"))
HALF_WIRED_CALENDAR = {
    "a service announcing its old name": ("announced", {"quickNotes": {"ideas"}}, "quickNotes", EVENTS),
    "a template listening for its old name": ("listened", {"quickNotes": {"templates/ideas/page.html"}},
                                              "quickNotes", EVENTS),
    "a tool of a module it does not list": ("tools", {"getCalendarDay": ("calendar", "calendar")}, "calendar", TOOLS),
    "a tool module nobody imports": ("tool_modules", {"calendar"}, "calendar", TOOLS),
    "a blueprint nobody registers": ("blueprint_modules", {"calendar"}, "calendar", BLUEPRINTS),
    "a model module nobody imports": ("model_modules", {"calendar"}, "calendar", MODELS),
    "a route argument the sweep has no source for": ("route_arguments", {("calendar.day", "day_id")}, "calendar",
                                                     SWEEP),
    "a refusal key with no message": ("raised", {"CALENDAR_DAY_NOT_FOUND": {"calendar"}}, "calendar", MESSAGES),
}  # fmt: skip


@pytest.mark.parametrize(("fact", "added", "name", "point"), HALF_WIRED_CALENDAR.values(), ids=HALF_WIRED_CALENDAR)
def test_code_of_a_domain_its_declaration_does_not_name_is_reported(facts, fact, added, name, point):
    """A domain's code landing while its declaration still says "not built yet"."""
    current = getattr(facts, fact)
    grown = {**current, **added} if isinstance(current, dict) else current | added
    found = complaints((*domains.DOMAINS, CALENDAR), dataclasses.replace(facts, **{fact: grown}))
    assert any(complaint.startswith(f"{name}: {point}:") for complaint in found), found


def test_a_table_account_deletion_cannot_reach_is_reported(facts):
    blind = dataclasses.replace(facts, deletion_reaches=facts.deletion_reaches - {"habit_categories"})
    assert "habits: models: account deletion never reaches table habit_categories" in complaints(domains.DOMAINS, blind)
