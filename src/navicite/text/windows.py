"""Sentence windows: how a support judge reads a passage, a few consecutive sentences at a time.

The trained judge was trained on (claim, window) pairs and reads a passage window by window, so
training (:mod:`navicite.train.support_pairs`) and use (:mod:`navicite.support.trained`) cut
text here, the same way.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Most words a window holds; a longer single sentence is a window of its own.
WINDOW_WORDS = 80
#: Most sentences in one window.
WINDOW_SENTENCES = 3


def premise_text(title: str, window: str) -> str:
    """The text a support judge reads for one window of a passage: title, newline, sentences."""
    return f"{title}\n{window}" if title else window


def windows(sentences: Sequence[str], max_words: int = WINDOW_WORDS, most: int = WINDOW_SENTENCES) -> list[tuple[int, int]]:
    """Every run of one to ``most`` consecutive sentences of at most ``max_words`` words, as ``(start, end)``.

    A sentence longer than ``max_words`` is a window of its own. Runs that another run contains
    are left out (the longer one holds all they say), so a passage of n short sentences gives
    about n windows.
    """
    counts = [len(s.split()) for s in sentences]
    spans: list[tuple[int, int]] = []
    for start in range(len(sentences)):
        end, words = start + 1, counts[start]
        while end < len(sentences) and end - start < most and words + counts[end] <= max_words:
            words += counts[end]
            end += 1
        if not spans or end > spans[-1][1]:
            spans.append((start, end))
    return spans
