"""What a domain is, and which packages are domains.

A domain is a package under app/ holding everything of it — models, services, blueprint and
routes, tools, templates, static files, prompts — and its declaration, `DOMAIN = Domain(...)`, in
its `__init__.py`: the name its services announce, where the navigation reaches it, its refusal
messages, its export sections, the route arguments that name its rows, its toolset.

PACKAGES below is the one list of domains, in the order the navigation shows their areas (and the
export its sections). Everything else about a domain is found in its package by convention
(docs/adding-a-domain.md): its tables in `models`, its tools in `tools`, its blueprints wherever
a module of it defines `bp`. tests/platform/test_wiring.py names what a half-wired domain forgot.

Like Django's app registry, this module reads the packages by name when asked, never by a static
import: a domain imports the shared machinery, never the other way round.
"""

import ast
import inspect
import pkgutil
from dataclasses import dataclass, field, replace
from functools import cache
from importlib import import_module
from importlib.util import find_spec

from flask import Blueprint, url_for

from app.extensions import db

PACKAGES = (
    "dashboard",
    "routines",
    "habits",
    "tasks",
    "categories",
    "goals",
    "notebook",
    "notebook.ai",
    "study_cycles",
    "ideas",
    "mood",
    "focus",
    "profile",
    "feedback",
    "assistant",
    "onboarding",
    "admin",
)
"""The domain packages under app/, in the order the navigation shows their areas."""


@dataclass(frozen=True)
class Area:
    """A domain's entry in the navigation: the page it opens. The bottom bar holds the daily
    areas on phones; every other area is in the "More" sheet."""

    label: object
    icon: str
    endpoint: str
    in_bottom_bar: bool = True
    slug: str = ""  # the domain's name unless the page is called otherwise

    @property
    def url(self):
        return url_for(self.endpoint)


@dataclass(frozen=True)
class Elsewhere:
    """A domain with no entry of its own in the navigation, and where it is reached instead."""

    reached: str


@dataclass(frozen=True)
class Domain:
    """One domain's declaration: what its package cannot say by its files alone."""

    name: str  # what its services announce, and `@tool(domain=...)`
    area: Area | Elsewhere | None
    export: dict[str, tuple[str, ...]] = field(default_factory=dict)  # section → the tables it carries
    not_exported: dict[str, str] = field(default_factory=dict)  # table → why the export leaves it out
    ids: dict[str, str] = field(default_factory=dict)  # a route's id argument → the table it names
    errors: dict[str, object] = field(default_factory=dict)  # refusal key → its message
    catalogue: tuple[str, ...] = ()  # its rows of the tool catalogue (docs/tool-catalogue.md)
    # Its toolset, as `openToolsets` offers it to the model (English, a few words); None: its tools are
    # core tools or it has none. Its own area's turns carry it from the first round, and so do those of
    # `also_on`'s pages (an area's slug, or a path under one: notebook/cycles).
    toolset: str | None = None
    toolset_also_on: tuple[str, ...] = ()
    package: str = ""  # "app.notebook.ai": filled in when the package is read

    @property
    def navigation_area(self):
        """Its navigation entry, slug filled in; None when it is reached elsewhere."""
        if not isinstance(self.area, Area):
            return None
        return replace(self.area, slug=self.area.slug or self.name)

    @property
    def has_tools(self):
        return _has(self.package, "tools")

    @property
    def tables(self):
        """The names of the tables its `models` define (not those they import)."""
        found = []
        for module in modules_of(self, "models"):
            for name in _defined_names(module):
                value = getattr(module, name)
                table = getattr(value, "__table__", value)
                if getattr(table, "metadata", None) is db.metadata and hasattr(table, "c"):
                    found.append(table.name)
        return tuple(dict.fromkeys(found))


def _defined_names(module):
    """The names a module's own top-level statements bind: its classes and assignments."""
    tree = ast.parse(inspect.getsource(module))
    names = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [target.id for target in node.targets if isinstance(target, ast.Name)]
    return names


def __getattr__(name):
    """`DOMAINS` and `BY_NAME`, read from the packages the first time they are asked for (a
    package's `__init__` imports this module, so the packages cannot be read while it loads)."""
    if name == "DOMAINS":
        return _declared()
    if name == "BY_NAME":
        return {domain.name: domain for domain in _declared()}
    raise AttributeError(name)


@cache
def _declared():
    return tuple(replace(import_module(f"app.{name}").DOMAIN, package=f"app.{name}") for name in PACKAGES)


def _has(package, part):
    return find_spec(f"{package}.{part}") is not None


def _own_modules(package):
    """The names of a domain package's modules, its subpackages' included, but not those of a
    domain package inside it (the notebook's AI is a domain of its own)."""
    nested = {f"app.{name}" for name in PACKAGES if f"app.{name}".startswith(f"{package}.")}
    root = import_module(package)
    names = [package]
    for info in pkgutil.walk_packages(root.__path__, prefix=f"{package}."):
        if not any(info.name == other or info.name.startswith(f"{other}.") for other in nested):
            names.append(info.name)
    return names


def modules_of(domain, part):
    """The domain's `part` ("models", "tools") imported: the module, or the package and each of
    its modules. A domain without one has none."""
    package = f"{domain.package}.{part}"
    if not _has(domain.package, part):
        return []
    return [
        import_module(name)
        for name in _own_modules(domain.package)
        if name == package or name.startswith(f"{package}.")
    ]


def load(part):
    """Import every domain's `part`: "models" registers each table, "tools" each tool."""
    for domain in _declared():
        modules_of(domain, part)


def blueprints_of(domain):
    """The blueprints its modules define, each as the module-level `bp` of its module."""
    modules = (import_module(name) for name in _own_modules(domain.package))
    return [module.bp for module in modules if isinstance(getattr(module, "bp", None), Blueprint)]


ROUTE_ARGUMENTS_THAT_ARE_NOT_ROWS = {
    "token": "a password-reset link's signed token",
    "section": "a configuration form's name",
    "widget_id": "a dashboard widget's name from the fixed widget catalogue",
    "filename": "a static file",
    "step": "an onboarding wizard step's name",
}
"""Route arguments that name no row, so the ownership sweep has nothing to try on them."""
