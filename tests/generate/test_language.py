"""Answer language: per-sentence judging that names do not fool, and the translation repair."""

from __future__ import annotations

from navicite.config import load_settings
from navicite.generate.language import (
    LanguageRepair,
    check_language,
    in_language,
    is_answer_line,
    language_name,
    language_rule,
)
from navicite.llm.base import LLMUnavailableError

ENGLISH = "# Jonny Craig\n\nJonny Craig is a Canadian-American singer. He has sung in four bands since 2005."
KOREAN = "# Jonny Craig\n\nJonny Craig는 캐나다계 미국인 가수이다. 그는 2005년부터 네 밴드에서 노래했다."


def test_names_in_latin_script_do_not_make_a_korean_sentence_english() -> None:
    assert in_language("이 협정은 Benito Mussolini, Engelbert Dollfuss, 그리고 Gyula Gömbös가 서명했다.", "ko")
    assert in_language("VIVA Media AG는 1993년에 founded되었습니다.", "ko")
    assert not in_language("Jonny Craig는 British singer and songwriter.", "ko")
    assert not in_language("The first governor of Maine was William King.", "ko")
    assert in_language("Answer: yes", "ko") is None  # too little to judge


def test_other_languages_use_the_detector_and_reject_hangul() -> None:
    assert in_language("The first governor of Maine was William King, who lived in Bath.", "en")
    assert not in_language("메인 주의 첫 주지사는 바스에 살았던 윌리엄 킹이었다.", "en")
    assert in_language("Short.", "en") is None


def test_check_language_skips_headings_and_answer_lines() -> None:
    check = check_language("# The Title In English\nAnswer: William King\n" + KOREAN.split("\n\n")[1], "ko")
    assert check.judged == 2 and check.off == () and check.off_share == 0.0
    check = check_language("Answer: 윌리엄 킹\n" + ENGLISH.split("\n\n")[1], "ko")
    assert check.judged == 2 and check.off_share == 1.0
    assert check_language("# Only a heading", "ko").off_share == 0.0
    assert is_answer_line("**Answer:** Bath") and is_answer_line("정답: 바스") and not is_answer_line("The answer is Bath.")


def test_language_rule_speaks_the_language() -> None:
    assert language_rule("ko").endswith("그대로 써도 됩니다.") and "Korean (한국어)" in language_rule("ko")
    assert language_rule("de") == "Write your whole reply in German (Deutsch)."
    assert language_name("xx") == "xx"


def repairer(scripted_llm, tmp_path, *answers):
    llm = scripted_llm(*answers)
    return llm, LanguageRepair(llm, load_settings(tmp_path, []))


def test_repair_accepts_a_faithful_translation(scripted_llm, tmp_path) -> None:
    llm, repair = repairer(scripted_llm, tmp_path, f"```\n{KOREAN}\n```", f"<text>\n{KOREAN}\n</text>", f"한국어 번역: {KOREAN}",
                            f"Here is the translation of the text into Korean:\n\n{KOREAN}")
    check = check_language(ENGLISH, "ko")
    assert repair.needed(check)
    result = repair.run(ENGLISH, "ko", check)
    assert result.accepted and result.text == KOREAN and result.off_share_after == 0.0
    assert llm.calls[0].messages[0].role == "system" and llm.calls[0].prompt.rstrip().endswith("한국어 번역:")
    assert repair.run(ENGLISH, "ko", check).text == KOREAN  # the echoed <text> tags are dropped
    assert repair.run(ENGLISH, "ko", check).text == KOREAN  # and so is a repeated cue
    assert repair.run(ENGLISH, "ko", check).text == KOREAN  # and a lead-in line


def test_repair_rejects_lost_numbers_markers_english_and_empty(scripted_llm, tmp_path) -> None:
    check = check_language(ENGLISH, "ko")
    cases = {
        "numbers added: 2006": KOREAN.replace("2005년부터", "2006년부터"),
        "still 50% off-language": KOREAN.replace("그는 2005년부터 네 밴드에서 노래했다.", "He has sung in four bands since 2005."),
        "empty translation": "  ",
        "source markers changed": KOREAN.replace("가수이다.", "가수이다 [1]."),
    }
    for reason, reply in cases.items():
        _, repair = repairer(scripted_llm, tmp_path, reply, reply)  # an off-language reply gets a second try
        result = repair.run(ENGLISH, "ko", check)
        assert not result.accepted and result.text == ENGLISH and reason in result.reason, (reason, result.reason)


def test_a_lost_number_is_noted_not_fatal(scripted_llm, tmp_path) -> None:
    _, repair = repairer(scripted_llm, tmp_path, KOREAN.replace("2005년부터", "오래전부터"))
    result = repair.run(ENGLISH, "ko", check_language(ENGLISH, "ko"))
    assert result.accepted and result.reason == "translated; numbers lost: 2005" and "오래전부터" in result.text


def test_repair_survives_a_model_error(scripted_llm, tmp_path) -> None:
    _, repair = repairer(scripted_llm, tmp_path, LLMUnavailableError("model file missing"))
    result = repair.run(ENGLISH, "ko", check_language(ENGLISH, "ko"))
    assert not result.accepted and result.text == ENGLISH and "model error" in result.reason


def test_a_translation_still_off_language_gets_one_example_guided_try(scripted_llm, tmp_path) -> None:
    llm, repair = repairer(scripted_llm, tmp_path, ENGLISH, KOREAN)
    result = repair.run(ENGLISH, "ko", check_language(ENGLISH, "ko"))
    assert result.accepted and result.text == KOREAN and result.attempts == 2 and len(llm.calls) == 2
    roles = [m.role for m in llm.calls[1].messages]
    assert roles == ["system", "user", "assistant", "user"] and "Eiffel Tower는" in llm.calls[1].messages[2].content


def test_no_second_try_without_an_example_or_for_a_layout_problem(scripted_llm, tmp_path) -> None:
    german = "# Seoul\n\nSeoul is the capital of South Korea. It is a large and busy city with many people."
    llm, repair = repairer(scripted_llm, tmp_path, german)
    result = repair.run(german, "de", check_language(german, "de"))
    assert not result.accepted and result.attempts == 1 and len(llm.calls) == 1
    llm, repair = repairer(scripted_llm, tmp_path, "  ")
    assert repair.run(ENGLISH, "ko", check_language(ENGLISH, "ko")).attempts == 1 and len(llm.calls) == 1


def test_a_named_month_may_come_back_as_its_number(scripted_llm, tmp_path) -> None:
    english = "# Spicer\n\nCarey Spicer died on December 5, 1996. He played basketball at Kentucky."
    korean = "# Spicer\n\nCarey Spicer는 1996년 12월 5일에 사망했습니다. 그는 Kentucky에서 농구를 했습니다."
    _, repair = repairer(scripted_llm, tmp_path, korean)
    assert repair.run(english, "ko", check_language(english, "ko")).accepted
    _, repair = repairer(scripted_llm, tmp_path, korean.replace("12월", "11월"), korean.replace("12월", "11월"))
    assert "numbers added: 11" in repair.run(english, "ko", check_language(english, "ko")).reason
