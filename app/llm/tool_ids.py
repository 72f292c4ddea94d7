"""Tool-call ids each provider accepts.

A transcript keeps the id the answering provider chose. When it continues on another link the
id is rewritten to that provider's rule, deterministically, so a call and its result (rewritten
separately) still match. Ids that already obey the rule pass through untouched.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import string

_ALPHANUMERIC = string.ascii_letters + string.digits
_MISTRAL_ID = re.compile(r"[A-Za-z0-9]{9}")
_COMMON_ID = re.compile(r"[A-Za-z0-9_\-]{1,64}")


def mistral_id(portable_id: str) -> str:
    """Mistral wants exactly 9 characters from [a-zA-Z0-9]."""
    if _MISTRAL_ID.fullmatch(portable_id):
        return portable_id
    return _alphanumeric_digest(portable_id, 9)


def common_id(portable_id: str) -> str:
    """Most OpenAI-compatible servers take any short token-like id."""
    if _COMMON_ID.fullmatch(portable_id):
        return portable_id
    return "call_" + _alphanumeric_digest(portable_id, 24)


def new_call_id() -> str:
    """An id for a call whose provider gave none (Gemini often does not)."""
    return "call" + "".join(secrets.choice(_ALPHANUMERIC) for _ in range(20))


def _alphanumeric_digest(value: str, length: int) -> str:
    number = int.from_bytes(hashlib.sha256(value.encode()).digest(), "big")
    chars = []
    for _ in range(length):
        number, index = divmod(number, len(_ALPHANUMERIC))
        chars.append(_ALPHANUMERIC[index])
    return "".join(chars)
