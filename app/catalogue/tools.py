"""How categories, habits and tasks declare their tools: read, create (returning the new id), edit,
delete.

Each entity declares its four tools once (`declare_entity_tools`, in its own package's tools): the names follow
get<Plural> / create<One> / edit<One> / delete<One>, and what differs — labels, typed
arguments, what the model is told, how a list is read — is in the declaration.
"""

import inspect
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from app.agent import views
from app.agent.registry import Proposal, pinned, tool

Experience = Literal["BEGINNER", "INTERMEDIATE", "ADVANCED"]
Scale = Field(ge=1, le=5)


class Search(BaseModel):
    search: str | None = Field(None, description="Only items whose name or description contains this text.")


class Ref(BaseModel):
    ref: str = Field(description="The id, or the exact name (any letter case), read from a list tool first.")


@dataclass(frozen=True)
class Told:
    """A tool's chip label (translated, for the person) and its description (for the model)."""

    label: object
    description: str
    proposal: object = None  # the delete card's words, with %(name)s (a delete waits for the person's click)


def declare_entity_tools(service, *, told, nouns, new, change, reads=Search, listing=None):
    """Register get<many>, create<one>, edit<one> and delete<one> (`nouns`: one, many) as
    adapters into `service`, the services module of the entity's domain package: its listing,
    create, edit, resolve, delete and as_data.

    `told` maps "get", "create", "edit", "delete" to what each tool says; `reads`, `new` and
    `change` are the typed arguments of get, create and edit. `listing(user, args)` reads the
    rows (default: `service.listing` with the search).
    """
    domain = service.__name__.split(".")[-2]  # app.<domain>.services
    one, many = nouns
    args = {"get": reads, "create": new, "edit": change, "delete": Ref}
    page = f"/{domain}"
    listing = listing or (lambda user, arguments: service.listing(user, search=arguments.search))

    def shown(user):
        """How a row reads: its data, with the routines that hold it for a routine item."""
        if hasattr(service, "routines_using"):
            return views.held(service.as_data, service.routines_using(user))
        return service.as_data

    def get(ctx, arguments):
        return views.capped(listing(ctx.user, arguments), shown(ctx.user))

    def create(ctx, arguments):
        return {"created": service.as_data(service.create(ctx.user, **arguments.model_dump()))}

    def edit(ctx, arguments):
        changes = arguments.model_dump(exclude_unset=True, exclude={"ref"})
        return {"updated": service.as_data(service.edit(ctx.user, arguments.ref, **changes))}

    def delete(ctx, arguments):
        row = service.resolve(ctx.user, arguments.ref)
        name = row.name
        service.delete(ctx.user, row.id)
        return {"deleted": name}

    def delete_preview(ctx, arguments):
        """The row the delete names, refused at once when the service would refuse it (in use)."""
        row = service.resolve(ctx.user, arguments.ref)
        refusal = service.deletion_refusal(ctx.user, row.id) if hasattr(service, "deletion_refusal") else None
        if refusal is not None:
            raise refusal
        summary = told["delete"].proposal % {"name": row.name}
        return Proposal(summary, pinned(arguments, ref=row.id), {"id": str(row.id), "name": row.name})

    declaring_module = inspect.currentframe().f_back.f_globals["__name__"]  # the domain's tool module
    adapters = (("get", get, many), ("create", create, one), ("edit", edit, one), ("delete", delete, one))
    for verb, handler, noun in adapters:
        handler.__name__ = handler.__qualname__ = f"{verb}User{noun}"
        handler.__module__ = declaring_module
        handler.__doc__ = told[verb].description
        kind = "read" if verb == "get" else "write"
        where = None if verb == "get" else page
        confirm = delete_preview if verb == "delete" else None
        tool(domain=domain, kind=kind, label=told[verb].label, page=where, args=args[verb], confirm=confirm)(handler)


# What habits and tasks both take -------------------------------------------------------------


class ItemNew(BaseModel):
    """What a new habit and a new task both take."""

    name: str = Field(description="2–256 characters.")
    importance: int = Scale
    difficulty: int = Scale
    icon: str | None = Field(None, description="An icon id from the catalogue.")
    description: str | None = None


class ItemEdit(Ref):
    """What an edit of a habit or a task can change besides its own fields."""

    name: str | None = None
    importance: int | None = Field(None, ge=1, le=5)
    difficulty: int | None = Field(None, ge=1, le=5)
    icon: str | None = None
    description: str | None = None
