"""The support judge: does a set of passages support a claim? One seam for the verifier and the evaluation.

:func:`navicite.support.cascade.Cascade.entails` answers with a :class:`Verdict` (supported or
not, a score and what decided it): cheap rules over words first (:mod:`navicite.support.rules`),
the chat model (:mod:`navicite.support.llm`) only where they cannot decide.
"""

from navicite.support.base import Passage, SupportJudge, Verdict

__all__ = ["Passage", "SupportJudge", "Verdict"]
