"""What categories, habits, tasks and goals share, pinned once for each of them: ids of others
are unknown ids, the six dialog routes answer alike, a row reads as one piece of data wherever
it is shown, and the habits and tasks lists come a page at a time."""

import re

import pytest

from app.agent import registry
from app.assistant import tool_calls
from app.catalogue.dialogs import PAGE_SIZE
from app.categories import services as categories
from app.goals import services as goals
from app.habits import services as habits
from app.profile import configuration
from app.shared.errors import NotFound
from app.tasks import services as tasks
from tests.builders import a_category, a_goal, a_habit, a_task, as_user

HTMX = {"HX-Request": "true"}

# area -> (service, builder, the refusal key of an unknown row, the form's test id)
ENTITIES = {
    "categories": (categories, a_category, "CATEGORY_NOT_FOUND", "category-form"),
    "habits": (habits, a_habit, "HABIT_NOT_FOUND", "habit-form"),
    "tasks": (tasks, a_task, "TASK_NOT_FOUND", "task-form"),
    "goals": (goals, a_goal, "GOAL_NOT_FOUND", "goal-form"),
}
EVERY_AREA = pytest.mark.parametrize("area", list(ENTITIES))


def post(client, url, data=None):
    return client.post(url, data=data or {}, headers={"X-CSRFToken": client.csrf, **HTMX})


def arrange(app, user_id, area, **fields):
    with as_user(app, user_id) as user:
        return ENTITIES[area][1](user, **fields).id


@EVERY_AREA
def test_another_users_row_is_an_unknown_row_for_every_entity(ana, bruno, area):
    service, build, not_found, _form = ENTITIES[area]
    theirs = build(bruno, name="Bruno's own")
    for call in (
        lambda: service.get(ana, theirs.id),
        lambda: service.edit(ana, theirs.id, name="Mine"),
        lambda: service.delete(ana, theirs.id),
        lambda: service.resolve(ana, "Bruno's own"),
    ):
        with pytest.raises(NotFound) as refused:
            call()
        assert refused.value.key == not_found


@EVERY_AREA
def test_the_new_dialog_is_the_entitys_form_as_a_fragment_or_a_page(signed_in, area):
    form_id = ENTITIES[area][3]
    fragment = signed_in.get(f"/{area}/new", headers=HTMX)
    page = signed_in.get(f"/{area}/new")
    assert fragment.status_code == page.status_code == 200
    assert f'data-testid="{form_id}"' in fragment.text and "<html" not in fragment.text
    assert f'data-testid="{form_id}"' in page.text and "<html" in page.text


@EVERY_AREA
def test_the_edit_dialog_starts_from_the_rows_data(app, signed_in, user_id, area):
    row_id = arrange(app, user_id, area, name="Starting name", description="As it was")
    body = signed_in.get(f"/{area}/{row_id}/edit", headers=HTMX).text
    assert 'value="Starting name"' in body and ">As it was</textarea>" in body


@EVERY_AREA
def test_a_refused_create_keeps_what_was_typed_and_says_why(signed_in, area):
    refused = post(signed_in, f"/{area}", {"name": "x", "description": "Kept as typed"})
    assert refused.status_code == 422
    assert "Kept as typed" in refused.text and 'aria-invalid="true"' in refused.text


@EVERY_AREA
def test_the_delete_dialog_asks_and_the_delete_closes_it(app, signed_in, user_id, area):
    row_id = arrange(app, user_id, area, name="To go")
    asked = signed_in.get(f"/{area}/{row_id}/delete", headers=HTMX)
    deleted = post(signed_in, f"/{area}/{row_id}/delete")
    assert asked.status_code == 200 and 'data-testid="confirm-delete"' in asked.text and "To go" in asked.text
    assert deleted.status_code == 204 and "dialog:close" in deleted.headers["HX-Trigger"]
    assert signed_in.get(f"/{area}/{row_id}/edit", headers=HTMX).status_code == 404


@EVERY_AREA
def test_export_tools_and_edit_form_read_a_row_as_its_as_data(app, signed_in, user_id, area):
    service = ENTITIES[area][0]
    row_id = arrange(app, user_id, area, name="One shape", description="Said once")
    with as_user(app, user_id) as ana:
        data = service.as_data(service.get(ana, row_id))
        exported = configuration.export_sections()[area](ana)
        tool_name = f"getUser{area.capitalize()}"
        listed = tool_calls.run(registry.ToolContext(user=ana, chat=None), tool_name, {}).result["items"]
    form = signed_in.get(f"/{area}/{row_id}/edit", headers=HTMX).text

    assert [row for row in exported if row["id"] == str(row_id)] == [data]
    (shown,) = [row for row in listed if row["id"] == str(row_id)]
    assert {key: value for key, value in shown.items() if key != "in_routines"} == data
    assert f'value="{data["name"]}"' in form and f">{data['description']}</textarea>" in form


def test_the_catalogue_tools_keep_their_names_domains_and_kinds():
    for domain, one, many in (
        ("categories", "Category", "Categories"),
        ("habits", "Habit", "Habits"),
        ("tasks", "Task", "Tasks"),
        ("goals", "Goal", "Goals"),
    ):
        declared = {
            name: (registry.REGISTRY[name].domain, registry.REGISTRY[name].kind, registry.REGISTRY[name].page)
            for name in (f"getUser{many}", f"createUser{one}", f"editUser{one}", f"deleteUser{one}")
        }
        assert declared == {
            f"getUser{many}": (domain, "read", None),
            f"createUser{one}": (domain, "write", f"/{domain}"),
            f"editUser{one}": (domain, "write", f"/{domain}"),
            f"deleteUser{one}": (domain, "write", f"/{domain}"),
        }


# Paging --------------------------------------------------------------------------------------

ROUTINE_ITEMS = pytest.mark.parametrize("area", ["habits", "tasks"])


def many_rows(app, user_id, area, count, prefix="Row"):
    with as_user(app, user_id) as user:
        shared = a_category(user, name="Shared")
        for number in range(count):
            extra = {"category": shared} if area == "habits" else {"categories": [shared.id]}
            ENTITIES[area][1](user, name=f"{prefix} {number:03d}", **extra)
        return shared.id


def rows_in(html, area):
    return re.findall(rf'id="{area[:-1]}-[0-9a-f-]{{36}}"', html)


def more_link(html):
    found = re.search(r'href="([^"]+)"[^>]*data-testid="show-more"', html, re.S)
    return found.group(1).replace("&amp;", "&") if found else None


@ROUTINE_ITEMS
def test_a_long_list_shows_one_page_and_a_link_to_the_next(app, signed_in, user_id, area):
    many_rows(app, user_id, area, PAGE_SIZE + 5)
    page = signed_in.get(f"/{area}").text
    assert len(rows_in(page, area)) == PAGE_SIZE
    assert more_link(page) == f"/{area}?page=2"
    assert f"{PAGE_SIZE + 5} {area}" in page  # the count is of every row, not of the page


@ROUTINE_ITEMS
def test_show_more_appends_the_next_rows_and_focuses_the_first(app, signed_in, user_id, area):
    many_rows(app, user_id, area, PAGE_SIZE + 5)
    more = signed_in.get(f"/{area}?page=2", headers=HTMX).text
    assert len(rows_in(more, area)) == 5 and "<html" not in more
    first_row = more[more.index("<li") : more.index(">", more.index("<li"))]
    assert 'tabindex="-1" autofocus' in first_row
    assert 'hx-swap-oob="true"' in more and more_link(more) is None  # the last page: no more link


@ROUTINE_ITEMS
def test_the_next_page_keeps_the_search_filter_and_sort(app, signed_in, user_id, area):
    shared = many_rows(app, user_id, area, PAGE_SIZE + 2, prefix="Walk")
    page = signed_in.get(f"/{area}?q=walk&sort=name_desc&category={shared}").text
    link = more_link(page)
    assert link.startswith(f"/{area}?") and {"q=walk", "sort=name_desc", f"category={shared}", "page=2"} <= set(
        link.split("?", 1)[1].split("&")
    )
    second = signed_in.get(link, headers=HTMX).text
    assert rows_in(second, area) and "Walk 001" in second and "Walk 031" not in second


@ROUTINE_ITEMS
def test_without_javascript_a_later_page_is_a_page_with_a_way_back(app, signed_in, user_id, area):
    many_rows(app, user_id, area, PAGE_SIZE + 1)
    second = signed_in.get(f"/{area}?page=2").text
    assert "<html" in second and len(rows_in(second, area)) == 1
    assert f'href="/{area}?page=1"' in second


@ROUTINE_ITEMS
def test_a_page_number_that_is_not_a_page_shows_the_first(app, signed_in, user_id, area):
    many_rows(app, user_id, area, 2)
    for page in ("0", "-3", "two", ""):
        assert len(rows_in(signed_in.get(f"/{area}?page={page}").text, area)) == 2
