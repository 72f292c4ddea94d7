"""The demo account opens Focus mode on a day that already has steps, some pinned, some done."""

from app import demo
from app.focus import services as focus


def test_the_demo_s_entries_of_today_have_steps_with_pinned_ones(demo_account):
    with_steps = [entry for entry in focus.day_view(demo_account).entries if entry.steps_total]
    assert with_steps, "today's routine holds an entry with steps"
    steps = focus.list_steps(demo_account, with_steps[0].entry.entry_id)
    assert any(steps.is_pinned(step) for step in steps.steps)
    assert [step.text for step in steps.steps] == [text for text, *_ in demo.FOCUS_STEPS[steps.entry.item.name]]
