"""Ana's notebook: the topic Biology with the pages Cells (holding Mitosis) and Genetics, and a
cycle over Cells and Genetics: 60 minutes on Monday and Wednesday, blocks of at most 30."""

from datetime import UTC, datetime

import pytest

from app.notebook import services as notebook
from app.study_cycles import services as study_cycles

# A Wednesday, noon in Lisbon (Ana's time zone).
NOW = datetime(2026, 3, 11, 12, 0, tzinfo=UTC)


@pytest.fixture
def biology(ana):
    return notebook.create_topic(ana, "Biology")


@pytest.fixture
def cells(ana, biology):
    return notebook.create_page(ana, biology.id, "Cells")


@pytest.fixture
def mitosis(ana, biology, cells):
    return notebook.create_page(ana, biology.id, "Mitosis", parent_id=cells.id)


@pytest.fixture
def genetics(ana, biology):
    return notebook.create_page(ana, biology.id, "Genetics")


def week(**days):
    return {study_cycles.weekday_from(name): {"minutes": minutes} for name, minutes in days.items()}


def configuration(*subjects, name="Exams", days=None, largest_block=30, default_mode="TIME"):
    return {
        "name": name,
        "days": days if days is not None else week(monday=60, wednesday=60),
        "subjects": [
            subject if isinstance(subject, dict) else {"page": str(subject.id), "importance": 3, "mastery": 3}
            for subject in subjects
        ],
        "largest_block": largest_block,
        "default_mode": default_mode,
    }


@pytest.fixture
def cycle(ana, cells, genetics):
    return study_cycles.create_cycle(ana, configuration(cells, genetics))
