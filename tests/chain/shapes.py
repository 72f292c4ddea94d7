"""Tool argument and answer models shared by the chain's tests."""

from pydantic import BaseModel, Field


class Category(BaseModel):
    name: str
    colour: str = "blue"


class HabitArgs(BaseModel):
    name: str = Field(description="What the habit is called")
    importance: int | None = Field(default=None, ge=1, le=5)
    category: Category | None = None


class NoArgs(BaseModel):
    pass


class HabitSuggestion(BaseModel):
    name: str
    importance: int
