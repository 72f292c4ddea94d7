"""Tools for Focus mode: the micro-tasks (small steps) of a routine entry of today, and the day view.

Steps hang off the routine ENTRY id (getDayView, getTodayRoutine), never the habit's or task's.
No tool guesses the entry: a call without one is refused, naming the entry open in Focus mode.
No tool writes, lists or deletes timer cycles, nor starts or stops the timer: only the timer
records a cycle, when one runs to its end. The day view reads each entry's timer as it stands.
"""

from flask_babel import gettext as _
from flask_babel import lazy_gettext as _l
from pydantic import BaseModel, Field

from app.agent.registry import Proposal, pinned, tool
from app.focus import services as focus

ENTRY = "The routine ENTRY id of today (getDayView or getTodayRoutine), never a habit or task id."
STEP = "The micro-task's id, from listMicroTasks."


class EntryRef(BaseModel):
    entry_id: str | None = Field(None, description=ENTRY)


class StepNew(EntryRef):
    text: str = Field(description="The step, in the person's words (at most 200 characters).")


class StepCheck(BaseModel):
    micro_task_id: str = Field(description=STEP)
    done: bool = Field(True, description="False marks it not done.")


class StepPin(BaseModel):
    micro_task_id: str = Field(description=STEP)
    pinned: bool = Field(True, description="False unpins the name.")


class StepRef(BaseModel):
    micro_task_id: str = Field(description=STEP)


class StepOrder(EntryRef):
    micro_task_ids: list[str] = Field(description="Every micro-task id of the entry today, in the new order.")


def _entry(ctx, args):
    """The entry the call names; none is refused, naming the one open in Focus mode."""
    if not (args.entry_id or "").strip():
        focus.refuse_missing_entry(ctx.user, ctx.focus_entry_id)
    return args.entry_id


@tool(domain="focus", kind="read", label=_l("Read the steps"), args=EntryRef)
def listMicroTasks(ctx, args):
    """Today's micro-tasks of a routine entry: id, text, done, pinned. This read also WRITES: it
    first adds to today's list every pinned name that is missing."""
    return focus.list_steps(ctx.user, _entry(ctx, args)).to_dict()


@tool(domain="focus", kind="write", label=_l("Added a step"), page="/focus", args=StepNew)
def addMicroTask(ctx, args):
    """Add a micro-task at the end of today's list of a routine entry; returns its id."""
    step, steps = focus.add(ctx.user, _entry(ctx, args), args.text)
    return {"id": str(step.id), **steps.to_dict()}


@tool(domain="focus", kind="write", label=_l("Marked a step"), page="/focus", args=StepCheck)
def checkMicroTask(ctx, args):
    """Mark a micro-task of today done (or not done)."""
    step, steps = focus.check(ctx.user, args.micro_task_id, args.done)
    return steps.step_data(step)


@tool(domain="focus", kind="write", label=_l("Pinned a step"), page="/focus", args=StepPin)
def pinMicroTask(ctx, args):
    """Pin (or unpin) a micro-task's NAME within its entry: a pinned name comes back on the entry
    every day, wherever it was pinned."""
    step, steps = focus.pin(ctx.user, args.micro_task_id, args.pinned)
    return steps.step_data(step)


def _step_deletion(ctx, args):
    """The step a delete removes, and whether its pinned name goes with it."""
    step, is_pinned = focus.step_to_delete(ctx.user, args.micro_task_id)
    if is_pinned:
        summary = _("Delete the step “%(text)s”; it is pinned, so it stops coming back on other days", text=step.text)
    else:
        summary = _("Delete the step “%(text)s” of today", text=step.text)
    return Proposal(summary, pinned(args), {"id": str(step.id), "text": step.text, "pinned": is_pinned})


@tool(domain="focus", kind="write", label=_l("Deleted a step"), page="/focus", args=StepRef, confirm=_step_deletion)
def deleteMicroTask(ctx, args):
    """Delete a micro-task of today. Deleting a pinned one also stops keeping its name on other
    days."""
    return focus.delete(ctx.user, args.micro_task_id).to_dict()


@tool(domain="focus", kind="write", label=_l("Reordered the steps"), page="/focus", args=StepOrder)
def reorderMicroTasks(ctx, args):
    """Put today's micro-tasks of an entry in a new order (send every id once)."""
    return focus.reorder(ctx.user, _entry(ctx, args), args.micro_task_ids).to_dict()


@tool(domain="focus", kind="read", label=_l("Read your focus day"))
def getDayView(ctx, args):
    """Today's routine entries (entry ids) with status, micro-tasks done of total, the number
    of completed timer cycles and each entry's timer (RUNNING, PAUSED or STOPPED; its phase and
    the seconds left). Read-only: only the person runs the timer, and it alone records cycles."""
    return focus.day_view(ctx.user).to_dict()
