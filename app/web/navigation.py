"""The app's areas, in the order the navigation shows them.

An area whose blueprint is not built yet points at its "coming soon" page, so no link is
ever broken; when the area lands, its endpoint is filled in here.
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
    Area("routines", _l("Today"), "calendar"),
    Area("habits", _l("Habits"), "repeat"),
    Area("tasks", _l("Tasks"), "check-square", in_bottom_bar=False),
    Area("goals", _l("Goals"), "target"),
    Area("notebook", _l("Notebook"), "book", in_bottom_bar=False),
    Area("ideas", _l("Ideas"), "zap", in_bottom_bar=False),
    Area("mood", _l("Mood"), "smile", in_bottom_bar=False),
    Area("configuration", _l("Configuration"), "settings"),
)

BY_SLUG = {area.slug: area for area in AREAS}
