"""The dashboard widgets a user can choose and order (Configuration → Dashboard widgets).

Ids keep the original clients' spelling, so exports and the assistant speak the same words.
Later areas (mood, study, calendar) add their widget here when they land.
"""

from flask_babel import lazy_gettext as _l

CATALOGUE = {
    "dailyProgress": _l("Daily progress"),
    "levelProgress": _l("Level progress"),
    "constance": _l("Constance"),
    "constanceHeatmap": _l("Constance heatmap"),
    "categoryBalance": _l("Category balance"),
    "betterArea": _l("Best area"),
    "worstArea": _l("Area to improve"),
    "fastTips": _l("Quick tips"),
    "moodWeek": _l("Mood week"),
    "studyToday": _l("Study today"),
    "calendarToday": _l("Today's calendar"),
}

DEFAULT = ["dailyProgress", "levelProgress", "constance", "constanceHeatmap"]
