"""The flashcards' spaced review: an SM-2-like schedule over three answers (again, good, easy),
and the due cards the review view shows."""

from datetime import date, timedelta

import pytest

from app.notebook import services as notebook
from app.notebook.models.pages import EASE_START
from app.shared.errors import Invalid

TODAY = date(2026, 3, 1)


def a_card(user, front="Unit of life?", back="The cell"):
    topic = notebook.create_topic(user, "Biology")
    page = notebook.create_page(user, topic.id, "Cells")
    return notebook.add_card(user, page.id, front, back)


def test_good_waits_one_day_then_six_then_the_interval_times_the_ease():
    state = (0, EASE_START, 0)
    intervals = []
    for _ in range(4):
        state = notebook.next_review(*state, "good")
        intervals.append(state[0])
    assert intervals == [1, 6, 15, 38]
    assert state[1] == EASE_START


def test_again_starts_the_card_over_tomorrow_and_makes_it_harder():
    assert notebook.next_review(38, 250, 4, "again") == (1, 230, 0)


def test_the_ease_never_falls_below_its_floor():
    state = (0, EASE_START, 0)
    for _ in range(20):
        state = notebook.next_review(*state, "again")
    assert state == (1, 130, 0)


def test_easy_makes_the_card_easier_and_waits_longer_than_good():
    good = notebook.next_review(6, 250, 2, "good")
    easy = notebook.next_review(6, 250, 2, "easy")
    assert easy[1] == 265 and easy[0] > good[0]
    assert notebook.next_review(0, 250, 0, "easy")[0] == 2


def test_a_new_card_is_due_at_once_and_a_reviewed_one_leaves_the_due_list(ana):
    card = a_card(ana)
    added_on = card.due_on
    assert notebook.due_cards(ana, today=added_on) == [card]
    notebook.review_card(ana, card.id, "good", today=added_on)
    assert notebook.due_cards(ana, today=added_on) == []
    assert notebook.due_cards(ana, today=added_on + timedelta(days=1)) == [card]


def test_reviewing_records_the_schedule_from_the_day_of_the_review(ana):
    card = a_card(ana)
    notebook.review_card(ana, card.id, "good", today=TODAY)
    notebook.review_card(ana, card.id, "good", today=TODAY + timedelta(days=1))
    assert (card.due_on, card.interval_days, card.streak) == (TODAY + timedelta(days=7), 6, 2)
    notebook.review_card(ana, card.id, "again", today=TODAY + timedelta(days=7))
    assert (card.due_on, card.interval_days, card.streak, card.ease) == (TODAY + timedelta(days=8), 1, 0, 230)


def test_an_unknown_answer_or_a_block_that_is_no_card_is_refused(ana):
    card = a_card(ana)
    with pytest.raises(Invalid) as refusal:
        notebook.review_card(ana, card.id, "perfect")
    assert refusal.value.key == "NOTEBOOK_GRADE_INVALID"
    note = notebook.add_note(ana, card.page_id, "A note")
    with pytest.raises(Invalid) as refusal:
        notebook.review_card(ana, note.id, "good")
    assert refusal.value.key == "NOTEBOOK_NOT_A_CARD"
    assert card.interval_days == 0


def test_only_cards_are_due_and_the_most_overdue_come_first(ana):
    late = a_card(ana, "Late?")
    early = notebook.add_card(ana, late.page_id, "Early?", "Yes")
    notebook.add_note(ana, late.page_id, "Not a card")
    notebook.review_card(ana, late.id, "good", today=TODAY - timedelta(days=1))
    notebook.review_card(ana, early.id, "good", today=TODAY - timedelta(days=3))
    assert [card.text for card in notebook.due_cards(ana, today=TODAY)] == ["Early?", "Late?"]
