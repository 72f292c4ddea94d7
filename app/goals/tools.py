"""Tools for goals: the tree, progress, completion (XP only on request), archive and restore.

A goal can be named by id, exact name or a unique part of its name; an ambiguous name is
refused with the candidates.
"""

from datetime import date
from typing import Literal

from flask_babel import format_number
from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from pydantic import BaseModel, Field

from app.agent.registry import Proposal, pinned, tool
from app.catalogue.tools import Told, declare_entity_tools
from app.goals import services as goals
from app.goals.models import GoalStatus
from app.shared.days import today_for

GOAL_REF = "The goal's id, exact name, or a part of its name that only it has."
Term = Literal["SHORT_TERM", "MEDIUM_TERM", "LONG_TERM"]


class GoalRef(BaseModel):
    ref: str = Field(description=GOAL_REF)


class GoalList(BaseModel):
    archived: bool = Field(False, description="True to list archived goals instead of active ones.")
    search: str | None = None


class GoalNew(BaseModel):
    name: str = Field(description="2–256 characters.")
    target_value: float = Field(gt=0)
    unit: str = Field(description="What is counted, e.g. km, books, €.")
    start_date: date
    end_date: date
    current_value: float = Field(0, ge=0)
    term: Term = "MEDIUM_TERM"
    categories: list[str] = Field(default_factory=list, description="Optional category ids or exact names.")
    parent: str | None = Field(None, description="Optionally, the goal this one sits under (" + GOAL_REF + ")")
    icon: str | None = None
    description: str | None = None
    motivation: str | None = None


class GoalEdit(GoalRef):
    name: str | None = None
    target_value: float | None = Field(None, gt=0)
    unit: str | None = None
    start_date: date | None = None
    end_date: date | None = None
    current_value: float | None = Field(None, ge=0)
    term: Term | None = None
    status: Literal["NOT_STARTED", "IN_PROGRESS"] | None = None
    categories: list[str] | None = None
    icon: str | None = None
    description: str | None = None
    motivation: str | None = None


class GoalAmount(GoalRef):
    value: float = Field(1, gt=0, description="How much to add or take away (default 1).")


class GoalCompletion(GoalRef):
    done: bool = Field(True, description="True completes the goal (grants XP); False undoes a completion.")


class GoalMove(GoalRef):
    parent: str | None = Field(description="The new parent goal (" + GOAL_REF + "), or null for the top level.")


declare_entity_tools(
    goals,
    told={
        "get": Told(
            _l("Read your goals"),
            "List the person's goals (active by default) with progress, dates, status and parent.",
        ),
        "create": Told(_l("Created a goal"), "Create a goal (optionally under another goal). Returns it with its id."),
        "edit": Told(
            _l("Changed a goal"),
            "Change some fields of a goal; fields you do not send keep their value. Completion goes through "
            "completeUserGoal, moving through moveGoalUnder.",
        ),
        "delete": Told(
            _l("Deleted a goal"),
            "Delete a goal; offer archiving instead when they may want the history. Its sub-goals move up to its "
            "parent.",
            _l("Delete the goal “%(name)s” (its sub-goals, if any, move up a level)"),
        ),
    },
    nouns=("Goal", "Goals"),
    new=GoalNew,
    change=GoalEdit,
    reads=GoalList,
    listing=lambda user, arguments: goals.listing(user, archived=arguments.archived, search=arguments.search),
)


def _completion(ctx, args):
    """The goal and the XP its completion pays (or its undoing takes back); a goal already in the
    state asked for is answered at once, since nothing would change."""
    goal = goals.resolve(ctx.user, args.ref)
    if (goal.status == GoalStatus.COMPLETED) == args.done:
        return {"goal": goals.as_data(goal), "unchanged": True}
    facts = {"id": str(goal.id), "name": goal.name, "done": args.done}
    if args.done:
        xp = goals.completion_xp(goal, today_for(ctx.user))
        summary = _("Complete the goal “%(name)s”: it earns %(xp)s XP", name=goal.name, xp=format_number(xp))
    else:
        xp = goal.xp_reward or 0
        summary = _("Undo the completion of “%(name)s”: its %(xp)s XP come off again", name=goal.name,
                    xp=format_number(xp))  # fmt: skip
    return Proposal(summary, pinned(args, ref=goal.id), facts)


@tool(kind="write", label=_l("Completed a goal"), domain="goals", page="/goals", args=GoalCompletion,
      confirm=_completion)  # fmt: skip
def completeUserGoal(ctx, args):
    """Complete a goal (it grants XP) or undo a completion (the same XP comes back off). ONLY when
    the person explicitly asks for it."""
    return {"goal": goals.as_data(goals.complete(ctx.user, args.ref, done=args.done))}


@tool(kind="write", label=_l("Moved a goal forward"), domain="goals", page="/goals", args=GoalAmount)
def increaseUserGoalValue(ctx, args):
    """Add to a goal's current value (default 1). It never completes the goal by itself."""
    return {"goal": goals.as_data(goals.increase(ctx.user, args.ref, args.value))}


@tool(kind="write", label=_l("Moved a goal back"), domain="goals", page="/goals", args=GoalAmount)
def decreaseUserGoalValue(ctx, args):
    """Take from a goal's current value (default 1), never below zero."""
    return {"goal": goals.as_data(goals.decrease(ctx.user, args.ref, args.value))}


@tool(kind="write", label=_l("Archived a goal"), domain="goals", page="/goals", args=GoalRef)
def archiveUserGoal(ctx, args):
    """Archive a goal: it leaves the lists and the dashboard but keeps its history."""
    return {"goal": goals.as_data(goals.archive(ctx.user, args.ref))}


@tool(kind="write", label=_l("Restored a goal"), domain="goals", page="/goals", args=GoalRef)
def restoreUserGoal(ctx, args):
    """Bring an archived goal back."""
    return {"goal": goals.as_data(goals.restore(ctx.user, args.ref))}


@tool(kind="write", label=_l("Moved a goal in the tree"), domain="goals", page="/goals", args=GoalMove)
def moveGoalUnder(ctx, args):
    """Put a goal under another goal, or at the top level with parent null — without resending
    its other fields. A goal cannot go under itself or one of its own sub-goals."""
    return {"goal": goals.as_data(goals.move_under(ctx.user, args.ref, args.parent))}
