"""Terminal rendering of answers."""

from __future__ import annotations

from rich.console import Console

from navicite.generate import Answer, Citation, SentenceRecord, StageTrace, render_answer
from navicite.generate.render import UNSUPPORTED_SIGN


def answer(citations: bool = True) -> Answer:
    sentences = [
        SentenceRecord("Paris", "heading"),
        SentenceRecord("Paris is the capital of France.", "cited", [1], 0.9),
        SentenceRecord("It has 90 moons.", "unsupported"),
        SentenceRecord("That is all.", "general"),
    ]
    return Answer(
        question="What is Paris?",
        answer="# Paris\n\nParis is the capital of France [1]. It has 90 moons.\n\nThat is all.",
        citations=[Citation(1, "d1", "Paris", "https://example.org/paris", "Paris is the capital.")] if citations else [],
        sentences=sentences,
        language="en",
        trace=[StageTrace("draft", 1.25), StageTrace("align", 0.5)],
        llm={"stages": {"draft": {"calls": 1}, "align": {"calls": 1}}},
    )


def rendered(a: Answer, **kwargs) -> str:
    console = Console(record=True, width=120)
    render_answer(a, console, **kwargs)
    return console.export_text()


def test_render_shows_markers_warnings_and_block() -> None:
    text = rendered(answer(), show_timing=True)
    assert "Paris is the capital of France [1]." in text
    assert f"{UNSUPPORTED_SIGN} It has 90 moons." in text
    assert "1 sentence(s) state facts no source" in text
    assert "[1]" in text.split("sources")[-1] and "https://example.org/paris" in text
    assert "draft" in text and "1.25" in text
    # Layout (paragraph breaks) survives.
    assert "\n\nThat is all." in text


def test_render_without_citations() -> None:
    a = answer(citations=False)
    a.sentences[1].markers = []
    a.answer = a.answer.replace(" [1]", "")
    assert "no sources cited" in rendered(a)


def test_the_phrase_opens_the_answer_with_its_first_sentence_markers() -> None:
    a = answer()
    a.short_answer = "the capital of France"
    text = rendered(a)
    assert text.startswith("Answer: the capital of France [1]\n")
    # In short-answer mode the text holds its own "Answer:" line: it is not shown twice.
    a.answer = "Answer: the capital of France\n" + a.answer
    assert rendered(a).count("Answer:") == 1


def test_the_phrase_of_an_unsupported_first_sentence_is_flagged() -> None:
    a = answer()
    a.sentences[1] = SentenceRecord("Paris is the capital of France.", "unsupported")
    a.short_answer = "the capital of France"
    assert rendered(a).startswith(f"{UNSUPPORTED_SIGN} Answer: the capital of France\n")


def test_withheld_sentences_are_counted_under_the_answer_not_shown() -> None:
    a = answer()
    a.withheld = [SentenceRecord("It is made of cheese.", "unsupported")]
    text = rendered(a)
    assert "1 sentence(s) of the draft that no source supports were left out" in text and "cheese" not in text
    assert "left out" not in rendered(answer())
