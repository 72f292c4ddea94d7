"""The parts of `python -m bench.agent_eval`: the task file (tasks.py), the seeded users
(seed.py), what a user owns before and after (snapshot.py), what the task expected of it
(checks.py) and the app a conversation is held with (driver.py). docs/agent-eval.md says how
they fit."""
