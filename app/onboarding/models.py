"""The onboarding wizard's state: one row per account, so it resumes where it was on any device.

`saved` is the wizard's record of what it has already created, one batch at a time (written in
the same commit as the batch): a retried or double-clicked step reads it, and the account's own
rows, and never creates a name twice.
"""

import enum

from sqlalchemy import JSON, Enum, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.extensions import db
from app.shared.models import Owned


class OnboardingStep(enum.StrEnum):
    CATEGORIES = "CATEGORIES"
    ITEMS = "ITEMS"  # habits and tasks
    ROUTINE = "ROUTINE"
    GOALS = "GOALS"
    SUMMARY = "SUMMARY"


class OnboardingStatus(enum.StrEnum):
    ACTIVE = "ACTIVE"
    FINISHED = "FINISHED"
    SKIPPED = "SKIPPED"


class OnboardingRun(Owned, db.Model):
    __tablename__ = "onboarding_runs"
    __table_args__ = (UniqueConstraint("user_id", name="one_onboarding_per_user"),)
    owner_indexed = False  # one_onboarding_per_user starts with the owner

    step: Mapped[OnboardingStep] = mapped_column(
        Enum(OnboardingStep, native_enum=False, length=16), default=OnboardingStep.CATEGORIES
    )
    status: Mapped[OnboardingStatus] = mapped_column(
        Enum(OnboardingStatus, native_enum=False, length=16), default=OnboardingStatus.ACTIVE
    )
    # [{"step", "said", "suggested"}]: what the person asked and what came back, step by step.
    history: Mapped[list] = mapped_column(JSON, default=list)
    # The current step's cleaned suggestions, waiting to be edited, dropped or accepted.
    suggestions: Mapped[dict | None] = mapped_column(JSON)
    said: Mapped[str | None] = mapped_column(String(1000))  # the person's words for the current step
    # {"categories": [name], "habits": [name], "tasks": [name], "routines": [name], "goals": [name]}
    saved: Mapped[dict] = mapped_column(JSON, default=dict)
