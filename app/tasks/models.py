"""Tasks: one-off or occasional things to do. They earn no XP of their own."""

from datetime import date

from sqlalchemy import Boolean, Date, Integer, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.categories.models import Category, category_link_table
from app.extensions import db
from app.shared.models import Owned
from app.shared.progress import HasStreak

task_categories = category_link_table("task_categories", "task_id", "tasks")


class Task(Owned, HasStreak, db.Model):
    __tablename__ = "tasks"

    name: Mapped[str] = mapped_column(String(256))
    description: Mapped[str | None] = mapped_column(String(256))
    icon: Mapped[str] = mapped_column(String(64))
    importance: Mapped[int] = mapped_column(Integer)  # 1..5
    difficulty: Mapped[int] = mapped_column(Integer)  # 1..5
    one_time: Mapped[bool] = mapped_column(Boolean, default=False)
    # A one-time task checked on this (local) day is removed after that day ends.
    done_on: Mapped[date | None] = mapped_column(Date)

    categories: Mapped[list[Category]] = relationship(secondary=task_categories, order_by=Category.name)
