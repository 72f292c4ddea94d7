"""The configuration tools: read the person's settings, change some of them."""

from typing import Literal

from flask_babel import lazy_gettext as _l
from pydantic import BaseModel, Field

from app.agent.registry import tool
from app.profile import configuration, widgets


class ConfigurationChange(BaseModel):
    name: str | None = None
    phrase: str | None = Field(None, description="The dashboard's motivational phrase.")
    phrase_author: str | None = None
    theme: Literal["light", "dark", "system"] | None = None
    language: Literal["en", "pt"] | None = None
    timezone: str | None = Field(None, description="IANA, e.g. Europe/Lisbon.")
    constance_mode: Literal["ANY", "COMPLETE"] | None = Field(
        None, description="A day counts when ANY entry or when the COMPLETE routine was checked."
    )
    xp_decay: Literal["GRADUAL", "FLAT", "TIME_WINDOW"] | None = Field(None, description="XP of a late check.")
    widgets: list[str] | None = Field(
        None, description="Dashboard widgets in order, from: " + ", ".join(widgets.CATALOGUE)
    )
    focus_work_minutes: int | None = Field(None, description="Focus mode's work period, 1–120 minutes.")
    focus_break_minutes: int | None = Field(None, description="Focus mode's break, 1–60 minutes.")


def _visible(settings):
    """The settings without the email: the model never needs it."""
    return {key: value for key, value in settings.items() if key != "email"}


@tool(domain="profile", kind="read", label=_l("Read your configuration"))
def getUserConfiguration(ctx, args):
    """The person's settings (name, phrase, theme, language, time zone, constance mode, XP decay,
    widgets, Focus mode's work and break minutes), level and XP."""
    return {"configuration": _visible(configuration.settings(ctx.user)), "available_widgets": list(widgets.CATALOGUE)}


@tool(kind="write", label=_l("Changed your configuration"), domain="profile", page="/configuration",
      args=ConfigurationChange)  # fmt: skip
def updateUserConfiguration(ctx, args):
    """Change some settings; unsent ones stay."""
    return {"configuration": _visible(configuration.update(ctx.user, **args.model_dump(exclude_unset=True)))}
