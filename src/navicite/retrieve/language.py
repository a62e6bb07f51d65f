"""Language of a question (short text, often mixed with English technical terms)."""

from __future__ import annotations

import re

from navicite.index.language import UNKNOWN
from navicite.index.language import detect_language as detect_document_language

_HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)


def detect_language(text: str, default: str = "en") -> str:
    """ISO 639-1 code of ``text``'s language, ``default`` when it cannot be told.

    A quarter of the letters in Hangul decides Korean directly: the statistical
    detector misjudges short Korean questions full of English technical terms.
    """
    letters = _LETTER.findall(text)
    if not letters:
        return default
    if len(_HANGUL.findall(text)) * 4 >= len(letters):
        return "ko"
    found = detect_document_language(text)
    return default if found == UNKNOWN else found
