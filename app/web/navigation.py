"""The app's areas, in the order the navigation shows them.

An area whose blueprint is not built yet points at its "coming soon" page, so no link is
ever broken; when the area lands, its endpoint is filled in here. On phones the bottom bar holds
the daily areas and a "More" sheet holds every other one, so each area is reachable on any screen.
"""

from dataclasses import dataclass

from flask import url_for
from flask_babel import lazy_gettext as _l


@dataclass(frozen=True)
class Area:
    slug: str
    label: object
    icon: str
    endpoint: str | None = None  # None: not built yet
    in_bottom_bar: bool = True

    @property
    def url(self):
        if self.endpoint:
            return url_for(self.endpoint)
        return url_for("dashboard.coming_soon", area=self.slug)


AREAS = (
    Area("dashboard", _l("Dashboard"), "home", "dashboard.index"),
    Area("routines", _l("Routines"), "calendar", "routines.index"),
    Area("habits", _l("Habits"), "repeat", "habits.index"),
    Area("tasks", _l("Tasks"), "check-square", "tasks.index", in_bottom_bar=False),
    Area("categories", _l("Categories"), "grid", "categories.index", in_bottom_bar=False),
    Area("goals", _l("Goals"), "target", "goals.index"),
    Area("notebook", _l("Notebook"), "book", in_bottom_bar=False),
    Area("ideas", _l("Ideas"), "zap", in_bottom_bar=False),
    Area("mood", _l("Mood"), "smile", in_bottom_bar=False),
    Area("configuration", _l("Configuration"), "settings", "configuration.index", in_bottom_bar=False),
    Area("feedback", _l("Feedback"), "message-circle", "feedback.index", in_bottom_bar=False),
)

BY_SLUG = {area.slug: area for area in AREAS}
