"""Wire-level fake model providers: the real SDKs talk HTTP to them, nothing is patched."""

from tests.fakes.script import FakeCall, Reply
from tests.fakes.server import FakeProviders, RecordedRequest

__all__ = ["FakeCall", "FakeProviders", "RecordedRequest", "Reply"]
