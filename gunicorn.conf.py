"""gunicorn's hooks for the Procfile's web process (its flags stay on the Procfile's line).

- `on_starting` refuses, in production, more than one worker process without BEYOU_REDIS_URL.
  Rate limits, stream slots and the turns' live event logs live in each process's memory without
  Redis, so with two workers "30 messages an hour" and "two answers at once" would hold per
  process — the third stream and the 31st message get through — and a reconnect that lands on
  the other worker would see a running turn only from the database. A warning would scroll by
  unread; a refusal is fixed in a minute (set BEYOU_REDIS_URL, or WEB_CONCURRENCY=1).
- `post_worker_init` starts the worker's lease keeper (it renews the leases of the turns this
  worker runs and ends abandoned ones) and makes SIGTERM end the worker's running turns as
  INTERRUPTED with their partial answers, within the graceful timeout.
  Last, it freezes the objects the built app holds (`app.freeze_startup_objects`): the garbage
  collector's full passes no longer walk them during requests.
- `worker_int` (a quick shutdown) and `worker_exit` end whatever still runs, the same way.
"""

import _thread
import signal

from app import freeze_startup_objects
from app.config import profile


def more_workers_than_memory_can_share(workers, settings):
    """Why this server must not start, or None: several processes without a shared store."""
    if settings.ENV_NAME == "production" and workers > 1 and not settings.REDIS_URL:
        return (
            f"{workers} worker processes need BEYOU_REDIS_URL in production: without Redis every "
            "process keeps its own rate limits and stream slots, so the per-user limits would not "
            "hold. Set BEYOU_REDIS_URL, or run one worker (WEB_CONCURRENCY=1)."
        )
    return None


def on_starting(server):
    refusal = more_workers_than_memory_can_share(server.cfg.workers, profile())
    if refusal:
        raise RuntimeError(refusal)


def post_worker_init(worker):
    from app.assistant import runner

    runner.keep_leases(worker.wsgi, resident=True)
    previous = signal.getsignal(signal.SIGTERM)

    def stop(signum, frame):
        previous(signum, frame)  # gunicorn's: stop accepting, let open requests finish
        # Not threading.Thread().start(): it waits for the thread to start, which gevent refuses
        # inside a signal handler; start_new_thread returns at once (a greenlet under gevent).
        _thread.start_new_thread(runner.stop_running_turns, ())

    signal.signal(signal.SIGTERM, stop)
    signal.siginterrupt(signal.SIGTERM, False)
    freeze_startup_objects()


def worker_int(worker):
    from app.assistant import runner

    runner.stop_running_turns(grace=0)


def worker_exit(server, worker):
    from app.assistant import runner

    runner.stop_running_turns(grace=0)
