"""The assistant: chats, turns streamed over SSE, the prompt, memory notes and the tool runtime.

A turn is started by one request (the message POST) and watched by another (the SSE GET).
Watching never starts a second model call: the first watcher claims the turn and runs it in the
background; every watcher, the first included, follows the turn's event log from where it is.
"""


def init_app(app):
    from app.agent.stream_slots import stream_slots_for
    from app.agent.turn_log import turn_log_for

    redis_url = app.config.get("REDIS_URL")
    app.extensions["turn_log"] = turn_log_for(redis_url)
    app.extensions["stream_slots"] = stream_slots_for(redis_url, app.config["AGENT_STREAMS_PER_USER"])
