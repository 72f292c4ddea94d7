"""The demo account studies: one active cycle over two notebook pages, sessions logged by hand,
the first lap finished and the second one in progress."""

from app import demo
from app.study_cycles import services as study_cycles


def test_the_demo_has_an_active_cycle_with_a_lap_in_progress(demo_account):
    (cycle,) = study_cycles.active_cycles(demo_account)
    assert len(cycle.subjects) == 2
    progress = study_cycles.lap_progress(cycle)
    assert progress.lap.number >= 2 and 0 < progress.done < progress.total
    assert len(study_cycles.sessions(demo_account, 31)) == len(demo.STUDY_SESSIONS)
    assert "studyToday" in demo_account.widgets
