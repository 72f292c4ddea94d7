"""The user's today: their local date in their own time zone, wherever "today" is asked for
(checks, streaks, the agent's prompt, the briefing). Timestamps are stored in UTC."""

from datetime import date, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


def today_for(user) -> date:
    """The user's local date: "today" everywhere (checks, streaks, the agent prompt)."""
    return datetime.now(user_zone(user)).date()


def user_zone(user):
    try:
        return ZoneInfo(user.timezone or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")
