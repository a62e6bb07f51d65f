"""The embedded backend: llama.cpp in this process, through xllamacpp.

One model instance per process: every :class:`EmbeddedLLM` with the same model
file and runtime settings shares one xllamacpp ``Server`` (built under a lock;
loading takes about a second). xllamacpp queues requests itself; the number of
parallel slots equals ``llm.concurrency``, and each slot gets the full
``llm.context_size``.

xllamacpp always starts llama.cpp's HTTP front end. It is bound to a Unix socket
in a private temporary folder instead of a TCP port, so nothing listens on the
network; the socket also gives us llama.cpp's exact token counts.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from navicite.config import Settings
from navicite.llm.base import LLMError, LLMInputError, LLMOutputError, LLMUnavailableError, Message
from navicite.llm.cache import CACHE_FILE_NAME, AnswerCache
from navicite.llm.core import BaseLLM, ChatRequest, Completion, Defaults, pump_callback_stream
from navicite.llm.weights import resolve_model
from navicite.llm.wire import chat_body, completion_from, stream_pieces


@dataclass(frozen=True)
class RuntimeKey:
    """What makes two embedded models the same loaded instance."""

    path: str
    context_size: int
    threads: int
    parallel: int
    #: A reader of hidden states (llama.cpp's embedding mode, last-token pooling), not a chat model.
    hidden_states: bool = False


class LoadedModel:
    """An xllamacpp server for one model file, and a client for its private socket."""

    def __init__(self, key: RuntimeKey) -> None:
        try:
            import xllamacpp
        except ImportError:
            raise LLMUnavailableError(
                "the embedded backend needs the xllamacpp package: pip install xllamacpp, "
                "or use an OpenAI-compatible server (-s llm.backend=openai)"
            ) from None
        import httpx

        self.key = key
        self._socket_dir = tempfile.mkdtemp(prefix="navicite-llm-")
        socket_path = os.path.join(self._socket_dir, "llama.sock")
        params = xllamacpp.CommonParams()
        params.model.path = key.path
        params.n_ctx = key.context_size * key.parallel
        params.n_parallel = key.parallel
        params.cpuparams.n_threads = key.threads
        params.cpuparams_batch.n_threads = key.threads
        params.hostnames = [socket_path]
        params.n_threads_http = 1
        params.verbosity = -1  # llama.cpp logs every step to stderr otherwise
        params.warmup = False
        if key.hidden_states:
            params.embedding = True
            params.pooling_type = xllamacpp.llama_pooling_type.LLAMA_POOLING_TYPE_LAST
        try:
            self.server = xllamacpp.Server(params)
        except Exception as exc:
            shutil.rmtree(self._socket_dir, ignore_errors=True)
            raise LLMUnavailableError(
                f"llama.cpp could not load {key.path} ({exc}); check that llm.model names a valid GGUF file "
                "and that there is enough memory for llm.context_size"
            ) from None
        self.http = httpx.Client(transport=httpx.HTTPTransport(uds=socket_path), base_url="http://llama", timeout=60.0)

    def count_tokens(self, messages: list[Message]) -> int:
        """Exact prompt tokens of ``messages`` under the model's chat template."""
        response = self.http.post(
            "/v1/chat/completions/input_tokens", json={"messages": [{"role": m.role, "content": m.content} for m in messages]}
        )
        response.raise_for_status()
        return int(response.json()["input_tokens"])

    def render(self, messages: list[Message]) -> str:
        """``messages`` laid out by the model's own chat template, up to where its reply starts."""
        response = self.http.post("/apply-template", json={"messages": [{"role": m.role, "content": m.content} for m in messages]})
        response.raise_for_status()
        return str(response.json()["prompt"])

    def close(self) -> None:
        """Stop the server and remove its socket folder."""
        self.http.close()
        del self.server
        shutil.rmtree(self._socket_dir, ignore_errors=True)


_loaded: dict[RuntimeKey, LoadedModel] = {}
_slots: dict[RuntimeKey, threading.BoundedSemaphore] = {}
_loaded_lock = threading.Lock()


def shared_slots(key: RuntimeKey) -> threading.BoundedSemaphore:
    """One concurrency bound per loaded model, however many EmbeddedLLM objects use it."""
    with _loaded_lock:
        return _slots.setdefault(key, threading.BoundedSemaphore(key.parallel))


def loaded_model(key: RuntimeKey) -> LoadedModel:
    """The process's instance for ``key``, loaded on first use."""
    with _loaded_lock:
        model = _loaded.get(key)
        if model is None:
            model = _loaded[key] = LoadedModel(key)
        return model


def unload_models() -> None:
    """Close every model this process has loaded; the next call loads it afresh.

    For benchmarks that ask many questions in one process: llama.cpp keeps earlier prompts in
    its slot and in a RAM prompt cache, so an answer would start from another answer's prefix.
    Unloaded, each answer starts with an empty cache and pays the load, as a fresh ``navicite
    ask`` does. Only between answers: an ``EmbeddedLLM`` in use keeps no handle on the model.
    """
    with _loaded_lock:
        models = list(_loaded.values())
        _loaded.clear()
    for model in models:
        model.close()


class EmbeddedLLM(BaseLLM):
    """Chat with a GGUF model in-process (default: Qwen2.5-Coder-1.5B-Instruct Q4_K_M)."""

    supports_schema = True

    def __init__(self, settings: Settings, notify: Callable[[str], None] | None = None) -> None:
        llm = settings.llm
        path = resolve_model(llm.model, notify, revision=llm.revision)
        super().__init__(
            backend="embedded",
            model=llm.model if not Path(llm.model).suffix == ".gguf" else path.name,
            defaults=Defaults(temperature=llm.temperature, max_tokens=llm.max_tokens, seed=llm.seed),
            cache=AnswerCache(settings.cache_dir / CACHE_FILE_NAME) if llm.cache else None,
            concurrency=llm.concurrency,
            context_size=llm.context_size,
        )
        self.settings = settings
        self.threads = llm.threads
        self.path = path
        self._key = RuntimeKey(str(path), llm.context_size, llm.threads, llm.concurrency)
        self._slots = shared_slots(self._key)

    @property
    def runtime(self) -> LoadedModel:
        """The loaded model (loads it on first use)."""
        return loaded_model(self._key)

    def count_tokens(self, messages: list[Message]) -> int:
        """Exact prompt tokens, from llama.cpp's tokenizer and chat template."""
        return self.runtime.count_tokens(messages)

    def last_hidden_state(self, messages: list[Message], reply_start: str = "") -> list[float]:
        """The model's final hidden state at the last token of ``messages`` and ``reply_start``
        (the opening of its reply), read in a second instance of the same file in embedding
        mode (L2-normalised, as llama.cpp returns it): the vector the model picks its next word
        from. Not cached here.

        Raises:
            LLMError: llama.cpp refused the input (too long for the context, say).
        """
        key = RuntimeKey(self._key.path, self._key.context_size, self._key.threads, 1, hidden_states=True)
        reader = loaded_model(key)
        with shared_slots(key):
            result = reader.server.handle_embeddings({"input": reader.render(messages) + reply_start})
        if not isinstance(result, dict) or "data" not in result:
            error = result.get("error") if isinstance(result, dict) else None
            raise LLMError(f"llama.cpp gave no hidden state: {(error or {}).get('message', result)}")
        return [float(v) for v in result["data"][0]["embedding"]]

    def _generate(self, request: ChatRequest) -> Completion:
        result = self.runtime.server.handle_chat_completions({**chat_body(request, stream=False), "cache_prompt": True})
        _raise_for_error(result, request)
        return completion_from(result)

    def _generate_stream(self, request: ChatRequest) -> Iterator[str | Completion]:
        server = self.runtime.server
        body = {**chat_body(request, stream=True), "cache_prompt": True}
        chunks = pump_callback_stream(lambda callback: server.handle_chat_completions(body, callback))
        yield from stream_pieces(chunks, check=lambda chunk: _raise_for_error(chunk, request))


def _raise_for_error(result: Any, request: ChatRequest) -> None:
    if not isinstance(result, dict) or "error" not in result:
        return
    error = result["error"] or {}
    message = error.get("message", str(error))
    if error.get("type") == "exceed_context_size_error":
        raise LLMInputError(
            f"the prompt has {error.get('n_prompt_tokens')} tokens, more than the model's context of "
            f"{error.get('n_ctx')} (llm.context_size); shorten the input or raise llm.context_size"
        )
    if request.json_schema is not None and ("grammar" in message or "schema" in message):
        raise LLMOutputError(f"llama.cpp cannot constrain output to the requested schema: {message}")
    raise LLMError(f"llama.cpp rejected the request: {message}")
