"""Retrieval methods under evaluation, by name: the built-in ones and any a caller registers.

``navicite eval retrieval --methods bm25,mpr-rerank`` looks names up here. The flat baselines
live in :mod:`navicite.eval.methods`, MPR and its comparisons in :mod:`navicite.eval.mpr_methods`, iterative MPR in
:mod:`navicite.eval.iter_methods`.
"""

from __future__ import annotations

from navicite.errors import UserInputError
from navicite.eval import iter_methods, methods, mpr_methods
from navicite.eval.methods import MethodFactory, RetrievalMethod
from navicite.eval.resources import EvalResources

_REGISTRY: dict[str, MethodFactory] = {**methods.METHODS, **mpr_methods.METHODS, **iter_methods.METHODS}


def register_method(name: str, factory: MethodFactory) -> None:
    """Make a method available to ``navicite eval`` under ``name`` (replaces an earlier one)."""
    _REGISTRY[name] = factory


def method_names() -> list[str]:
    """Registered method names, sorted."""
    return sorted(_REGISTRY)


def create_method(name: str, resources: EvalResources) -> RetrievalMethod:
    """Build a registered method; an unknown name is a user error listing the known ones."""
    factory = _REGISTRY.get(name)
    if factory is None:
        raise UserInputError(f"unknown method {name!r}; available: {', '.join(method_names())}")
    return factory(resources)
