"""The /notebook/cycles pages: the editor (refusals keep what was typed), a cycle's queue (blocks
alike on one line), a block edited in its dialog, archive, delete, the "Log session" dialog, the
sessions list, the "Studying:" choice on a Focus entry and the "Study today" widget — with htmx
and without JavaScript."""

from app.notebook import services as notebook
from app.profile import configuration
from app.study_cycles import services as study_cycles
from tests.builders import a_habit, a_study_cycle, an_everyday_routine, as_user
from tests.conftest import hx


def plain(client):
    return {"X-CSRFToken": client.csrf}


def two_pages(app, user_id):
    with as_user(app, user_id) as user:
        topic = notebook.create_topic(user, "Biology")
        cells = notebook.create_page(user, topic.id, "Cells")
        mitosis = notebook.create_page(user, topic.id, "Mitosis", parent_id=cells.id)
        genetics = notebook.create_page(user, topic.id, "Genetics")
        return str(cells.id), str(mitosis.id), str(genetics.id)


def editor(name, subjects, **overrides):
    form = {"name": name, "minutes_0": "60", "minutes_2": "60", "starts_0": "18:00", "largest_block": "30",
            "default_mode": "TIME", "subject": subjects}  # fmt: skip
    for page_id in subjects:
        form[f"importance_{page_id}"] = "3"
        form[f"mastery_{page_id}"] = "3"
    form.update(overrides)
    return form


def cycles_of(app, user_id):
    with as_user(app, user_id) as user:
        return [study_cycles.cycle_data(cycle) for cycle in study_cycles.every_cycle(user)]


def test_the_empty_page_offers_a_new_cycle(signed_in):
    page = signed_in.get("/notebook/cycles").get_data(as_text=True)
    assert "No study cycle yet" in page and 'hx-trigger="domain:study_cycles from:body"' in page


def test_the_editor_creates_a_cycle_and_shows_its_queue(app, signed_in, user_id):
    cells, _mitosis, genetics = two_pages(app, user_id)
    form = signed_in.get("/notebook/cycles/new").get_data(as_text=True)
    assert "Mitosis" in form and 'name="minutes_6"' in form
    response = signed_in.post("/notebook/cycles", data=editor("Exams", [cells, genetics]), headers=plain(signed_in))
    assert response.status_code == 302
    (cycle,) = cycles_of(app, user_id)
    assert cycle["week"][0] == {"weekday": 0, "minutes": 60, "startsAt": "18:00"}
    page = signed_in.get(response.headers["Location"]).get_data(as_text=True)
    assert page.count('data-testid="block"') == 4 and "Lap 1" in page


def test_overlapping_subjects_are_refused_keeping_what_was_typed(app, signed_in, user_id):
    cells, mitosis, _genetics = two_pages(app, user_id)
    response = signed_in.post("/notebook/cycles", data=editor("My exams", [cells, mitosis]), headers=plain(signed_in))
    body = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "“Mitosis” is inside “Cells”" in body and 'value="My exams"' in body
    assert cycles_of(app, user_id) == []


def test_minutes_not_in_steps_of_5_are_refused_beside_their_day(app, signed_in, user_id):
    cells, _mitosis, _genetics = two_pages(app, user_id)
    response = signed_in.post(
        "/notebook/cycles", data=editor("Exams", [cells], minutes_0="62"), headers=plain(signed_in)
    )
    body = response.get_data(as_text=True)
    assert response.status_code == 422 and "Use minutes in steps of 5" in body and 'value="62"' in body


def test_a_week_with_no_minutes_is_refused(app, signed_in, user_id):
    cells, _mitosis, _genetics = two_pages(app, user_id)
    form = editor("Exams", [cells], minutes_0="0", minutes_2="")
    response = signed_in.post("/notebook/cycles", data=form, headers=plain(signed_in))
    assert response.status_code == 422 and "Give at least one day" in response.get_data(as_text=True)


def test_the_refusals_are_translated(app, signed_in, user_id):
    cells, mitosis, _genetics = two_pages(app, user_id)
    with as_user(app, user_id) as user:
        configuration.update(user, language="pt")
    response = signed_in.post("/notebook/cycles", data=editor("Provas", [cells, mitosis]), headers=plain(signed_in))
    assert response.status_code == 422 and "“Mitosis” está dentro de “Cells”" in response.get_data(as_text=True)


def test_the_editor_prefills_and_saves_an_edit(app, signed_in, user_id):
    cells, _mitosis, genetics = two_pages(app, user_id)
    signed_in.post("/notebook/cycles", data=editor("Exams", [cells, genetics]), headers=plain(signed_in))
    cycle_id = cycles_of(app, user_id)[0]["id"]
    form = signed_in.get(f"/notebook/cycles/{cycle_id}/edit").get_data(as_text=True)
    assert 'value="Exams"' in form and 'value="18:00"' in form
    response = signed_in.post(
        f"/notebook/cycles/{cycle_id}/edit", data=editor("Finals", [cells, genetics]), headers=plain(signed_in)
    )
    assert response.status_code == 302 and cycles_of(app, user_id)[0]["name"] == "Finals"


def one_subject_cycle(app, user_id):
    """Cells, with Mitosis inside it, an hour every day in blocks of 30 minutes: 14 blocks alike."""
    cells, mitosis, _genetics = two_pages(app, user_id)
    with as_user(app, user_id) as user:
        week = {"name": "Exams", "days": {day: {"minutes": 60} for day in range(7)},
                "subjects": [{"page": cells}], "largest_block": 30}  # fmt: skip
        return str(study_cycles.create_cycle(user, week).id), mitosis


def test_blocks_alike_read_as_one_line_with_each_block_counted(app, signed_in, user_id):
    cycle_id, _mitosis = one_subject_cycle(app, user_id)
    page = signed_in.get(f"/notebook/cycles/{cycle_id}").get_data(as_text=True)
    assert page.count('data-testid="block-run"') == 1 and page.count('data-testid="block"') == 14
    assert "14 blocks of 30 min each, 0 done" in page and "For the time set" in page
    assert "Block 3 of 14" in page and "Blocks 1 to 14 of 14" in page and "Now: 0 of 30 min" in page
    assert "Block number" not in page and "NEXT" not in page and "· Time ·" not in page


def test_a_block_is_edited_in_the_dialog_its_edit_button_opens(app, signed_in, user_id):
    cycle_id, mitosis = one_subject_cycle(app, user_id)
    page = signed_in.get(f"/notebook/cycles/{cycle_id}").get_data(as_text=True)
    assert (
        f'hx-get="/notebook/cycles/{cycle_id}/blocks/edit?number=3"' in page
        and 'aria-label="Edit block 3 of 14"' in page
    )
    dialog = signed_in.get(f"/notebook/cycles/{cycle_id}/blocks/edit?number=3", headers=hx(signed_in)).get_data(
        as_text=True
    )
    assert "Block 3 of 14 · Cells" in dialog and 'name="number" value="3"' in dialog and 'value="30"' in dialog
    assert "The next concept on the board" in dialog and f'<option value="{mitosis}"' in dialog
    saved = signed_in.post(
        f"/notebook/cycles/{cycle_id}/blocks",
        data={"number": "3", "minutes": "25", "mode": "GOAL", "concept": mitosis},
        headers=hx(signed_in),
    )
    assert saved.status_code == 204 and "Block 3 of 14 saved." in saved.headers["HX-Trigger"]
    block = cycles_of(app, user_id)[0]["blocks"][2]
    assert block["minutes"] == 25 and block["mode"] == "GOAL" and block["concept"]["title"] == "Mitosis"
    page = signed_in.get(f"/notebook/cycles/{cycle_id}").get_data(as_text=True)
    assert page.count('data-testid="block-run"') == 3 and "Until you reach Mitosis" in page
    # Back to its minutes: the concept the dialog still sends counts for nothing.
    signed_in.post(
        f"/notebook/cycles/{cycle_id}/blocks",
        data={"number": "3", "minutes": "30", "mode": "TIME", "concept": mitosis},
        headers=hx(signed_in),
    )
    assert cycles_of(app, user_id)[0]["blocks"][2]["mode"] == "TIME"


def test_a_refused_block_comes_back_in_its_dialog_with_what_was_typed(app, signed_in, user_id):
    cycle_id, _mitosis = one_subject_cycle(app, user_id)
    too_long = {"number": "2", "minutes": "45", "mode": "TIME"}
    refused = signed_in.post(f"/notebook/cycles/{cycle_id}/blocks", data=too_long, headers=hx(signed_in))
    body = refused.get_data(as_text=True)
    assert refused.status_code == 422 and "holds at most 30 minutes" in body
    assert 'value="45"' in body and "Block 2 of 14" in body
    assert signed_in.get(f"/notebook/cycles/{cycle_id}/blocks/edit?number=15", headers=hx(signed_in)).status_code == 404
    unknown = signed_in.post(f"/notebook/cycles/{cycle_id}/blocks", data={"number": "99"}, headers=hx(signed_in))
    assert unknown.status_code == 422 and "This cycle has blocks 1 to 14" in unknown.get_data(as_text=True)


def test_another_users_cycle_has_no_block_to_edit(app, signed_in, user_id, other_signed_in):
    cycle_id, _mitosis = one_subject_cycle(app, user_id)
    asked = other_signed_in.get(f"/notebook/cycles/{cycle_id}/blocks/edit?number=1", headers=hx(other_signed_in))
    assert asked.status_code == 404
    written = other_signed_in.post(
        f"/notebook/cycles/{cycle_id}/blocks", data={"number": "1", "minutes": "5"}, headers=hx(other_signed_in)
    )
    assert written.status_code == 404 and cycles_of(app, user_id)[0]["blocks"][0]["minutes"] == 30


def test_the_block_dialog_works_without_javascript(app, signed_in, user_id):
    cycle_id, _mitosis = one_subject_cycle(app, user_id)
    page = signed_in.get(f"/notebook/cycles/{cycle_id}/blocks/edit?number=1").get_data(as_text=True)
    assert "<html" in page and "Block 1 of 14 · Cells" in page
    shorter = {"number": "1", "minutes": "20", "mode": "TIME"}
    saved = signed_in.post(f"/notebook/cycles/{cycle_id}/blocks", data=shorter, headers=plain(signed_in))
    assert saved.status_code == 302 and saved.headers["Location"].endswith(f"/notebook/cycles/{cycle_id}")
    assert cycles_of(app, user_id)[0]["blocks"][0]["minutes"] == 20


def test_archive_keeps_the_history_and_delete_removes_the_cycle(app, signed_in, user_id):
    with as_user(app, user_id) as user:
        cycle_id = str(a_study_cycle(user)["study_cycle"].id)
    signed_in.post(f"/notebook/cycles/{cycle_id}/archive", headers=plain(signed_in))
    assert cycles_of(app, user_id)[0]["archived"] is True
    assert "Archived" in signed_in.get("/notebook/cycles").get_data(as_text=True)
    assert "Delete this cycle?" in signed_in.get(f"/notebook/cycles/{cycle_id}/delete", headers=hx(signed_in)).text
    signed_in.post(f"/notebook/cycles/{cycle_id}/delete", headers=plain(signed_in))
    assert cycles_of(app, user_id) == []


def test_the_log_session_dialog_credits_the_lap_and_a_bad_day_keeps_what_was_typed(app, signed_in, user_id):
    with as_user(app, user_id) as user:
        page_id = str(a_study_cycle(user)["study_page"].id)
    dialog = signed_in.get("/notebook/cycles/sessions/new", headers=hx(signed_in)).get_data(as_text=True)
    assert 'data-testid="session-form"' in dialog and "Cells" in dialog
    refused = signed_in.post(
        "/notebook/cycles/sessions", data={"page": page_id, "minutes": "25", "day": "2001-01-01"}, headers=hx(signed_in)
    )
    assert refused.status_code == 422 and "the last 30 days" in refused.text and 'value="25"' in refused.text
    logged = signed_in.post("/notebook/cycles/sessions", data={"page": page_id, "minutes": "25"}, headers=hx(signed_in))
    assert logged.status_code == 204 and "domain:study_cycles" in logged.headers["HX-Trigger"]
    assert cycles_of(app, user_id)[0]["lap"]["done"] == 35


def test_the_sessions_list_deletes_a_session_logged_by_hand(app, signed_in, user_id):
    with as_user(app, user_id) as user:
        session_id = str(a_study_cycle(user)["study_session"].id)
    assert "Logged by hand" in signed_in.get("/notebook/cycles/sessions").get_data(as_text=True)
    response = signed_in.post(f"/notebook/cycles/sessions/{session_id}/delete", headers=hx(signed_in))
    assert response.status_code == 204 and cycles_of(app, user_id)[0]["lap"]["done"] == 0


def test_a_focus_entry_is_linked_to_a_page_through_the_studying_choice(app, signed_in, user_id):
    with as_user(app, user_id) as user:
        page_id = str(a_study_cycle(user)["study_page"].id)
        entry_id = str(an_everyday_routine(user, a_habit(user, "Study"))[0].id)
    assert "studying" in signed_in.get(f"/focus/{entry_id}").get_data(as_text=True)
    choice = signed_in.get(f"/notebook/cycles/entries/{entry_id}/studying").get_data(as_text=True)
    assert "Studying:" in choice and "Cells" in choice
    saved = signed_in.post(
        f"/notebook/cycles/entries/{entry_id}/studying", data={"page": page_id}, headers=hx(signed_in)
    )
    assert "Saved." in saved.text
    with as_user(app, user_id) as user:
        assert study_cycles.page_for_entry(user, entry_id).title == "Cells"


def test_the_study_today_widget_shows_each_cycle_s_slice(app, signed_in, user_id):
    with as_user(app, user_id) as user:
        a_study_cycle(user)
        configuration.update(user, widgets=["studyToday"])
    dashboard = signed_in.get("/dashboard").get_data(as_text=True)
    assert 'data-testid="widget-studyToday"' in dashboard and "domain:study_cycles" in dashboard
    assert "Exams" in signed_in.get("/dashboard/regions?ids=studyToday").get_data(as_text=True)
