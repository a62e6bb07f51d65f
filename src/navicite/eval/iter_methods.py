"""Iterative MPR for ``navicite eval retrieval``: ``mpr-iter``, ``mpr-iter-rerank`` and
``mpr-iter-rerank-fallback``.

The same runs as ``mpr``, ``mpr-rerank`` and ``mpr-rerank-fallback`` with retrieval rounds for
multi-hop questions: ``retrieve.rounds`` of them when it is above 1, else :data:`ITER_ROUNDS`,
planned as ``retrieve.bridge`` says (the names of the best passages,
:mod:`navicite.retrieve.bridge`, one round; or the model's missing-information calls,
:mod:`navicite.retrieve.gap`). Each question's LLM calls and tokens are in its trace like
every method's; its stage seconds also say how far it went: ``gap`` (the missing-information
calls), ``round2``, ``round3`` ... (a later round's searches and reranking), so a question
without ``round2`` stopped after round 1.

The registry (:mod:`navicite.eval.registry`) takes both from :data:`METHODS`.
"""

from __future__ import annotations

from navicite.eval.methods import MethodFactory
from navicite.eval.mpr_methods import MPRMethod
from navicite.eval.resources import EvalResources

#: Rounds of the iterative methods while ``retrieve.rounds`` is 1 (off).
ITER_ROUNDS = 3


def iterative(resources: EvalResources, name: str, rerank_backend: str, use_llm: bool = True) -> MPRMethod:
    """An MPR method that runs up to ``retrieve.rounds`` (else :data:`ITER_ROUNDS`) rounds."""
    configured = resources.settings.retrieve.rounds
    return MPRMethod(resources, name, rerank_backend, use_llm=use_llm, rounds=configured if configured > 1 else ITER_ROUNDS)


METHODS: dict[str, MethodFactory] = {
    "mpr-iter": lambda r: iterative(r, "mpr-iter", "none"),
    "mpr-iter-rerank": lambda r: iterative(r, "mpr-iter-rerank", r.settings.rerank.backend),
    "mpr-iter-rerank-fallback": lambda r: iterative(r, "mpr-iter-rerank-fallback", r.settings.rerank.backend, use_llm=False),
}
