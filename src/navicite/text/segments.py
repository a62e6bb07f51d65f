"""Cutting long documents into overlapping segments that remember where they came from."""

from __future__ import annotations

import re

from navicite.config import IngestSettings
from navicite.documents import Document, Segment

_WORD = re.compile(r"\S+")
# The defaults of the settings, so a call without arguments cuts as a default install does.
_DEFAULT_WORDS: int = IngestSettings.model_fields["segment_words"].default
_DEFAULT_OVERLAP: float = IngestSettings.model_fields["segment_overlap"].default


def step_size(words: int, overlap: float) -> int:
    """Words between the starts of consecutive segments: ``words`` minus the overlap, at least 1."""
    if words < 1:
        raise ValueError(f"segment size must be at least 1 word, got {words}")
    if not 0.0 <= overlap < 1.0:
        raise ValueError(f"overlap must be in [0, 1), got {overlap}")
    return max(1, words - round(words * overlap))


def segment(document: Document, words: int = _DEFAULT_WORDS, overlap: float = _DEFAULT_OVERLAP) -> list[Segment]:
    """Cut a document's text into segments of ``words`` words, each sharing ``overlap`` of its words with the next.

    ``start``/``end`` are word offsets (end exclusive) into ``document.text``,
    or into ``document.abstract`` when the document has no text. A segment's
    text is the original slice, so line breaks survive. A document of at most
    ``words`` words gives one segment; an empty one gives none. Every word lies
    in at least one segment, and the last segment ends at the last word.

    Callers normally pass ``settings.ingest.segment_words`` and
    ``settings.ingest.segment_overlap``.
    """
    step = step_size(words, overlap)
    source = document.text if document.text.strip() else document.abstract
    spans = [m.span() for m in _WORD.finditer(source)]
    total = len(spans)
    segments: list[Segment] = []
    start = 0
    while start < total:
        end = min(start + words, total)
        text = source[spans[start][0]:spans[end - 1][1]]
        segments.append(Segment(doc_id=document.id, index=len(segments), text=text, start=start, end=end))
        if end == total:
            break
        start += step
    return segments
