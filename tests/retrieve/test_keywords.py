from __future__ import annotations

from navicite.retrieve.keywords import Keyword, clean_keywords, is_generic, unique_terms


def test_generic_words_in_english_and_korean() -> None:
    assert is_generic("Summary")
    assert is_generic("overview  summary")
    assert is_generic("요약")
    assert not is_generic("summary statistics")  # a specific word remains
    assert not is_generic("fracture")


def test_clean_drops_generic_and_promotes_a_specific_synonym() -> None:
    dropped: list[str] = []
    kept = clean_keywords(
        [Keyword("overview", ("survey of methods",)), Keyword("요약"), Keyword("BRCA1", ("brca1", "breast cancer gene"))],
        limit=5,
        dropped=dropped,
    )
    assert kept == [Keyword("survey of methods"), Keyword("BRCA1", ("breast cancer gene",))]
    assert dropped == ["overview", "요약"]


def test_clean_merges_repeats_and_limits() -> None:
    dropped: list[str] = []
    kept = clean_keywords([Keyword("a"), Keyword("A"), Keyword("b"), Keyword("c")], limit=2, dropped=dropped)
    assert [k.term for k in kept] == ["a", "b"]


def test_unique_terms_normalises_space_and_case() -> None:
    assert unique_terms(["Bone  density", "bone density", "", "  "]) == ["Bone density"]
