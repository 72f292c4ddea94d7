"""The assistant's chats: the panel mounted in every signed-in page, its conversations and their
messages, the memory notes, the turns that write the answers and the changes waiting for the
person's confirmation. The turn's runtime (runner, stream, prompt, tool registry) is app/agent.
"""

from flask_babel import lazy_gettext as _l

from app.domains import Domain, Elsewhere

DOMAIN = Domain(
    "assistant",
    Elsewhere("the chat panel mounted in every signed-in page"),
    export={"assistant": ("chats", "chat_messages")},
    not_exported={
        "turns": "a turn is the running state of an answer; the answer is exported as a message",
        "pending_actions": "a confirmation card's state, minutes long; what the assistant proposed and what "
        "came of it are in the exported messages",
    },
    ids={"chat_id": "chats", "turn_id": "turns", "action_id": "pending_actions"},
    errors={
        "CHAT_NOT_FOUND": _l("We couldn't find that conversation. It may have been deleted."),
        "CHAT_TITLE_INVALID": _l("Give the conversation a title."),
        "TURN_NOT_FOUND": _l("We couldn't find that answer."),
        "MESSAGE_EMPTY": _l("Write a message first."),
        "MESSAGE_TOO_LONG": _l("Messages can have at most 4000 characters."),
        "NOTE_TOO_LONG": _l("This note has %(length)s characters; the limit is %(limit)s. Shorten it and save again."),
        "AI_UNAVAILABLE": _l("The assistant couldn't reach any AI model right now. Try again in a minute."),
        "AI_STREAM_INTERRUPTED": _l(
            "The answer was cut off by the AI provider. What arrived is kept below; ask again to continue."
        ),
        "AI_CONTEXT_TOO_SMALL": _l(
            "This is too long for the AI model's window: it can't hold your message together with the "
            "assistant's instructions. Send a shorter message."
        ),
        "AI_NOT_CONFIGURED": _l("The assistant isn't configured on this server yet: no AI provider has an API key."),
        "TOO_MANY_STREAMS": _l("You already have two answers in progress. Wait for one to finish, then send again."),
        "TRANSCRIPT_PERSIST_FAILED": _l(
            "The answer couldn't be saved, so it may be missing when you come back. "
            "Anything the assistant changed is shown above."
        ),
        "TIMEOUT": _l("The answer took too long and was stopped. What arrived is kept."),
        "TURN_CANCELLED": _l("Stopped."),
        "TURN_FAILED": _l("Something went wrong while answering. What arrived is kept."),
        "TURN_INTERRUPTED": _l(
            "The answer was interrupted: the server restarted while writing it. What arrived, and anything "
            "the assistant did, is kept below; ask again to continue."
        ),
        "AGENT_RATE_LIMITED": _l("You've sent a lot of messages this hour. You can send again at %(time)s."),
        "ACTION_NOT_FOUND": _l("We couldn't find that proposed change."),
        "ACTION_CHANGED": _l(
            "This changed after the assistant proposed it, so nothing was done. Ask again if you still want it."
        ),
        "ACTION_EXPIRED": _l(
            "This proposal expired, so nothing was done. Ask the assistant again if you still want it."
        ),
        "AGENT_BUDGET_SPENT": _l(
            "You've sent a lot of messages this hour, so this one was not answered. Send it again later."
        ),
    },
    catalogue=("Memory",),
)
