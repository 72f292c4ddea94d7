"""Habits: recurring things a person wants to do, with XP and a streak."""

from sqlalchemy import Integer, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.categories.models import Category, category_link_table
from app.extensions import db
from app.shared.models import Owned
from app.shared.progress import HasStreak, HasXp

habit_categories = category_link_table("habit_categories", "habit_id", "habits")


class Habit(Owned, HasXp, HasStreak, db.Model):
    __tablename__ = "habits"

    name: Mapped[str] = mapped_column(String(256))
    description: Mapped[str | None] = mapped_column(String(256))
    motivation: Mapped[str | None] = mapped_column(String(256))
    icon: Mapped[str] = mapped_column(String(64))
    importance: Mapped[int] = mapped_column(Integer)  # 1..5
    difficulty: Mapped[int] = mapped_column(Integer)  # 1..5

    categories: Mapped[list[Category]] = relationship(secondary=habit_categories, order_by=Category.name)
