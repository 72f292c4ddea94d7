"""Ana with a routine scheduled every day since yesterday: the habit "Write" and the task "Tidy desk" are
today's entries (and were yesterday's: a focus started minutes back is in it after midnight too)."""

import pytest

from tests.builders import a_habit, a_task, an_everyday_routine


@pytest.fixture
def entries(ana):
    return an_everyday_routine(ana, a_habit(ana, "Write"), a_task(ana, "Tidy desk"), since_yesterday=True)


@pytest.fixture
def entry(entries):
    return entries[0]
