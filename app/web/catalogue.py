"""What the category, habit, task and goal pages share: their dialogs' answers and the choices
their forms offer."""

from flask import redirect, request, url_for
from werkzeug.datastructures import MultiDict

from app.services import icons
from app.web.forms import form_refused
from app.web.rendering import is_htmx, render_page, trigger

DIALOG_PAGE = "categories/dialog_page.html"


def form_choices():
    """Context every catalogue form needs (the icon picker's groups)."""
    return {"icon_groups": icons.grouped()}


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
