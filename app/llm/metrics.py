"""Prometheus metrics of the chain (exposed on `/metrics` by the app).

Labels are link names and outcome words only: bounded, and never anything about the user.
Attempt outcomes: `ok`, a failure kind (`rate_limited`, `timeout`, ...), `interrupted`,
`skipped_cooldown`, or `cancelled` (the caller closed the stream; counted neither ok nor error).
"""

from __future__ import annotations

from prometheus_client import Counter, Histogram

ATTEMPTS = Counter("beyou_llm_attempts", "Model calls tried per link, by outcome", ["link", "outcome"])
FALLBACKS = Counter("beyou_llm_fallbacks", "Moves to the next link before any output", ["from_link", "kind"])
EXHAUSTED = Counter("beyou_llm_exhausted", "Model calls for which every link failed")
COOLDOWNS = Counter("beyou_llm_cooldowns", "Cooldowns entered, by link and failure kind", ["link", "kind"])
# Which of a provider's limits a refusal named: "per-minute requests", "per-day tokens", "per-minute
# input tokens", "per-day", "unspecified limit"... (a few words each, never the provider's quota id).
LIMITS = Counter("beyou_llm_limits_hit", "Provider limits hit, by link and which limit", ["link", "limit"])
FIRST_TOKEN = Histogram(
    "beyou_llm_time_to_first_token_seconds",
    "From the request to the first text delta or tool call",
    ["link"],
    buckets=(0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60),
)
CALL_TIME = Histogram(
    "beyou_llm_call_seconds",
    "From the request to the end of a successful call",
    ["link"],
    buckets=(0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120),
)
# A link answered, but with nothing the schema asked for could be read from (a structured call).
UNUSABLE = Counter("beyou_llm_unusable_answers", "Answers a link gave that could not be read as asked", ["link"])
TOKENS = Counter("beyou_llm_tokens", "Tokens reported by the provider", ["link", "direction"])
