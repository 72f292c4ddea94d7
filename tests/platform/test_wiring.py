"""A domain is a package with one declaration, and a half-wired domain fails here.

A domain's package, listed in app/domains.py, holds its parts where the convention puts them
(docs/adding-a-domain.md): its tables in `models`, its tools in `tools`, its part of the data
export in `export`, a page area's blueprint as a module's `bp`; its `__init__` declares what files
cannot say (its name, area, refusal messages, export sections, the route arguments naming its rows).

`complaints(declarations, facts)` compares the declarations with what the code holds and names,
for each disagreement, the domain and the wiring point. The last tests take each point out of a
copy of the declarations, or add the code of a domain nobody listed, and show that the checker
names it.
"""

import ast
import dataclasses
import enum
import inspect
import pkgutil
import re
import uuid
from collections import defaultdict
from importlib import import_module
from pathlib import Path

import pytest
from sqlalchemy import event

import app as app_package
from app import domains, events
from app.agent import registry
from app.extensions import db
from app.profile import configuration
from app.shared import errors
from app.web import blueprints, navigation

ROOT = Path(__file__).resolve().parents[2]

PACKAGES, EVENTS, MESSAGES, EXPORT, NAVIGATION, TOOLS, MODELS, BLUEPRINTS, SWEEP = (
    "domains.PACKAGES",
    "events.DOMAINS",
    "errors.MESSAGES",
    "export",
    "navigation.AREAS",
    "tools",
    "models",
    "blueprints",
    "ownership sweep",
)
SHELL = "app.web"  # the web shell's own blueprints (privacy, system, live) belong to no domain
SHARED = ("app.shared", "app.catalogue")  # what services of several domains build on
REFUSAL_KEY = re.compile(r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$")
# What the model is told about its own call (a tool that does not exist, arguments that do not
# read as JSON or fail the schema, a tool that crashed): the model reads these keys, a person never does.
KEYS_FOR_THE_MODEL = {"UNKNOWN_TOOL", "ARGUMENTS_UNREADABLE", "INVALID_ARGUMENTS", "TOOL_FAILED"}


@dataclasses.dataclass(frozen=True)
class Facts:
    """What the code holds, read once; the checker compares declarations with it."""

    declaring: dict  # package under app/ whose __init__ declares a DOMAIN → the domain's name
    announced: dict  # domain name → modules announcing it
    listened: dict  # domain name → templates listening for domain:<name>
    tools: dict  # tool name → (its domain, the module declaring it)
    blueprints: dict  # blueprint name → the module defining it
    endpoints: set
    route_arguments: set  # (endpoint, argument) of every rule
    tables: dict  # table name → the module defining it
    deletion_reaches: set  # tables account deletion deletes from
    raised: dict  # refusal key → the modules raising it
    exports: set  # (package, section) with an export_<section> in the package's `export`


def _all_modules():
    names = ["app"]
    names += [info.name for info in pkgutil.walk_packages(app_package.__path__, prefix="app.")]
    return {name: import_module(name) for name in names}


MODULES = _all_modules()


def _within(module, package):
    return module == package or module.startswith(f"{package}.")


def _part(module):
    """Which part of its package a module is: "models", "tools", "routes", … ("" for __init__)."""
    package = max((d.package for d in domains.DOMAINS if _within(module, d.package)), key=len, default=None)
    rest = module.removeprefix(package or "").lstrip(".")
    return rest.split(".")[0]


def _declaring():
    return {
        name: module.DOMAIN.name
        for name, module in MODULES.items()
        if isinstance(getattr(module, "DOMAIN", None), domains.Domain)
    }


def _service_modules():
    """The modules whose strings can be refusal keys: every module of a domain package but its
    declaration, models, tools, export and routes, and the shared machinery's."""
    found = []
    for name, module in MODULES.items():
        if name == "app.shared.errors" or hasattr(module, "bp"):
            continue
        in_domain = any(_within(name, domain.package) for domain in domains.DOMAINS)
        if (in_domain and _part(name) not in ("", "models", "tools", "export")) or name.startswith(SHARED):
            found.append(name)
    return found


def _announced_literals():
    found = defaultdict(set)
    for name, module in MODULES.items():
        if not inspect.getsourcefile(module):
            continue
        for node in ast.walk(ast.parse(inspect.getsource(module))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "announce":
                for argument in node.args[1:]:
                    if isinstance(argument, ast.Constant):
                        found[argument.value].add(name)
    return found


def _templates():
    return [*(ROOT / "templates").rglob("*.html"), *(ROOT / "app").glob("**/templates/**/*.html")]


def _listened_in_templates():
    found = defaultdict(set)
    for path in _templates():
        for name in re.findall(r"domain:([A-Za-z_]+)", path.read_text()):
            found[name].add(str(path.relative_to(ROOT)))
    return found


def _enum_words():
    """Enum member names and values: strings like "SHORT_TERM" that are data, not refusals."""
    words = set()
    for mapper in db.Model.registry.mappers:
        for value in vars(import_module(mapper.class_.__module__)).values():
            if isinstance(value, type) and issubclass(value, enum.Enum):
                words |= {member.name for member in value} | {str(member.value) for member in value}
    return words


def _raised_keys(app):
    """Every UPPER_SNAKE string in a service module that is neither a lookup key (`config["X"]`,
    `config.get("X")`), a setting's name, an enum word nor a key for the model: the refusal keys
    raised or put in a refusal's details."""
    data = _enum_words() | set(app.config) | KEYS_FOR_THE_MODEL
    found = defaultdict(set)
    for name in _service_modules():
        tree = ast.parse(inspect.getsource(MODULES[name]))
        lookups = {id(node.slice) for node in ast.walk(tree) if isinstance(node, ast.Subscript)}
        lookups |= {
            id(node.args[0])
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "get" and node.args
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and REFUSAL_KEY.match(node.value)
                and id(node) not in lookups
                and node.value not in data
            ):
                found[node.value].add(name)
    return found


def _table_modules():
    """Each table and the module whose own statements define it (not one that imports it)."""
    found = {}
    for name, module in MODULES.items():
        if not name.endswith(".models") and ".models." not in name:
            continue
        for binding in domains._defined_names(module):
            value = getattr(module, binding)
            table = getattr(value, "__table__", value)
            if getattr(table, "metadata", None) is db.metadata and hasattr(table, "c"):
                found.setdefault(table.name, name)
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


def _exports():
    found = set()
    for domain in domains.DOMAINS:
        module = MODULES.get(f"{domain.package}.export")
        if module is not None:
            found |= {
                (domain.package, name.removeprefix("export_")) for name in vars(module) if name.startswith("export_")
            }
    return found


@pytest.fixture(scope="module")
def facts(app):
    rules = list(app.url_map.iter_rules())
    return Facts(
        declaring=_declaring(),
        announced=_announced_literals(),
        listened=_listened_in_templates(),
        tools={name: (tool.domain, tool.handler.__module__) for name, tool in registry.REGISTRY.items()},
        blueprints={blueprint.name: blueprint.import_name for blueprint in app.blueprints.values()},
        endpoints={rule.endpoint for rule in rules},
        route_arguments={(rule.endpoint, argument) for rule in rules for argument in rule.arguments},
        tables=_table_modules(),
        deletion_reaches=_tables_account_deletion_reaches(app),
        raised=_raised_keys(app),
        exports=_exports(),
    )


def complaints(declarations, facts):
    """Every way the declarations and the code disagree, as "<domain>: <wiring point>: <what>"."""
    found = []
    say = found.append
    by_name = {domain.name: domain for domain in declarations}
    packages = {domain.package: domain for domain in declarations}

    def owner(module):
        """The declared domain whose package holds `module`, or None."""
        holding = [package for package in packages if _within(module, package)]
        return packages[max(holding, key=len)] if holding else None

    def called(module):
        """How a complaint names the domain of a module: its declaration's name, else its package's."""
        domain = owner(module)
        return domain.name if domain else module.removeprefix("app.").split(".")[0]

    # domains.PACKAGES: a package declaring a domain is listed, or none of its parts is found
    for package, name in sorted(facts.declaring.items()):
        if package not in packages:
            say(f"{name}: {PACKAGES}: {package} declares a domain, but app/domains.py does not list it")

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

    # blueprints: each is a domain's or the shell's; navigation.AREAS: an area opens its own page
    for blueprint, module in sorted(facts.blueprints.items()):
        if owner(module) is None and not _within(module, SHELL):
            say(f"{called(module)}: {BLUEPRINTS}: {module} defines blueprint {blueprint} outside a listed domain")
    for domain in declarations:
        own = {name for name, module in facts.blueprints.items() if owner(module) is domain}
        if domain.area is None:
            say(f"{domain.name}: {NAVIGATION}: no area: declare its Area, or Elsewhere(where it is reached)")
        elif isinstance(domain.area, domains.Area):
            if domain.area.endpoint.split(".")[0] not in own:
                say(f"{domain.name}: {BLUEPRINTS}: its area links to {domain.area.endpoint}, outside its blueprints")
            elif domain.area.endpoint not in facts.endpoints:
                say(f"{domain.name}: {NAVIGATION}: its area links to {domain.area.endpoint}, which is no route")

    # tools: each is declared in a listed domain's `tools`, where app start-up finds it
    for tool, (_name, module) in sorted(facts.tools.items()):
        domain = owner(module)
        if domain is None or not _within(module, f"{domain.package}.tools"):
            say(f"{called(module)}: {TOOLS}: {tool} is declared in {module}, not in a listed domain's tools")

    # models: every table is defined in a listed domain's `models`, and account deletion reaches it
    table_owner = {}
    for table, module in sorted(facts.tables.items()):
        domain = owner(module)
        if domain is None or not _within(module, f"{domain.package}.models"):
            say(f"{called(module)}: {MODELS}: table {table} is defined in {module}, not in a listed domain's models")
        else:
            table_owner[table] = domain
        if table not in facts.deletion_reaches:
            say(f"{called(module)}: {MODELS}: account deletion never reaches table {table}")

    # export: every table is exported by its domain or said to be left out and why
    for domain in declarations:
        tables = {table for table, found in table_owner.items() if found is domain}
        exported = {table for section in domain.export.values() for table in section}
        named = exported | set(domain.not_exported) | set(domain.ids.values())
        for table in sorted(named - tables):
            say(f"{domain.name}: {MODELS}: it exports or names table {table}, which its models do not define")
        for table in sorted(tables - exported - set(domain.not_exported)):
            say(f"{domain.name}: {EXPORT}: table {table} is in no export section and not said to be left out")
        for reason_table, reason in domain.not_exported.items():
            if not reason.strip():
                say(f"{domain.name}: {EXPORT}: table {reason_table} is left out without a reason")
        for section in sorted(set(domain.export)):
            if (domain.package, section) not in facts.exports:
                say(f"{domain.name}: {EXPORT}: section {section} has no export_{section} in {domain.package}.export")

    # errors.MESSAGES: every refusal key a service raises has a message
    messages = set(errors.SHARED_MESSAGES) | {key for domain in declarations for key in domain.errors}
    for key, raised_in in sorted(facts.raised.items()):
        if key not in messages:
            for name in sorted({called(module) for module in raised_in}):
                say(f"{name}: {MESSAGES}: {key}, raised in {sorted(raised_in)}, has no message")

    # ownership sweep: every route argument names a declared row, or is declared not to be one
    sources = {argument for domain in declarations for argument in domain.ids}
    for endpoint, argument in sorted(facts.route_arguments):
        if argument not in sources and argument not in domains.ROUTE_ARGUMENTS_THAT_ARE_NOT_ROWS:
            stem = argument.removesuffix("_id")  # feedback_id on an admin page names feedback's row
            named = table_owner.get(stem) or table_owner.get(f"{stem}s")
            module = facts.blueprints.get(endpoint.split(".")[0], endpoint)
            say(
                f"{named.name if named else called(module)}: {SWEEP}: {endpoint} takes {argument}, which no domain's "
                "ids name"
            )
    return found


def test_the_declarations_and_the_code_agree(facts):
    assert complaints(domains.DOMAINS, facts) == []


def test_what_the_app_keeps_about_domains_is_read_from_the_declarations(app):
    declared = domains.DOMAINS
    assert [domain.package for domain in declared] == [f"app.{name}" for name in domains.PACKAGES]
    assert {domain.name for domain in declared} == events.DOMAINS
    assert {**errors.SHARED_MESSAGES, **{k: v for d in declared for k, v in d.errors.items()}} == errors.MESSAGES
    assert list(configuration.export_sections()) == [section for domain in declared for section in domain.export]
    assert set(app.blueprints) == {blueprint.name for blueprint in blueprints()}
    assert [area.slug for area in navigation.AREAS] == [d.area.slug or d.name for d in declared if d.navigation_area]
    assert set(db.metadata.tables) == {table for domain in declared for table in domain.tables}


def test_one_name_per_domain_across_announcements_and_navigation():
    names = [domain.name for domain in domains.DOMAINS]
    assert len(names) == len(set(names))
    assert "ideas" in names and "quickNotes" not in names
    renamed = {area.slug: domain.name for domain in domains.DOMAINS if (area := domain.navigation_area)}
    assert {slug: name for slug, name in renamed.items() if slug != name} == {"configuration": "profile"}


def test_a_domain_package_holds_its_own_templates_static_files_and_prompts():
    """What a domain draws, styles and asks a model is in its folder: no top-level folder holds a
    domain's templates, stylesheets, scripts or prompts."""
    shell_templates = {path.parent.name for path in (ROOT / "templates").rglob("*.html")} - {"templates"}
    assert shell_templates <= {"_partials", "errors", "privacy", "shared"}
    assert {path.name for path in (ROOT / "static" / "css").iterdir()} == {"app.css"}
    assert {path.name for path in (ROOT / "static" / "js").iterdir()} == {"app.js", "live.js"}
    assert {path.name for path in (ROOT / "prompts").iterdir()} == {"agent.md"}


def _without(point):
    """A copy of one declaration with one wiring point taken out (None: unlisted altogether)."""
    cleared = {
        MESSAGES: {"errors": {}},
        EXPORT: {"export": {}, "not_exported": {}},
        NAVIGATION: {"area": None},
        SWEEP: {"ids": {}},
    }
    if point == PACKAGES:
        return lambda domain: None
    return lambda domain: dataclasses.replace(domain, **cleared[point])


def _has(domain, point):
    """Whether the domain is wired at that point today (removing it can only matter then)."""
    return {
        PACKAGES: True,
        MESSAGES: bool(domain.errors),
        EXPORT: bool(domain.export or domain.not_exported),
        NAVIGATION: domain.area is not None,
        SWEEP: bool(domain.ids),
    }[point]


POINTS = (PACKAGES, MESSAGES, EXPORT, NAVIGATION, SWEEP)
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


def test_the_removals_cover_every_point_of_every_domain_owning_data():
    covered = {(values[0], values[1]) for values in (removal.values for removal in REMOVALS)}
    for domain in domains.DOMAINS:
        if domain.tables:
            expected = {PACKAGES, EXPORT, NAVIGATION} | ({SWEEP} if domain.ids else set())
            expected |= {MESSAGES} if domain.errors else set()
            assert {point for name, point in covered if name == domain.name} == expected, domain.name


# The code of a domain whose package app/domains.py does not list (as a new one starts).
HALF_WIRED_CALENDAR = {
    "a package declaring a domain": ("declaring", {"app.calendar": "calendar"}, "calendar", PACKAGES),
    "a service announcing its old name": ("announced", {"quickNotes": {"app.ideas.services"}}, "quickNotes", EVENTS),
    "a template listening for its old name": ("listened", {"quickNotes": {"app/ideas/templates/ideas/page.html"}},
                                              "quickNotes", EVENTS),
    "a tool outside a listed domain": ("tools", {"getCalendarDay": ("calendar", "app.calendar.tools")}, "calendar",
                                       TOOLS),
    "a tool outside its package's tools": ("tools", {"getHabitDay": ("habits", "app.habits.services")}, "habits",
                                           TOOLS),
    "a blueprint nobody registers": ("blueprints", {"calendar": "app.calendar.routes"}, "calendar", BLUEPRINTS),
    "a table of no listed domain": ("tables", {"calendar_days": "app.calendar.models"}, "calendar", MODELS),
    "a table outside its package's models": ("tables", {"habit_days": "app.habits.services"}, "habits", MODELS),
    "a route argument the sweep has no source for": ("route_arguments", {("calendar.day", "day_id")}, "calendar",
                                                     SWEEP),
    "a refusal key with no message": ("raised", {"CALENDAR_DAY_NOT_FOUND": {"app.calendar.services"}}, "calendar",
                                      MESSAGES),
}  # fmt: skip


@pytest.mark.parametrize(("fact", "added", "name", "point"), HALF_WIRED_CALENDAR.values(), ids=HALF_WIRED_CALENDAR)
def test_code_of_a_domain_its_declaration_does_not_account_for_is_reported(facts, fact, added, name, point):
    current = getattr(facts, fact)
    grown = {**current, **added} if isinstance(current, dict) else current | added
    found = complaints(domains.DOMAINS, dataclasses.replace(facts, **{fact: grown}))
    assert any(complaint.startswith(f"{name}: {point}:") for complaint in found), found


def test_a_table_account_deletion_cannot_reach_is_reported(facts):
    blind = dataclasses.replace(facts, deletion_reaches=facts.deletion_reaches - {"habit_categories"})
    assert "habits: models: account deletion never reaches table habit_categories" in complaints(domains.DOMAINS, blind)


def test_an_export_section_without_its_function_is_reported(facts):
    missing = dataclasses.replace(facts, exports=facts.exports - {("app.habits", "habits")})
    assert "habits: export: section habits has no export_habits in app.habits.export" in complaints(
        domains.DOMAINS, missing
    )
