"""Sentence segmentation of drafted answers, English and Korean."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from navicite.text.sentences import join_short_lists, segment_text


def sentences(text: str, language: str = "en") -> list[str]:
    return [u.text for u in segment_text(text, language) if u.kind == "sentence"]


def headings(text: str, language: str = "en") -> list[str]:
    return [u.text for u in segment_text(text, language) if u.kind == "heading"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Smith et al. (2020) showed this. It holds.", ["Smith et al. (2020) showed this.", "It holds."]),
        ("Smith et al. showed it in 2020. It holds.", ["Smith et al. showed it in 2020.", "It holds."]),
        ("The value is approx. 5 mm. Next.", ["The value is approx. 5 mm.", "Next."]),
        ("It costs 3.14 dollars. Then 2.5% more.", ["It costs 3.14 dollars.", "Then 2.5% more."]),
        ("Accuracy was 95.7% and recall 95.1%. The end.", ["Accuracy was 95.7% and recall 95.1%.", "The end."]),
        ("This is stated clearly (p. 14). Another one.", ["This is stated clearly (p. 14).", "Another one."]),
        ("It was stated (Kim et al., 2019, p. 14). Next.", ["It was stated (Kim et al., 2019, p. 14).", "Next."]),
        ("See Fig. 3 for the rates. Done.", ["See Fig. 3 for the rates.", "Done."]),
        ("As listed in No. 5 of the series. Done.", ["As listed in No. 5 of the series.", "Done."]),
        ("The answer is no. Then we left.", ["The answer is no.", "Then we left."]),
        ("Use tools, e.g. a hammer. Then stop.", ["Use tools, e.g. a hammer.", "Then stop."]),
        ("Mr. Kim met Dr. Lee at 5 p.m. on Monday. They talked.", ["Mr. Kim met Dr. Lee at 5 p.m. on Monday.", "They talked."]),
        ("The U.S. Army was founded in 1775. It grew.", ["The U.S. Army was founded in 1775.", "It grew."]),
        ("It was released in Jan. 2020. Users liked it.", ["It was released in Jan. 2020.", "Users liked it."]),
        ("Is it true? Yes! It is.", ["Is it true?", "Yes!", "It is."]),
    ],
)
def test_english_sentences(text: str, expected: list[str]) -> None:
    assert sentences(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("서울은 한국의 수도이다. 인구는 약 9.7백만 명이다!", ["서울은 한국의 수도이다.", "인구는 약 9.7백만 명이다!"]),
        ("김 외(2019)는 이를 보였다. 정확도는 95.7%였다.", ["김 외(2019)는 이를 보였다.", "정확도는 95.7%였다."]),
        ("첫째, 데이터를 모은다. 둘째, 분석한다.", ["첫째, 데이터를 모은다.", "둘째, 분석한다."]),
        # Korean drafts sometimes drop the full stop after the declarative ending.
        ("서울은 수도이다 부산은 항구이다", ["서울은 수도이다", "부산은 항구이다"]),
        ("이 연구는 새로운 방법을 제안합니다. 결과는 좋았습니까? 네.", ["이 연구는 새로운 방법을 제안합니다.", "결과는 좋았습니까?", "네."]),
        ("정확도는 95.1%이다 (p. 14). 끝.", ["정확도는 95.1%이다 (p. 14).", "끝."]),
    ],
)
def test_korean_sentences(text: str, expected: list[str]) -> None:
    assert sentences(text, "ko") == expected


def test_connective_korean_endings_do_not_split() -> None:
    assert sentences("비가 온다고 들었지만 우리는 갔다.", "ko") == ["비가 온다고 들었지만 우리는 갔다."]


def test_layout_title_headings_and_paragraphs() -> None:
    text = (
        "# Detecting Diabetes\n\n"
        "## Introduction\n"
        "Diabetes is common. Early detection helps.\n\n"
        "**Body**\n"
        "A CNN reached 95.7% accuracy.\n\n"
        "Conclusion\n"
        "The method works."
    )
    units = segment_text(text)
    assert [(u.kind, u.text) for u in units] == [
        ("heading", "Detecting Diabetes"),
        ("heading", "Introduction"),
        ("sentence", "Diabetes is common."),
        ("sentence", "Early detection helps."),
        ("heading", "Body"),
        ("sentence", "A CNN reached 95.7% accuracy."),
        ("heading", "Conclusion"),
        ("sentence", "The method works."),
    ]


def test_korean_title_and_heading() -> None:
    text = "제목: 서울의 역사\n\n서울은 한국의 수도이다.\n\n결론\n요약하면 서울은 크다."
    assert headings(text, "ko") == ["서울의 역사", "결론"]
    assert sentences(text, "ko") == ["서울은 한국의 수도이다.", "요약하면 서울은 크다."]


def test_korean_prose_line_without_full_stop_is_not_a_heading() -> None:
    assert headings("서울은 한국의 오래된 수도이다", "ko") == []


def test_list_items_are_units_without_bullets() -> None:
    text = "Key points:\n- First item is here. It has two sentences.\n* Second item.\n1. Numbered item.\n2) Another one."
    assert headings(text) == ["Key points:"]
    assert sentences(text) == [
        "First item is here.",
        "It has two sentences.",
        "Second item.",
        "Numbered item.",
        "Another one.",
    ]


def test_short_answer_line_is_a_sentence() -> None:
    units = segment_text("Answer: Paris\nParis is the capital of France.")
    assert [(u.kind, u.text) for u in units] == [("sentence", "Answer: Paris"), ("sentence", "Paris is the capital of France.")]


def test_offsets_point_into_the_original_text() -> None:
    text = "# Title\n\nOne  sentence here.   Two (p. 3).\n- item one.\n\n한국어 문장이다. 끝."
    for unit in segment_text(text, "en"):
        assert text[unit.start : unit.end] == unit.text


def test_empty_and_blank_text() -> None:
    assert segment_text("") == []
    assert segment_text("  \n\n  ") == []


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["Alpha beta.", "Gamma 3.5 delta!", "(p. 4)", "\n", "\n\n", "- ", "# ", "서울이다.", "e.g. x", "et al. y"]), max_size=12))
def test_units_cover_text_in_order_without_overlap(parts: list[str]) -> None:
    text = " ".join(parts)
    units = segment_text(text, "en")
    last_end = 0
    for unit in units:
        assert unit.text and text[unit.start : unit.end] == unit.text
        assert unit.start >= last_end
        last_end = unit.end
    # Every word of the text lands in some unit (bullets and heading marks aside).
    covered = " ".join(u.text for u in units)
    for word in text.split():
        if word not in {"-", "#"}:
            assert word in covered


def test_a_title_that_is_a_whole_sentence_is_a_claim() -> None:
    units = segment_text("# Marie Curie married Pierre Curie in 1895.\n\n## Body\nShe was a physicist.")
    assert [(u.kind, u.text) for u in units] == [
        ("sentence", "Marie Curie married Pierre Curie in 1895."),
        ("heading", "Body"),
        ("sentence", "She was a physicist."),
    ]


def test_a_lead_in_and_its_short_list_items_are_one_unit() -> None:
    # Readers marked bare items ("the content of the tiles", "Japan") unsupported whatever their
    # passage said: a label states nothing; with its lead-in it is one checkable claim.
    text = "Intro.\nThe layout controls these aspects:\n• the content of the tiles\n• the split direction\n\nThe end."
    units = join_short_lists(text, segment_text(text))
    assert [u.text for u in units] == ["Intro.", "The layout controls these aspects:\n• the content of the tiles\n• the split direction",
                                       "The end."]
    assert all(text[u.start:u.end] == u.text for u in units) and units[1].kind == "sentence"
    # A short lead-in ("The countries are:") is a heading on its own; joined, it is a sentence.
    text = "The countries are:\n- Japan\n- USA"
    assert [(u.kind, u.text) for u in join_short_lists(text, segment_text(text))] == [("sentence", text)]


def test_list_items_that_are_sentences_stay_apart() -> None:
    text = ("Steps:\n1. Run the installer with the default options and wait for it to finish.\n"
            "2. Restart the machine so that the new drivers load.")
    assert join_short_lists(text, segment_text(text)) == segment_text(text)
    text = "Two things:\n- Japan"  # one item: nothing to join
    assert join_short_lists(text, segment_text(text)) == segment_text(text)


def test_hard_wrapped_prose_is_one_sentence_across_its_lines() -> None:
    # The Mutt manual (plain text wrapped at 72 columns): read line by line, the closest quote of
    # an answer stopped at "(because for IMAP Mutt".
    text = ("As for regular expressions, a lower case string search pattern makes Mutt\n"
            "perform a case-insensitive search except for IMAP (because for IMAP Mutt\n"
            "performs server-side searches which don't support case-insensitivity).\n\nChapter 9. Reference")
    units = segment_text(text)
    assert [u.text.split()[-1] for u in units] == ["case-insensitivity).", "Reference"]
    assert all(text[u.start:u.end] == u.text for u in units)


def test_lines_that_end_a_sentence_or_open_in_capitals_stay_apart() -> None:
    assert sentences("The default is 50.\nthe maximum is 80.") == ["The default is 50.", "the maximum is 80."]
    assert sentences("Answer: Paris\nParis is the capital of France.") == ["Answer: Paris", "Paris is the capital of France."]
    assert [u.text for u in segment_text("Steps:\n- open it\n- save it")] == ["Steps:", "open it", "save it"]
