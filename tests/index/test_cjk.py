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


def test_has_cjk_agrees_with_the_cjk_runs_for_every_character() -> None:
    # has_cjk skips the regex when no UTF-8 byte can start a CJK character; that shortcut
    # must never hide one, nor find one in Latin text with dashes, Greek or math signs.
    for code in range(0x80, 0x30000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        text = f"naïve – α ≥ {chr(code)} end"
        assert has_cjk(text) == bool(cjk_runs(text)), hex(code)
    assert not has_cjk("Latin – α ≥ µ ﬁ text\ud800")  # lone surrogate: still no CJK
