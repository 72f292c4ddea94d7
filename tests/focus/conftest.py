"""Ana with a routine scheduled every day: the habit "Write" and the task "Tidy desk" are today's entries."""

import pytest

from tests.builders import a_habit, a_task, an_everyday_routine


@pytest.fixture
def entries(ana):
    return an_everyday_routine(ana, a_habit(ana, "Write"), a_task(ana, "Tidy desk"))


@pytest.fixture
def entry(entries):
    return entries[0]
