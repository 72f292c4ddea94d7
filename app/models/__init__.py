"""SQLAlchemy models, one module per domain. Importing this package registers every table."""

from app.models.agent import Chat, ChatMessage, Turn
from app.models.categories import Category
from app.models.checks import DayCloseMark, EntryCheck
from app.models.feedback import Feedback, FeedbackKind, FeedbackStatus
from app.models.goals import Goal, GoalStatus, GoalTerm
from app.models.habits import Habit
from app.models.history import DayOutcome, Outcome, OwnerType, XpDay
from app.models.routines import Routine, RoutineEntry, RoutineKind, RoutineSection, ScheduleDay
from app.models.tasks import Task
from app.models.user import ConstanceMode, User, UserSession, XpDecay

__all__ = [
    "Category",
    "Chat",
    "ChatMessage",
    "ConstanceMode",
    "DayCloseMark",
    "DayOutcome",
    "EntryCheck",
    "Feedback",
    "FeedbackKind",
    "FeedbackStatus",
    "Goal",
    "GoalStatus",
    "GoalTerm",
    "Habit",
    "Outcome",
    "OwnerType",
    "Routine",
    "RoutineEntry",
    "RoutineKind",
    "RoutineSection",
    "ScheduleDay",
    "Task",
    "Turn",
    "User",
    "UserSession",
    "XpDay",
    "XpDecay",
]
