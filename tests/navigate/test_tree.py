"""Tree sizes: the passage text a leaf points to, overlaps counted once."""

from __future__ import annotations

from navicite.navigate.tree import SegmentRef, passage_tokens, token_count


def test_words_shared_by_overlapping_segments_are_counted_once() -> None:
    words = [f"word{i:03d}" for i in range(300)]
    # 100-word segments, each sharing 20 words with the next (like ingest's 20% overlap).
    segments = [SegmentRef(k, s, s + 100, " ".join(words[s : s + 100])) for k, s in enumerate((0, 80, 160))]
    whole = token_count(" ".join(words[:260]))
    assert passage_tokens(segments, [0, 1, 2]) == whole
    assert passage_tokens(segments, [0, 2]) == token_count(" ".join(words[:100])) + token_count(" ".join(words[160:260]))
    assert passage_tokens(segments, [1]) == token_count(segments[1].text)


def test_unknown_indices_and_repeats_count_nothing() -> None:
    segments = [SegmentRef(0, 0, 3, "one two three")]
    assert passage_tokens(segments, [0, 0, 5, -1]) == passage_tokens(segments, [0]) == token_count("one two three")
    assert passage_tokens(segments, []) == 0
