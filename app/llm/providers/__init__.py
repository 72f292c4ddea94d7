"""One small adapter per provider protocol, behind `ProviderAdapter`."""

from app.llm.providers.base import ProviderAdapter
from app.llm.providers.gemini import GeminiAdapter
from app.llm.providers.openai_compat import OpenAICompatAdapter

ADAPTERS: dict[str, type[ProviderAdapter]] = {
    "openai": OpenAICompatAdapter,
    "gemini": GeminiAdapter,
}

__all__ = ["ADAPTERS", "GeminiAdapter", "OpenAICompatAdapter", "ProviderAdapter"]
