"""What one model call of a turn carries — and nothing more.

The system prompt (prompts/agent.md): its fixed text (with the rules of the parts of the app whose
toolsets the round carries) and the icon catalogue (when a tool takes an icon) first, then what is
the person's and the turn's (their display name and language, today's date in their time zone, the
page they wrote from, the two memory notes), so that a server that keeps the prompt it read last
(llama.cpp reuses the longest common prefix) reads only those again; then the chat's last 20
messages with their tool calls and results, and the new message. No email, no password hash,
nothing of anyone else.

The request is a `Trimmable`: a link with a small window drops the oldest history and the tools
the turn's messages do not need first (app/llm/windows.py), never the turn's own messages, and a
link that takes no tools gets the prompt that says the model cannot act.

A change the model proposed for the person's confirmation (a delete, a check that pays XP) is
sent as what came of it: the tool result that said "awaiting confirmation" reads, from the next
round on, whether the person confirmed (with the tool's answer), cancelled, let it expire, or
whether it failed when it ran.
"""

import json
import logging
from functools import cache
from pathlib import Path

from jinja2 import Environment, StrictUndefined

from app.agent import toolsets
from app.assistant import confirmations, pending_actions
from app.assistant import services as assistant
from app.assistant.models.pending_actions import ActionState
from app.llm import Message, PromptPieces, Trimmable, current_chain
from app.shared import icons
from app.shared.days import today_for

log = logging.getLogger(__name__)

PROMPTS = Path(__file__).resolve().parents[2] / "prompts"
LANGUAGE_NAMES = {"en": "English", "pt": "Portuguese (Portugal/Brazil, as the person writes)"}
WINDOW = 20


@cache
def _template():
    environment = Environment(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=True)
    return environment.from_string((PROMPTS / "agent.md").read_text(encoding="utf-8"))


def _quoted(text, empty="(none yet)"):
    """User- or model-written text goes in quoted, as data."""
    return json.dumps(text, ensure_ascii=False) if text else empty


def system_prompt(user, chat, turn, can_act=True, tools=None):
    """The prompt as its rendered pieces (see PromptPieces): the fixed text is shared by every turn.
    Without `can_act`, for a model that takes no tools: it says so, and what the person can do.
    With the round's `tools`, a part of the app's rules only when its toolset is in the round, and
    the icon catalogue only when a tool takes an icon: on /habits that is 1.3k tokens fewer for a
    CPU model to read and for a small one to get lost in (None: every part, as for a reader)."""
    today = today_for(user)
    domains = None if tools is None else {tool.domain for tool in tools}
    takes_an_icon = tools is None or any("icon" in tool.args_model.model_fields for tool in tools)
    pieces = _template().generate(
        can_act=can_act,
        carries=lambda *names: domains is None or not domains.isdisjoint(names),
        name=_quoted(user.name),
        language_name=LANGUAGE_NAMES.get(user.language, "English"),
        page=_quoted(turn.page, empty="(unknown)"),
        focus_entry=str(turn.focus_entry_id) if turn.focus_entry_id else None,
        today=today.isoformat(),
        weekday=today.strftime("%A"),
        timezone=user.timezone,
        global_note=_quoted(user.assistant_note),
        chat_note=_quoted(chat.note),
        icons=icons.catalogue_for_prompt() if takes_an_icon else "",
    )
    return PromptPieces(tuple(pieces))


def history(turn):
    """The last 20 messages before the turn's own, as portable messages, tool rounds included.
    A message whose stored transcript does not read as one is left out whole (its tool calls
    with their results), so no odd row stops every later turn of its chat."""
    messages = []
    for transcript in assistant.transcripts_before(turn, WINDOW):
        try:
            messages.extend([Message.model_validate(item) for item in transcript])
        except (TypeError, ValueError):
            log.warning("a stored transcript in chat %s does not read as messages: left out", turn.chat_id)
    return messages


def with_decisions(chat, messages):
    """The messages with each proposal's tool result telling what came of it, once the person
    decided (or it expired); one still waiting keeps saying so, with what the model must not claim."""
    proposed = {}
    for index, message in enumerate(messages):
        if message.role == "tool" and "awaiting_confirmation" in message.content:
            try:
                awaiting = json.loads(message.content).get("awaiting_confirmation")
            except (ValueError, AttributeError):
                continue
            if isinstance(awaiting, dict) and "id" in awaiting:
                proposed[index] = str(awaiting["id"])
    actions = pending_actions.of_ids(chat.user_id, list(proposed.values()))
    decided = list(messages)
    for index, action_id in proposed.items():
        action = actions.get(action_id)
        if action is not None and pending_actions.effective_state(action) != ActionState.PENDING:
            told = confirmations.told_the_model(action)
            decided[index] = messages[index].model_copy(update={"content": json.dumps(told, ensure_ascii=False)})
    return decided


def request_for(user, chat, turn, this_turn):
    """The request for the next model call: history, then this turn's messages so far (always
    sent), and the tools the turn needs with their tiers (the core, the page's toolsets and those
    its calls opened). The prompt without tools is rendered only for a chain with a link that
    takes none."""
    messages = with_decisions(chat, [*history(turn), *this_turn])
    tiered = toolsets.tiers_for(turn.page, messages)
    toolless = any(link.max_tools == 0 for link in current_chain().settings.links)
    return Trimmable(
        system=system_prompt(user, chat, turn, tools=[tool for tool, _tier in tiered]),
        messages=messages,
        tools=[tool.spec for tool, _tier in tiered],
        kept=len(this_turn),
        tool_tiers=tuple(tier for _tool, tier in tiered),
        system_without_tools=system_prompt(user, chat, turn, can_act=False) if toolless else None,
    )
