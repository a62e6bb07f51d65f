"""Citation-grounded generation (CiteG): draft from sources, then cite sentence by sentence.

The stage is :class:`CiteG`; its input is a list of :class:`Source` (best first) and its
output an :class:`Answer`. :func:`render_answer` prints an answer for a terminal.
"""

from navicite.generate.answer import Answer, Citation, SentenceRecord, Source, StageTrace, SupportCheck
from navicite.generate.citeg import CiteG
from navicite.generate.render import render_answer

__all__ = ["Answer", "CiteG", "Citation", "SentenceRecord", "Source", "StageTrace", "SupportCheck", "render_answer"]
