"""The assistant's panel: chats, the composer, and the event stream of each answer."""

import uuid
from datetime import UTC, datetime
from functools import wraps

from flask import Blueprint, Response, current_app, render_template, request
from flask_babel import format_datetime, format_time
from flask_babel import gettext as _
from flask_login import login_required

from app.agent import registry
from app.assistant import confirmations, pending_actions, segments, stream, turn_budget
from app.assistant import services as assistant
from app.assistant.models.pending_actions import ActionState
from app.llm import current_chain
from app.llm.settings import NOT_CONFIGURED_HINT
from app.shared.errors import MESSAGES, DomainError, message_for
from app.web import markdown, privacy
from app.web.acting import acting_user
from app.web.rendering import trigger

bp = Blueprint("assistant", __name__, url_prefix="/ai/agent", template_folder="templates")


def within_budget(view):
    """Refuse a message at once when the hour's budget is spent (it is spent when the turn runs)."""

    @wraps(view)
    def checked(*args, **kwargs):
        turn_budget.check(acting_user())
        return view(*args, **kwargs)

    return checked


@bp.app_template_global()
def tool_label_for(name):
    found = registry.REGISTRY.get(name)
    return found.label if found else name


bp.add_app_template_global(message_for, "message_for")
bp.add_app_template_global(markdown.render, "render_markdown")
bp.add_app_template_global(segments.shown, "shown_segments")


@bp.app_template_filter()
def format_activity(moment):
    return format_datetime(moment, "short") if moment else ""


def _chat_view(chat, status=200, started=None):
    return render_template("assistant/_chat.html", **_shown(chat, started)), status


def _shown(chat, started=None):
    """What a chat view draws: its messages, and its turns still answering (`started`, the one
    just posted, or those the database has), each drawn live after its question instead of the
    answer row it is writing: their streams replay from the first word, so nothing shows twice."""
    if chat is None:
        return {"chat": None, "messages": [], "live": {}, "live_answers": set()}
    turns = [started] if started is not None else assistant.unfinished_turns(acting_user(), chat.id)
    return {
        "chat": chat,
        "messages": assistant.messages(acting_user(), chat.id),
        "live": {turn.question_id: turn for turn in turns},
        "live_answers": {turn.answer_id for turn in turns if turn.answer_id},
    }


@bp.app_template_global()
def assistant_configured():
    """Whether the chain has a link to answer with: without one the panel says so before anyone types."""
    return current_chain().configured


@bp.app_template_global()
def assistant_keeps_words_here():
    """Whether what the person writes stays on this server (the chain is the operator's own model,
    and nothing else is sent out), so the panel does not say it goes to a provider."""
    return privacy.kept_here(current_chain(), privacy.outbound_elsewhere(current_app.config)) is not None


@bp.get("/panel")
@login_required
def panel():
    chats = assistant.list_chats(acting_user())
    return render_template("assistant/_panel.html", chats=chats, **_shown(chats[0] if chats else None),
                           not_configured_hint=NOT_CONFIGURED_HINT)  # fmt: skip


@bp.get("/chats")
@login_required
def chats():
    return render_template("assistant/_chat_list.html", chats=assistant.list_chats(acting_user()))


@bp.get("/chats/<uuid:chat_id>")
@login_required
def open_chat(chat_id):
    return _chat_view(assistant.get_chat(acting_user(), chat_id))


@bp.post("/chats")
@login_required
def new_chat():
    """A new chat; with a `message`, its first turn starts at once (and spends the turn budget)."""
    if request.form.get("message", "").strip():
        return _first_message()
    return _chat_view(assistant.create_chat(acting_user()))


@within_budget
def _first_message():
    chat = assistant.create_chat(acting_user())
    return _start(chat.id, replace_chat=chat)


@bp.post("/chats/<uuid:chat_id>/messages")
@login_required
@within_budget
def send(chat_id):
    return _start(chat_id)


def _start(chat_id, replace_chat=None):
    """Start a turn in the chat (start_turn checks it is the user's); answer with the exchange,
    or with the whole chat view when `replace_chat` is the chat just created."""
    try:
        turn = assistant.start_turn(
            acting_user(), chat_id, request.form.get("message"), page=request.form.get("page"),
            focus_entry_id=_focus_entry(),
        )  # fmt: skip
    except DomainError as refused:
        message = refused.field_messages.get("message") or refused.message
        return render_template("assistant/_notice.html", message=message, text=request.form.get("message", "")), (
            refused.status
        )
    if replace_chat is not None:
        return _chat_view(replace_chat, started=turn)
    return render_template("assistant/_exchange.html", turn=turn)


def _focus_entry():
    try:
        return uuid.UUID(request.form["focus_entry"]) if request.form.get("focus_entry") else None
    except ValueError:
        return None


@bp.post("/chats/<uuid:chat_id>/rename")
@login_required
def rename(chat_id):
    assistant.rename_chat(acting_user(), chat_id, request.form.get("title"))
    return render_template("assistant/_chat_list.html", chats=assistant.list_chats(acting_user()))


@bp.post("/chats/<uuid:chat_id>/delete")
@login_required
def delete(chat_id):
    assistant.delete_chat(acting_user(), chat_id)
    return panel()


@bp.post("/reset")
@login_required
def reset():
    """Every chat deleted and the global note cleared ("Reset the assistant"), from the panel or
    from the configuration page."""
    assistant.reset(acting_user())
    if request.headers.get("HX-Target") == "agent-panel-body":
        return panel()
    return render_template("assistant/_notice.html", message=_("Done: the assistant starts fresh."), kind="success")


@bp.get("/turns/<uuid:turn_id>/stream")
@login_required
def watch(turn_id):
    turn = assistant.get_turn(acting_user(), turn_id)
    body = stream.watch(acting_user(), turn, _last_event_id())
    return Response(
        body,
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


def _last_event_id():
    try:
        return max(int(request.headers.get("Last-Event-ID", "0")), 0)
    except ValueError:
        return 0


@bp.post("/turns/<uuid:turn_id>/cancel")
@login_required
def cancel(turn_id):
    turn = assistant.get_turn(acting_user(), turn_id)
    assistant.cancel_turns(acting_user(), turn_id=turn.id)
    return "", 204


# Confirmation cards ------------------------------------------------------------------------


@bp.app_template_global()
def pending_action(action_id):
    """The action a card in a chat shows (the server wrote its id into the answer), or None."""
    return pending_actions.find(action_id)


@bp.app_template_global()
def action_state(action):
    return pending_actions.effective_state(action).value


@bp.app_template_global()
def why_not_done(action):
    """Why a confirmed action could not be done, for the person: the refusal's own message, or
    an apology when it failed unexpectedly (the model reads the raw outcome instead)."""
    outcome = action.outcome or {}
    if outcome.get("error") in MESSAGES:
        return outcome.get("message") or message_for(outcome["error"])
    return _("We hit an error on our side. Your data is safe; please try again.")


@bp.app_template_global()
def confirmation_minutes():
    return current_app.config["AGENT_CONFIRMATION_MINUTES"]


@bp.post("/actions/<uuid:action_id>/confirm")
@login_required
def confirm_action(action_id):
    """The person's Confirm: performs the proposed change once (a replay finds it decided)."""
    return _decided(confirmations.confirm(acting_user(), action_id))


@bp.post("/actions/<uuid:action_id>/cancel")
@login_required
def cancel_action(action_id):
    return _decided(confirmations.cancel(acting_user(), action_id))


def _decided(decision):
    """The card as it now stands, with a toast saying what the click did: 200 when it decided the
    action, 409 when the action had been decided before or had expired (nothing was done now)."""
    action, state = decision.action, decision.state
    label = tool_label_for(action.tool)
    if decision.decided and state == ActionState.CONFIRMED:
        toast, kind = str(label), "success"
    elif decision.decided and state == ActionState.CANCELLED:
        toast, kind = _("Cancelled: nothing was changed."), "info"
    elif decision.decided:  # FAILED: refused when it ran
        toast, kind = why_not_done(action), "error"
    else:
        toast, kind = ALREADY[state](), "info"
    trigger("toast", {"message": toast, "kind": kind})
    status = 200 if decision.decided and state != ActionState.FAILED else 409
    return render_template("assistant/_action_decided.html", action=action, label=label), status


ALREADY = {  # a click on a card decided before (another tab, a double click, a replayed request)
    ActionState.CONFIRMED: lambda: _("Already done: this change was confirmed before."),
    ActionState.CANCELLED: lambda: _("This change was cancelled before: nothing was done."),
    ActionState.EXPIRED: lambda: message_for("ACTION_EXPIRED"),
    ActionState.FAILED: lambda: _("This change was tried before and could not be done."),
    ActionState.INTERRUPTED: lambda: _("This change was confirmed before, but we were interrupted while doing it."),
}


@bp.errorhandler(turn_budget.BudgetSpent)
def too_many_turns(spent):
    """429 with Retry-After and a message that says when the next message can go."""
    seconds = max(int((spent.reset_at - datetime.now(UTC)).total_seconds()) + 1, 1)
    message = message_for("AGENT_RATE_LIMITED", time=format_time(spent.reset_at, "short"))
    body = render_template("assistant/_notice.html", message=message, text=request.form.get("message", ""))
    return Response(body, status=429, headers={"Retry-After": str(seconds)})
