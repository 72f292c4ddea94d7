"""What the category, habit, task and goal pages share: their dialogs (new, create, edit form,
edit, confirm delete, delete — declared once per entity as `Dialogs`), the paged lists of
habits and tasks, and the choices their forms offer."""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask import Blueprint, redirect, render_template, request, url_for
from flask_login import login_required
from werkzeug.datastructures import MultiDict

from app.catalogue import fields as entity_fields
from app.categories import services as categories
from app.shared import icons
from app.shared.errors import DomainError
from app.shared.values import whole_number_from
from app.web.acting import acting_user
from app.web.forms import form_refused
from app.web.rendering import is_htmx, render_page, trigger

DIALOG_PAGE = "shared/dialog_page.html"
CONFIRM_DELETE = "shared/_confirm_delete.html"

# Rows a list shows at a time: a heavy account's list stays a light page; "Show more" adds the next.
PAGE_SIZE = 24


@dataclass(frozen=True)
class Dialogs:
    """What one entity's dialogs differ in. The service gives get, create, edit, delete and
    as_data (and deletion_refusal, when something can hold the row)."""

    service: Any  # its declaration's field table (FIELDS) is what the form sends
    noun: str  # the row's name in the form template ("habit"), in its id ("habit_id") and its folder
    starting: Callable[[], dict]  # a new form's values
    delete_title: Any  # "Delete this habit?"
    consequence: Callable[[str], str]  # name -> what a delete takes with it
    choices: Callable[[Any], dict] = lambda row: {}  # row (None when new) -> what the form offers
    create_only: tuple[str, ...] = ()  # fields only a new row takes (the starting experience)
    edit_only: tuple[str, ...] = ()  # fields only an existing row takes (a goal's status)
    also: tuple[str, ...] = ()  # fields the form sends beyond the field table (a goal's parent)
    data_keys: dict = field(default_factory=dict)  # form field -> its key in as_data, where they differ
    read: Callable | None = None  # (form, fields) -> service arguments, when plain reading is not enough

    @property
    def form(self):
        """The form template, in the folder named for the service's domain."""
        return f"{self.service.__name__.split('.')[-2]}/_form.html"  # app.<domain>.services

    @property
    def fields(self):
        return tuple(self.service.FIELDS) + self.also

    def values_from(self, form, editing):
        """The service's arguments from the submitted form."""
        names = self.fields + (self.edit_only if editing else self.create_only)
        if self.read is not None:
            return self.read(form, names)
        return {name: self._value(form, name) for name in names}

    def _value(self, form, name):
        """Categories come as several values, a yes/no as a checkbox that is there or not."""
        cleaner = self.service.FIELDS.get(name)
        if cleaner is entity_fields.any_categories:
            return form.getlist(name)
        if cleaner is entity_fields.flag:
            return bool(form.get(name))
        return form.get(name)

    def prefill(self, row):
        """The edit form's values: the row as its service shows it as data."""
        data = self.service.as_data(row)
        keys = {name: self.data_keys.get(name, name) for name in self.fields + self.edit_only}
        return prefilled({name: form_value(data[key]) for name, key in keys.items()})

    def context(self, row=None):
        return {self.noun: row, **self.choices(row)}


def add_dialog_routes(bp, dialogs):
    """The six dialog routes on `bp`: new, create, edit_form, edit, confirm_delete, delete."""
    index = f"{bp.name}.index"
    item = f"/<{dialogs.noun}_id>"
    service, form = dialogs.service, dialogs.form

    @bp.get("/new", endpoint="new")
    @login_required
    def new():
        return show_dialog(form, form=prefilled(dialogs.starting()), **dialogs.context())

    @bp.post("", endpoint="create")
    @login_required
    def create():
        try:
            service.create(acting_user(), **dialogs.values_from(request.form, editing=False))
        except DomainError as error:
            return refused(form, error, **dialogs.context())
        return done(index)

    @bp.get(item + "/edit", endpoint="edit_form")
    @login_required
    def edit_form(**ids):
        row = service.get(acting_user(), *ids.values())
        return show_dialog(form, form=dialogs.prefill(row), **dialogs.context(row))

    @bp.post(item + "/edit", endpoint="edit")
    @login_required
    def edit(**ids):
        row = service.get(acting_user(), *ids.values())
        try:
            service.edit(acting_user(), row.id, **dialogs.values_from(request.form, editing=True))
        except DomainError as error:
            return refused(form, error, **dialogs.context(row))
        return done(index)

    @bp.get(item + "/delete", endpoint="confirm_delete")
    @login_required
    def confirm_delete(**ids):
        """Asks first, or says up front why it cannot be deleted yet (no button the server would refuse)."""
        row = service.get(acting_user(), *ids.values())
        refusal = getattr(service, "deletion_refusal", None)
        return confirmation(bp, dialogs, row, refusal(acting_user(), row.id) if refusal else None, status=200)

    @bp.post(item + "/delete", endpoint="delete")
    @login_required
    def delete(**ids):
        row = service.get(acting_user(), *ids.values())
        try:
            service.delete(acting_user(), row.id)
        except DomainError as error:
            return confirmation(bp, dialogs, row, error)
        return done(index)


def confirmation(bp, dialogs, row, error=None, status=None):
    action = url_for(f"{bp.name}.delete", **{f"{dialogs.noun}_id": row.id})
    body = deletion_dialog(dialogs.delete_title, row.name, dialogs.consequence(row.name), action, error)
    return body, status or (error.status if error else 200)


def deletion_dialog(title, name, consequence, action, error=None):
    """ "Delete …?" with what goes with it said first: the fragment for htmx, a plain page without
    JavaScript. Every area's delete asks through it."""
    context = {
        "title": title,
        "name": name,
        "consequence": consequence,
        "action": action,
        "error": error,
        "dialog_fragment": CONFIRM_DELETE,
    }
    return render_template(CONFIRM_DELETE if is_htmx() else DIALOG_PAGE, **context)


# Lists ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Page:
    """One page of a list: its rows, how many there are in all, and where the next page starts."""

    rows: list
    total: int
    number: int
    endpoint: str
    filters: dict = field(default_factory=dict)
    size: int = PAGE_SIZE

    @property
    def has_more(self):
        return self.number * self.size < self.total

    @property
    def next_size(self):
        return min(self.total - self.number * self.size, self.size)

    def url(self, number):
        """Page `number` with the same search, filter and sort."""
        kept = {name: value for name, value in self.filters.items() if value}
        return url_for(self.endpoint, page=number, **kept)


def routine_item_pages(import_name, dialogs):
    """The blueprint of the habits or the tasks page: the paged list and the dialogs."""
    area = dialogs.service.__name__.split(".")[-2]  # app.<domain>.services
    bp = Blueprint(area, import_name, url_prefix=f"/{area}", template_folder="templates")

    @bp.get("", endpoint="index")
    @login_required
    def index():
        return routine_item_list(dialogs.service, area)

    add_dialog_routes(bp, dialogs)
    return bp


def routine_item_list(service, area):
    """The list page of habits or tasks (`area`): filtered, sorted and paged; the category
    filter offers the categories that tag at least one of them.

    A "more" request (htmx, page 2 on) answers with just the next rows and the next "more"
    control; without JavaScript every page is a page of its own with links either way.
    """
    filters = list_filters("q", "sort", "category")
    number = page_number()
    user = acting_user()
    chosen = {"search": filters["q"], "category": filters["category"]}
    page = Page(
        rows=service.listing(user, sort=filters["sort"], window=((number - 1) * PAGE_SIZE, PAGE_SIZE), **chosen),
        total=service.count(user, **chosen),
        number=number,
        endpoint=f"{area}.index",
        filters=filters,
    )
    context = {"page": page, "filters": filters, "routines_using": service.routines_using(user), "area": area}
    if is_htmx() and number > 1:
        return render_template("shared/_more_rows.html", **context)
    options = [(str(category.id), category.name) for category in service.categories_in_use(user)]
    return render_page(f"{area}/page.html", "shared/_item_list.html", category_options=options, active=area, **context)


def page_number():
    """The `page` asked for (1 when missing or not a whole number from 1)."""
    text = request.args.get("page", "")
    return whole_number_from(text, 99_999) or 1


# Dialog answers ------------------------------------------------------------------------------


def form_choices():
    """Context every catalogue form needs (the icon picker's groups)."""
    return {"icon_groups": icons.grouped()}


def category_choices():
    """Every category of the user, by name: what a habit, task or goal can be tagged with."""
    return [use.category for use in categories.listing(acting_user(), sort="name")]


def show_dialog(fragment, **context):
    """A create/edit/confirm dialog: the fragment for htmx, a plain page without JavaScript."""
    return render_page(
        DIALOG_PAGE, fragment, dialog_fragment=fragment, fields={}, error=None, **form_choices(), **context
    )


def refused(fragment, error, **context):
    """The dialog again with what was typed, the reasons, and the refusal's status."""
    template = fragment if is_htmx() else DIALOG_PAGE
    return form_refused(template, error, dialog_fragment=fragment, **form_choices(), **context)


def done(endpoint, **values):
    """A dialog's write succeeded: htmx closes the dialog (lists refresh on the announced
    domains); without JavaScript, back to the list."""
    if is_htmx():
        trigger("dialog:close")
        return "", 204  # nothing to swap: an empty swap into the dialog would reopen it
    return redirect(url_for(endpoint, **values))


def quiet(endpoint, **values):
    """A button's write succeeded (no dialog): nothing to swap, the lists refresh themselves."""
    if is_htmx():
        return "", 204
    return redirect(url_for(endpoint, **values))


def form_value(value):
    """How a value of a row's data reads in a form: category refs as their ids, a yes/no as a
    ticked box or none, a number without a trailing ".0"."""
    if isinstance(value, list):
        return [item["id"] if isinstance(item, dict) else item for item in value]
    if isinstance(value, bool):
        return "1" if value else None
    if isinstance(value, float):
        return f"{value:g}"
    return value


def prefilled(pairs):
    """A form's starting values (field -> value, lists for multi-selects) as a MultiDict."""
    items = []
    for key, value in pairs.items():
        if isinstance(value, list | tuple):
            items.extend((key, str(item)) for item in value)
        elif value is not None:
            items.append((key, str(value)))
    return MultiDict(items)


def list_filters(*names):
    """The list toolbar's values from the query string."""
    return {name: request.args.get(name, "") for name in names}
