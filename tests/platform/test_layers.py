"""The structure has no circle and no upward import (docs/adding-a-domain.md draws it).

The import-linter contracts in pyproject.toml keep the layers — the entry points over the domains,
over the web shell and the agent's registry, over the chain, over the shared machinery — and keep
the modules inside every package free of circles. A domain may use another domain, so the layers
cannot see a circle running through two of them; the graph of every import (those inside functions
included) is checked here for any circle at all.
"""

import tomllib
from importlib import import_module
from pathlib import Path

import grimp
import pytest
from importlinter.cli import lint_imports

from app import domains

ROOT = Path(__file__).resolve().parents[2]
CONTRACTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]


def circles(graph):
    """Every set of modules that import one another round a circle (Tarjan's components)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(module):
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = set()
            while not component or module not in component:
                component.add(stack.pop())
            on_stack.difference_update(component)
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def layers():
    """The layers contract's layers as grimp reads them: "a : b" may import each other, "a | b" not."""
    (contract,) = [contract for contract in CONTRACTS if contract["type"] == "layers"]
    read = []
    for layer in contract["layers"]:
        independent = "|" in layer
        read.append(
            grimp.Layer(*(tail.strip() for tail in layer.replace("|", ":").split(":")), independent=independent)
        )
    return read, set(contract["containers"])


@pytest.fixture
def graph():
    return grimp.build_graph("app", cache_dir=None)


def test_the_import_contracts_hold(monkeypatch):
    monkeypatch.chdir(ROOT)
    assert lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True) == 0


def test_no_module_comes_back_to_itself_through_its_imports(graph):
    assert circles(graph) == []


def test_a_circle_is_found_when_a_lower_module_imports_a_higher_one(graph):
    """What the live channel's publishing was before it moved below the announcements."""
    graph.add_import(importer="app.events", imported="app.web.live")
    assert any({"app.events", "app.web.live"} <= set(circle) for circle in circles(graph))


def test_the_layers_refuse_an_upward_import(graph):
    read, containers = layers()
    assert graph.find_illegal_dependencies_for_layers(layers=read, containers=containers) == set()
    graph.add_import(importer="app.shared.fields", imported="app.categories.models")
    (illegal,) = graph.find_illegal_dependencies_for_layers(layers=read, containers=containers)
    assert (illegal.importer, illegal.imported) == ("app.shared", "app.categories")


def test_every_package_of_the_app_is_in_a_layer(graph):
    """The contract is exhaustive: a new package must be given its place."""
    read, _containers = layers()
    placed = {f"app.{tail}" for layer in read for tail in layer.module_tails}
    assert {module for module in graph.find_children("app")} == placed


def _role(module):
    """What a module of a domain package is: its declaration, models, tools, export, routes (it
    holds a blueprint) or services (everything else)."""
    parts = module.split(".")
    for role in ("models", "tools", "export"):
        if role in parts:
            return role
    if any(module == domain.package for domain in domains.DOMAINS):
        return "declaration"
    return "routes" if hasattr(import_module(module), "bp") else "services"


# What each role may import of the domain packages: routes and tools call services, services read models.
MAY_IMPORT = {
    "declaration": {"declaration"},
    "models": {"declaration", "models"},
    "services": {"declaration", "models", "services"},
    "export": {"declaration", "models", "services"},
    "tools": {"declaration", "models", "services", "tools"},
    "routes": {"declaration", "models", "services", "routes"},
}


def _in_a_domain(module):
    return any(module == d.package or module.startswith(f"{d.package}.") for d in domains.DOMAINS)


def against_the_roles(graph):
    """Every import between modules of domain packages that its importer's role may not make."""
    return [
        (importer, imported)
        for importer in sorted(graph.modules)
        if _in_a_domain(importer)
        for imported in sorted(graph.find_modules_directly_imported_by(importer))
        if _in_a_domain(imported) and _role(imported) not in MAY_IMPORT[_role(importer)]
    ]


def test_inside_the_domains_routes_and_tools_call_services_and_services_read_models(graph):
    assert against_the_roles(graph) == []
    assert {_role(module) for module in graph.modules if _in_a_domain(module)} == set(MAY_IMPORT)


def test_a_model_reading_a_service_is_refused(graph):
    graph.add_import(importer="app.mood.models", imported="app.mood.services")
    assert against_the_roles(graph) == [("app.mood.models", "app.mood.services")]
