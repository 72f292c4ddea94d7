"""The dashboard: the signed-in home. A greeting, the streak, a new account's next steps, today's
routine with check and skip in place, the widgets the person chose (each a fragment that
refreshes on its own domain), the goals ahead, and the daily briefing.
"""

from flask_babel import lazy_gettext as _l

from app.domains import Area, Domain

DOMAIN = Domain(
    "dashboard",
    Area(_l("Dashboard"), "home", "dashboard.index"),
    not_exported={
        "daily_briefings": "recomputed from the exported outcomes, mood levels and goals on the day it is opened"
    },
)
