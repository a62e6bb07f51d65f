"""The LLM layer: one protocol, several backends, picked by ``llm.backend``.

``create(settings)`` returns the configured :class:`LLM`; ``register_backend``
adds a backend without editing this package. Stages import only this module's
names (and :mod:`navicite.llm.base`), never a backend library.
"""

from __future__ import annotations

from collections.abc import Callable

from navicite.config import Settings
from navicite.errors import ConfigError
from navicite.llm.base import (
    LLM,
    CallOptions,
    LLMError,
    LLMInputError,
    LLMOutputError,
    LLMUnavailableError,
    Message,
    Usage,
    UsageLog,
)
from navicite.llm.core import BaseLLM, ChatRequest, Completion

BackendFactory = Callable[[Settings], LLM]

_backends: dict[str, BackendFactory] = {}


def register_backend(name: str, factory: BackendFactory) -> None:
    """Make ``llm.backend = name`` build its LLM with ``factory(settings)`` (replaces an existing one)."""
    _backends[name] = factory


def backends() -> list[str]:
    """Names of the registered backends."""
    return sorted(_backends)


def create(settings: Settings) -> LLM:
    """The LLM for ``settings.llm.backend``.

    Raises:
        ConfigError: no backend of that name.
        LLMUnavailableError: the backend cannot be set up (weights missing, bad model path).
    """
    factory = _backends.get(settings.llm.backend)
    if factory is None:
        raise ConfigError(f"llm.backend={settings.llm.backend!r} is unknown; choose one of {', '.join(backends())}")
    return factory(settings)


class NoLLM(BaseLLM):
    """``llm.backend = none``: every call raises :class:`LLMUnavailableError`, so stages take their fallback."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(backend="none", model="none", context_size=None)

    def _generate(self, request: ChatRequest) -> Completion:
        raise LLMUnavailableError("no LLM is configured (llm.backend=none); set llm.backend to 'embedded' or 'openai'")


def _embedded(settings: Settings) -> LLM:
    from navicite.llm.embedded import EmbeddedLLM

    return EmbeddedLLM(settings)


def _openai(settings: Settings) -> LLM:
    from navicite.llm.openai_compat import OpenAICompatLLM

    return OpenAICompatLLM(settings)


register_backend("embedded", _embedded)
register_backend("openai", _openai)
register_backend("none", NoLLM)

__all__ = [
    "LLM",
    "BaseLLM",
    "CallOptions",
    "LLMError",
    "LLMInputError",
    "LLMOutputError",
    "LLMUnavailableError",
    "Message",
    "Usage",
    "UsageLog",
    "backends",
    "create",
    "register_backend",
]
