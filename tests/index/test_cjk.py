"""CJK text as character pairs."""

from __future__ import annotations

from navicite.index.cjk import bigram_text, bigrams, cjk_runs, has_cjk


def test_runs_and_bigrams() -> None:
    assert cjk_runs("BTS가 서울은, 東京 and カタカナ") == ["가", "서울은", "東京", "カタカナ"]
    assert bigrams("서울은") == ["서울", "울은"]
    assert bigrams("가") == ["가"] and bigrams("") == []


def test_bigram_text() -> None:
    assert bigram_text("서울은 한국") == "서울 울은 한국"
    assert bigram_text("plain English, café") == ""


def test_has_cjk() -> None:
    assert has_cjk("a 한 b") and has_cjk("漢") and not has_cjk("naïve café") and not has_cjk("")
