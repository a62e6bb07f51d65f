"""The Korean question fixture's shape, and the translation helpers with a scripted LLM."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from navicite.eval.datasets import DatasetError, EvalQuestion
from navicite.eval.translation import (
    QuestionTranslator,
    TranslatedQuestion,
    korean_translation_problem,
    language_figures,
    leftover_english,
    name_words,
    names_problem,
    read_translated,
    write_translated,
)
from navicite.llm.scripted import ScriptedLLM

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests/fixtures/hotpotqa_ko_20.jsonl"
HOTPOT = ROOT.parent / "shared/data/hotpotqa/distractor-dev-100.json"


def test_fixture_has_twenty_checked_korean_questions() -> None:
    rows = read_translated(FIXTURE)
    assert len(rows) == 20
    assert len({r.id for r in rows}) == 20
    for row in rows:
        assert any("\uac00" <= ch <= "\ud7a3" for ch in row.question_ko), row
        assert korean_translation_problem(row.question_ko) is None, row
        assert row.question_en.strip() and row.answer.strip()


@pytest.mark.skipif(not HOTPOT.exists(), reason="shared HotpotQA file not present")
def test_fixture_rows_are_the_first_twenty_hotpotqa_questions() -> None:
    source = json.loads(HOTPOT.read_text(encoding="utf-8"))[:20]
    rows = read_translated(FIXTURE)
    assert [(r.id, r.question_en, r.answer) for r in rows] == [
        (q["id"], q["question"], q["answer"]) for q in source
    ]


def test_leftover_english_finds_an_untranslated_clause_but_not_names() -> None:
    assert (
        leftover_english("Ronald Koeman이 2014년에 교체한 선수는 누구인가요?") is None
    )
    assert leftover_english("The Lord of the Rings의 작가는 누구인가요?") is None
    assert (
        leftover_english("질문: which band was formed in 1990?")
        == "which band was formed in"
    )


def test_korean_translation_problem_names_each_failure() -> None:
    assert (
        korean_translation_problem("Darren Shepherd와 Remi Lange는 둘 다 미국인인가요?")
        is None
    )
    assert "no Hangul" in (korean_translation_problem("Are they both American?") or "")
    assert "empty" in (korean_translation_problem("  ") or "")
    assert "another script" in (
        korean_translation_problem("스크ат이라는 선수는 누구인가요?") or ""
    )
    assert "another script" in (korean_translation_problem("어떤州에서 왔나요?") or "")
    assert "cut off" in (
        korean_translation_problem("1939년에 두 번 All-American 농구 선수인") or ""
    )
    assert (
        korean_translation_problem("'Scat'이라는 별명의 선수가 이끈 팀은 어디인가요?”")
        is None
    )


def test_names_problem_flags_transliterated_names() -> None:
    question = "Are Darren Shepherd and Remi Lange both American?"
    assert (
        names_problem("Darren Shepherd와 Remi Lange는 둘 다 미국인인가요?", question)
        is None
    )
    assert "kept []" in (
        names_problem("다렌 셰퍼드와 레미 랑주는 둘 다 미국인인가요?", question) or ""
    )


def test_name_words_skips_sentence_starts_and_question_words() -> None:
    assert name_words(
        "Which of Jonny Craig and Pete Doherty sang? What did Rome do?"
    ) == ["Jonny", "Craig", "Pete", "Doherty", "Rome"]
    assert name_words("What year did The Chronicle of Philanthropy start?") == [
        "Chronicle",
        "Philanthropy",
    ]


def test_translator_retries_a_failed_check_at_a_higher_temperature() -> None:
    llm = ScriptedLLM(
        [
            {"translation": "Who founded Acme Corp?"},
            {"translation": "Acme Corp는 누가 설립했나요?"},
        ]
    )
    result = QuestionTranslator(llm).run("Who founded Acme Corp?")
    assert (result.text, result.attempts, result.problem) == (
        "Acme Corp는 누가 설립했나요?",
        2,
        None,
    )
    assert [c.temperature for c in llm.calls] == [0.0, 0.3]
    assert (
        "Who founded Acme Corp?" in llm.calls[0].prompt
        and "Korean" in llm.calls[0].prompt
    )


def test_translator_keeps_the_first_korean_attempt_with_a_warning_when_names_are_lost() -> (
    None
):
    question = "Who founded Acme Corp?"
    llm = ScriptedLLM(
        [
            {"translation": "애크미 회사는 누가 설립했나요?"},
            {"translation": "애크미는 누가?"},
        ]
    )
    result = QuestionTranslator(llm, temperatures=(0.0, 0.5)).run(question)
    assert (result.text, result.attempts, result.problem) == (
        "애크미 회사는 누가 설립했나요?",
        1,
        None,
    )
    assert result.warning is not None and "Acme" in result.warning


def test_translator_reports_the_problem_when_every_attempt_fails() -> None:
    # Bad JSON (first reply and its repair) counts as one failed attempt; the rest stay English.
    llm = ScriptedLLM(
        ["not json", "still not json"],
        default={"translation": "Who founded Acme Corp?"},
    )
    result = QuestionTranslator(llm, temperatures=(0.0, 0.5)).run(
        "Who founded Acme Corp?"
    )
    assert result.attempts == 2 and result.text == "Who founded Acme Corp?"
    assert result.problem is not None and "no Hangul" in result.problem


def test_read_translated_round_trips_and_rejects_bad_rows(tmp_path: Path) -> None:
    rows = [TranslatedQuestion("q1", "Who?", "누구인가요?", "Ann")]
    path = tmp_path / "ko.jsonl"
    write_translated(path, rows)
    assert read_translated(path) == rows
    path.write_text(
        '{"id": "q1", "question_en": "Who?", "answer": "Ann"}\n', encoding="utf-8"
    )
    with pytest.raises(DatasetError, match="question_ko"):
        read_translated(path)
    path.write_text("\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="no questions"):
        read_translated(path)


def test_language_figures_score_korean_and_english_answers() -> None:
    question = "Marie Curie는 어떤 상을 받았나요?"
    korean = language_figures(
        "Marie Curie는 1903년에 노벨 물리학상을 받았습니다 [1].", question
    )
    english = language_figures(
        "Marie Curie won the Nobel Prize in Physics in 1903 [1].", question
    )
    assert (korean["answer_language"], korean["language_match"]) == ("ko", 1.0)
    assert (english["answer_language"], english["language_match"]) == ("en", 0.0)
    mixed_sentences = [
        "정답: 그 회사는 2004년에 이름을 바꾸었고 새 약어는 유한책임회사를 뜻합니다.",
        "It was founded in 1993 [1].",
    ]
    mixed = language_figures("\n".join(mixed_sentences), question, mixed_sentences)
    assert mixed["language_match"] == 1.0 and mixed["sentence_language_match"] == 0.5
    assert mixed["off_language_sentences"] == mixed_sentences[1:]


def _bench_module():
    spec = importlib.util.spec_from_file_location(
        "citeg_hotpotqa", ROOT / "bench/citeg_hotpotqa.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_asks_the_fixture_questions_in_korean(tmp_path: Path) -> None:
    bench = _bench_module()
    questions = [
        EvalQuestion("q1", "Who?", {}, ("Ann",), ("d1",)),
        EvalQuestion("q2", "Where?", {}, ("Oslo",), ("d2",)),
    ]
    path = tmp_path / "ko.jsonl"
    write_translated(path, [TranslatedQuestion("q2", "Where?", "어디인가요?", "Oslo")])
    [asked] = bench.translated_questions(questions, path)
    assert (asked.id, asked.text, asked.candidates, asked.answers) == (
        "q2",
        "어디인가요?",
        ("d2",),
        ("Oslo",),
    )
    write_translated(path, [TranslatedQuestion("q9", "Why?", "왜?", "x")])
    with pytest.raises(SystemExit, match="q9"):
        bench.translated_questions(questions, path)
