"""Drafting: prompt layout, cleaning, refusal, short answers, language repair."""

from __future__ import annotations

from navicite.config import load_settings
from navicite.generate.answer import Source
from navicite.generate.draft import (
    REFUSAL,
    Draft,
    Drafter,
    clean_draft,
    echoes_instructions,
    short_answer_of,
    without_repeated_sentences,
    without_unfinished_tail,
)
from navicite.generate.sources import ContextEntry

ENTRIES = [ContextEntry(1, Source("d1", "Seoul", "Seoul is the capital of South Korea."), "Seoul is the capital of South Korea.", False)]
ENGLISH = "# Seoul\n\nSeoul is the capital of South Korea. It is a large and busy city with many people."
KOREAN = "# 서울\n\n서울은 대한민국의 수도이다. 서울은 사람이 많은 큰 도시이다."


def drafter(llm, tmp_path, *overrides: str) -> Drafter:
    """A drafter in the report form, which the drafts above are written in (``answer_drafter`` for the default)."""
    return Drafter(llm, load_settings(tmp_path, ["generate.format=report", *overrides]))


def test_prompt_puts_sources_first_and_question_last(scripted_llm, tmp_path) -> None:
    llm = scripted_llm(ENGLISH)
    drafter(llm, tmp_path).run("What is the capital of Korea?", ENTRIES, "en")
    call = llm.calls[0]
    assert call.messages[0].role == "system" and "never instructions" in call.messages[0].content
    user = call.messages[-1].content
    assert user.index("<source id=\"1\">") < user.index("What is the capital of Korea?")
    assert "English" in user and "2 to 3 complete sentences" in user
    assert call.temperature <= 0.2


def test_model_written_markers_are_removed() -> None:
    assert clean_draft("Seoul is big [1]. It grew [2, 3]. Old【4】.\n") == "Seoul is big. It grew. Old."
    assert clean_draft("The trial (Source 1) found a drop (sources 2 and 3).") == "The trial found a drop."
    assert clean_draft("서울은 크다 (출처 1).") == "서울은 크다."
    # The prompt's source numbers in prose (a real HotpotQA draft): the reader never sees them.
    assert clean_draft("More bands.\n\nAccording to source #3, Jonny Craig is a singer (source #3).") == (
        "More bands.\n\nJonny Craig is a singer.")
    assert clean_draft("It grew. In sources 1 and 2, the band split.") == "It grew. The band split."
    assert clean_draft("The data in source 3 is old.") == "The data in source 3 is old."
    # ... and as a sentence's subject (real pile answers; the reader saw "the third source" cited to [2]).
    assert clean_draft("The page is bad. The third source states that any other value is an error.") == (
        "The page is bad. Any other value is an error.")
    assert clean_draft("Source 2 says the cell is blue.") == "The cell is blue."
    assert clean_draft("The source states that it is blue.") == "The source states that it is blue."
    assert clean_draft("A source (the 2019 trial) said so.") == "A source (the 2019 trial) said so."
    # A real draft (HotpotQA, embedded model) that copied the prompt's source markup after its answer.
    echoed = 'Jonny Craig has been a member of more bands than Pete Doherty.\n\n1. <source id="1">Title: Jonny Craig\n2. <source id="3">Title: The Libertines'
    assert clean_draft(echoed) == "Jonny Craig has been a member of more bands than Pete Doherty."
    assert clean_draft("He sang <source id=2>in Emarosa</source>.") == "He sang in Emarosa."
    assert clean_draft("Answer: <yes>\nIt is <b>so</b>.") == "Answer: yes\nIt is <b>so</b>."


def test_a_sentence_cut_off_by_the_token_limit_is_dropped() -> None:
    cut = "# Folic acid\n\nFolic acid lowers homocysteine. It works.\n\n## Conclusion\n\nThe dose of"
    assert without_unfinished_tail(cut) == "# Folic acid\n\nFolic acid lowers homocysteine. It works."
    assert without_unfinished_tail("Folic acid lowers homocysteine. The effect was largest in") == "Folic acid lowers homocysteine."
    assert without_unfinished_tail("서울은 수도이다. 서울은 사람이") == "서울은 수도이다."
    assert without_unfinished_tail("东京是首都。东京的人口") == "东京是首都。"
    assert without_unfinished_tail("Answer: 1911\n\nThe harbour closed in") == "Answer: 1911"
    for whole in (
        "It works. It was tested (in 2019).",
        "It works.\n\n- lower homocysteine\n- fewer strokes",  # a list's last item needs no full stop
        "The effect was largest in",  # nothing complete to keep
        "It works. He said \"so\"",
        "Answer: 1911",
    ):
        assert without_unfinished_tail(whole) == whole


def test_a_draft_cut_off_mid_sentence_keeps_its_complete_sentences(scripted_llm, tmp_path) -> None:
    draft = drafter(scripted_llm(ENGLISH + " Its oldest palace was built in"), tmp_path).run("q?", ENTRIES, "en")
    assert draft.text == ENGLISH and not draft.refused


def test_refusal_becomes_a_no_answer_sentence(scripted_llm, tmp_path) -> None:
    draft = drafter(scripted_llm(f"  {REFUSAL}\n"), tmp_path).run("q?", ENTRIES, "ko")
    assert draft.refused and "답할 수 없습니다" in draft.text


def test_empty_reply_counts_as_refusal(scripted_llm, tmp_path) -> None:
    assert drafter(scripted_llm("   "), tmp_path).run("q?", ENTRIES, "en").refused


def test_short_answer_mode(scripted_llm, tmp_path) -> None:
    llm = scripted_llm("Answer: Seoul.\nSeoul is the capital of South Korea.")
    draft = drafter(llm, tmp_path, "generate.short_answer=true").run("Capital?", ENTRIES, "en")
    assert draft.short_answer == "Seoul"
    assert "Answer: <answer phrase>" in llm.calls[0].prompt
    assert len(llm.calls) == 1 and draft.attempts == 1
    assert short_answer_of("Answer: <Seoul>") == "Seoul"
    assert short_answer_of("**Answer:** Gesellschaft mit beschränkter Haftung") == "Gesellschaft mit beschränkter Haftung"
    assert short_answer_of("정답: 서울") == "서울"
    assert short_answer_of("Answer: \"Bath, Maine\".") == "Bath, Maine"
    assert short_answer_of("No label here.") is None


def test_korean_prompt_ends_with_the_language_rule_in_korean(scripted_llm, tmp_path) -> None:
    for mode in ("generate.short_answer=false", "generate.short_answer=true"):
        llm = scripted_llm(KOREAN)
        drafter(llm, tmp_path, mode).run("한국의 수도는 어디인가요?", ENTRIES, "ko")
        user = llm.calls[0].messages[-1].content
        assert user.rstrip().endswith("단체의 이름만 자료에 적힌 그대로 써도 됩니다.")
        assert user.index("한국어로 쓰세요") > user.index("</source>")


def test_wrong_language_is_translated_once_keeping_the_first_language(scripted_llm, tmp_path) -> None:
    llm = scripted_llm(ENGLISH, KOREAN)
    draft = drafter(llm, tmp_path).run("한국의 수도는 어디인가요?", ENTRIES, "ko")
    assert draft.attempts == 2 and draft.draft_language == "en" and draft.text.startswith("# 서울")
    assert draft.repair is not None and draft.repair.accepted and draft.off_language_share == 0.0
    translate = llm.calls[1]
    assert llm.usage.calls[1].stage == "language-repair" and "<source" not in translate.prompt
    assert "Seoul is the capital of South Korea." in translate.prompt and "Korean (한국어)" in translate.prompt
    assert draft.trace()["repair"]["off_share_before"] == 1.0


def test_rejected_translation_keeps_the_draft_and_says_why(scripted_llm, tmp_path) -> None:
    llm = scripted_llm(ENGLISH, "서울은 수도이다.")  # the title line was dropped
    draft = drafter(llm, tmp_path).run("한국의 수도는?", ENTRIES, "ko")
    assert draft.text == ENGLISH and draft.attempts == 2 and draft.off_language_share == 1.0
    assert draft.repair is not None and not draft.repair.accepted and "headings" in draft.repair.reason


def test_short_answer_line_is_kept_out_of_the_translation(scripted_llm, tmp_path) -> None:
    english = "Answer: Seoul\nSeoul is the capital of South Korea. It has had that role since 1948."
    llm = scripted_llm(english, "서울은 대한민국의 수도이다. 1948년부터 그 역할을 해 왔다.")
    draft = drafter(llm, tmp_path, "generate.short_answer=true").run("한국의 수도는?", ENTRIES, "ko")
    assert "Answer: Seoul" not in llm.calls[1].prompt
    assert draft.text.startswith("Answer: Seoul\n서울은") and draft.short_answer == "Seoul"


def test_no_repair_when_disabled_right_or_mostly_right(scripted_llm, tmp_path) -> None:
    llm = scripted_llm(ENGLISH)
    draft = drafter(llm, tmp_path, "generate.language_retry=false").run("한국의 수도는?", ENTRIES, "ko")
    assert draft.attempts == 1 and draft.draft_language == "en" and len(llm.calls) == 1 and draft.repair is None
    llm = scripted_llm(KOREAN)
    assert drafter(llm, tmp_path).run("한국의 수도는?", ENTRIES, "ko").attempts == 1
    # One English sentence in four is below the repair share (0.25 is not more than 0.25).
    mixed = "# 서울\n\n서울은 대한민국의 수도이다. 서울은 큰 도시이다. 서울에는 한강이 흐른다. It is a busy city with many people."
    llm = scripted_llm(mixed)
    draft = drafter(llm, tmp_path).run("한국의 수도는?", ENTRIES, "ko")
    assert len(llm.calls) == 1 and draft.off_language_share == 0.25


def test_stream_yields_pieces_then_the_repaired_draft(scripted_llm, tmp_path) -> None:
    events = list(drafter(scripted_llm(ENGLISH, KOREAN), tmp_path).stream("한국의 수도는?", ENTRIES, "ko"))
    assert isinstance(events[-1], Draft) and events[-1].attempts == 2
    texts = [e for e in events if isinstance(e, str)]
    assert "\f" in texts and "".join(texts).split("\f")[1] == KOREAN
    events = list(drafter(scripted_llm(KOREAN), tmp_path).stream("한국의 수도는?", ENTRIES, "ko"))
    assert "".join(e for e in events if isinstance(e, str)) == KOREAN and events[-1].repair is None


def test_refusal_token_after_an_answer_is_dropped_not_obeyed(scripted_llm, tmp_path) -> None:
    draft = drafter(scripted_llm(f"# Curie\nMarie Curie won the 1903 prize.\n\n{REFUSAL}"), tmp_path).run("q?", ENTRIES, "en")
    assert not draft.refused and REFUSAL not in draft.text and "1903 prize." in draft.text
    draft = drafter(scripted_llm(f"# Just a title\n\n{REFUSAL}"), tmp_path).run("q?", ENTRIES, "en")
    assert draft.refused


def test_claim_text_drops_the_answer_label() -> None:
    from navicite.generate.draft import claim_text

    assert claim_text("Answer: Bath, Maine") == "Bath, Maine"
    assert claim_text("The answer is Bath.") == "The answer is Bath."


ECHO = (
    "Answer: the shortest phrase that answers the question: a name, a number, a date\n"
    "Then one to three plain sentences with the facts."
)


def test_copied_instructions_are_detected_by_word_runs_and_unfilled_slots(scripted_llm, tmp_path) -> None:
    words = drafter(scripted_llm(), tmp_path, "generate.short_answer=true").instructions("en")
    assert echoes_instructions(ECHO, words)
    assert echoes_instructions("Answer: <answer phrase>\nSeoul is the capital.", words)
    assert echoes_instructions('Answer: <source id="2">\nSeoul is the capital.', words)
    assert not echoes_instructions("Answer: Seoul\nSeoul is the capital of South Korea.", words)
    assert not echoes_instructions(KOREAN, words)


def test_a_draft_that_copies_the_instructions_is_drafted_again_once(scripted_llm, tmp_path) -> None:
    llm = scripted_llm(ECHO, "Answer: Seoul\nSeoul is the capital of South Korea.")
    draft = drafter(llm, tmp_path, "generate.short_answer=true").run("Capital?", ENTRIES, "en")
    assert draft.short_answer == "Seoul" and draft.attempts == 2
    retry = llm.calls[1].messages
    assert retry[-2].role == "assistant" and retry[-2].content == ECHO
    assert "repeated the instructions" in retry[-1].content


def test_streamed_echo_is_replaced_after_a_reset_piece(scripted_llm, tmp_path) -> None:
    llm = scripted_llm(ECHO, "Answer: Seoul\nSeoul is the capital of South Korea.")
    out = list(drafter(llm, tmp_path, "generate.short_answer=true").stream("Capital?", ENTRIES, "en"))
    assert "\f" in out and out[-1].short_answer == "Seoul"
    assert out[out.index("\f") + 1].startswith("Answer: Seoul")


# The answer form (generate.format=answer, the default).

def answer_drafter(llm, tmp_path, *overrides: str) -> Drafter:
    return Drafter(llm, load_settings(tmp_path, list(overrides)))


DIRECT = "Seoul is the capital of South Korea. It has been the capital since 1948."


def test_answer_form_is_the_default_and_asks_for_the_answer_first(scripted_llm, tmp_path) -> None:
    llm = scripted_llm(DIRECT)
    draft = answer_drafter(llm, tmp_path).run("What is the capital of South Korea?", ENTRIES, "en")
    assert draft.text == DIRECT and not draft.refused and draft.short_answer is None
    user = llm.calls[0].messages[-1].content
    assert "first sentence answers the question directly" in user
    assert "no title, no headings" in user and 'title line beginning with "# "' not in user
    # A question after one fact gets the short length rule only.
    assert "write one or two sentences with the facts" in user and "two or three short paragraphs" not in user
    assert user.index('<source id="1">') < user.index("What is the capital of South Korea?")
    assert user.rstrip().endswith("Write your whole reply in English.")


def test_answer_length_follows_the_question_form(scripted_llm, tmp_path) -> None:
    from navicite.generate.draft import answer_length

    assert answer_length("Were Scott Derrickson and Ed Wood of the same nationality?", "en") == "fact"
    assert answer_length("How many people live in Seoul?", "en") == "fact"
    assert answer_length("How does folic acid lower homocysteine?", "en") == "broad"
    assert answer_length("What are the effects of vitamin D on fractures?", "en") == "broad"
    assert answer_length("Folic acid and homocysteine", "en") == "open"
    assert answer_length("VIVA Media AG changed its name in 2004. What does their new acronym stand for?", "en") == "fact"
    assert answer_length("마리 퀴리는 어떤 노벨상을 받았나요?", "ko") == "fact"
    assert answer_length("엽산은 어떻게 호모시스테인을 낮추나요?", "ko") == "broad"
    llm = scripted_llm(DIRECT)
    answer_drafter(llm, tmp_path).run("How does Seoul govern itself?", ENTRIES, "en")
    assert "two or three short paragraphs of two to four sentences" in llm.calls[0].prompt


def test_answer_form_drops_the_headings_a_model_writes_anyway(scripted_llm, tmp_path) -> None:
    from navicite.text.sentences import segment_text

    report = "# Seoul\n\n## Introduction\n\nSeoul is the capital of South Korea.\n\n**Conclusion:**\nIt has been the capital since 1948."
    draft = answer_drafter(scripted_llm(report), tmp_path).run("What is the capital of South Korea?", ENTRIES, "en")
    assert draft.text == "Seoul is the capital of South Korea.\n\nIt has been the capital since 1948."
    assert [u.kind for u in segment_text(draft.text)] == ["sentence", "sentence"]
    # A bare first line is the short answer itself, not a title; labels come off their paragraph.
    draft = answer_drafter(scripted_llm("Seoul\n\nSeoul is the capital of South Korea."), tmp_path).run("Capital?", ENTRIES, "en")
    assert draft.text.startswith("Seoul.\n") and segment_text(draft.text)[0].kind == "sentence"
    draft = answer_drafter(scripted_llm("Answer: Seoul is the capital.\nSummary\nIt is big."), tmp_path).run("Capital?", ENTRIES, "en")
    assert draft.text == "Seoul is the capital.\nIt is big."


def test_sources_do_not_say_is_a_refusal_in_the_models_words(scripted_llm, tmp_path) -> None:
    said = "The sources do not say who founded Seoul."
    draft = answer_drafter(scripted_llm(said), tmp_path).run("Who founded Seoul?", ENTRIES, "en")
    assert draft.refused and draft.text == said
    draft = answer_drafter(scripted_llm(said + " They say Seoul is the capital of South Korea."), tmp_path).run("Who founded Seoul?", ENTRIES, "en")
    assert not draft.refused
    # The old token still works when the model writes it.
    assert answer_drafter(scripted_llm(REFUSAL), tmp_path).run("Who?", ENTRIES, "en").refused


def test_answer_form_echo_is_redrafted_with_its_own_retry(scripted_llm, tmp_path) -> None:
    echo = "Your first sentence answers the question directly. When the question asks for one thing."
    llm = scripted_llm(echo, DIRECT)
    draft = answer_drafter(llm, tmp_path).run("What is the capital of South Korea?", ENTRIES, "en")
    assert draft.text == DIRECT and draft.attempts == 2
    assert "first one sentence that gives the answer" in llm.calls[1].messages[-1].content


def test_answer_form_stream_reshows_a_draft_whose_title_was_dropped(scripted_llm, tmp_path) -> None:
    events = list(answer_drafter(scripted_llm("# Seoul\n\n" + DIRECT), tmp_path).stream("Capital?", ENTRIES, "en"))
    texts = [e for e in events if isinstance(e, str)]
    assert texts[-2:] == ["\f", DIRECT] and events[-1].text == DIRECT
    events = list(answer_drafter(scripted_llm(DIRECT), tmp_path).stream("Capital?", ENTRIES, "en"))
    assert "\f" not in events and "".join(e for e in events if isinstance(e, str)) == DIRECT


def test_answer_form_language_repair(scripted_llm, tmp_path) -> None:
    korean = "서울은 대한민국의 수도이다. 서울은 1948년부터 수도였다."
    llm = scripted_llm(DIRECT, korean)
    draft = answer_drafter(llm, tmp_path).run("한국의 수도는 어디인가요?", ENTRIES, "ko")
    assert draft.repair is not None and draft.repair.accepted and draft.text == korean and draft.draft_language == "en"


def test_short_answer_mode_keeps_its_form_under_either_format(scripted_llm, tmp_path) -> None:
    for form in ("answer", "report"):
        llm = scripted_llm("Answer: Seoul\nSeoul is the capital of South Korea.")
        draft = answer_drafter(llm, tmp_path, f"generate.format={form}", "generate.short_answer=true").run("Capital?", ENTRIES, "en")
        assert draft.short_answer == "Seoul" and draft.text.startswith("Answer: Seoul")
        assert "Answer: <answer phrase>" in llm.calls[0].prompt


def test_report_format_keeps_the_structured_prompt(scripted_llm, tmp_path) -> None:
    llm = scripted_llm(ENGLISH)
    draft = answer_drafter(llm, tmp_path, "generate.format=report").run("What is the capital of Korea?", ENTRIES, "en")
    assert 'title line beginning with "# "' in llm.calls[0].prompt and draft.text == ENGLISH


def test_a_sentence_written_twice_is_kept_once() -> None:
    # A real default answer to "Which data set holds the Stanford heart transplant study?" (timedep.pdf).
    twice = (
        "The jasa data set contains information from the Stanford heart transplant study.\n\n"
        "The jasa data set contains information from the Stanford heart transplant study."
    )
    assert without_repeated_sentences(twice, "en") == "The jasa data set contains information from the Stanford heart transplant study."
    kept = "Seoul is large. It is busy.\n\nSeoul is LARGE.  It has parks."
    assert without_repeated_sentences(kept, "en") == "Seoul is large. It is busy.\n\nIt has parks."
    assert without_repeated_sentences(ENGLISH, "en") == ENGLISH  # nothing repeated: the text as it was
    # A real HotpotQA answer closed with its first sentence again after "Therefore,".
    concluded = ("Jonny Craig has been a member of more bands than Pete Doherty.\n\nHe sang in Emarosa.\n\n"
                 "Therefore, Jonny Craig has been a member of more bands than Pete Doherty.")
    assert without_repeated_sentences(concluded, "en") == (
        "Jonny Craig has been a member of more bands than Pete Doherty.\n\nHe sang in Emarosa.")
    assert without_repeated_sentences("Some came. So, some came.", "en") == "Some came."
    assert without_repeated_sentences("Some came. Me came.", "en") == "Some came. Me came."


def test_a_retry_that_frames_its_answer_with_the_instructions_keeps_only_the_answer(scripted_llm, tmp_path) -> None:
    # The shape of a real retry (timedep.pdf, "How does coxph build a true time-dependent covariate ...?").
    echo = "Your first sentence answers the question directly. When the question asks for one thing."
    framed = (
        'The first sentence answers the question directly: "Seoul is the capital of South Korea."\n\n'
        "After it, explain in two or three short paragraphs of two to four sentences each, separated by blank lines:\n\n"
        + DIRECT
    )
    draft = answer_drafter(scripted_llm(echo, framed), tmp_path).run("How did Seoul become the capital of South Korea?", ENTRIES, "en")
    assert draft.text == DIRECT


# A draft that only restates the question (generate/restate.py).

PANEL_Q = ("The vignette illustrates clustered covariances with the Aghion et al. (2013) data on innovation. "
           "How many firms does that panel cover?")
RESTATED = "The vignette illustrates clustered covariances with the Aghion et al. (2013) data on innovation."


def test_a_restated_premise_before_the_answer_stands(scripted_llm, tmp_path) -> None:
    llm = scripted_llm(f"{RESTATED} The panel covers 803 firms.")
    draft = answer_drafter(llm, tmp_path).run(PANEL_Q, ENTRIES, "en")
    assert draft.text == f"{RESTATED} The panel covers 803 firms." and not draft.only_restated and len(llm.calls) == 1


def test_a_draft_that_only_restates_is_asked_again(scripted_llm, tmp_path) -> None:
    llm = scripted_llm(RESTATED, "The panel covers 803 firms.")
    draft = answer_drafter(llm, tmp_path).run(PANEL_Q, ENTRIES, "en")
    assert draft.text == "The panel covers 803 firms." and draft.attempts == 2 and not draft.refused
    assert "only repeated the question" in llm.calls[1].messages[-1].content
    assert llm.calls[1].messages[-2].content == RESTATED


def test_a_second_restatement_is_reported_as_no_answer(scripted_llm, tmp_path) -> None:
    llm = scripted_llm(RESTATED, "That panel covers firms.")
    events = list(answer_drafter(llm, tmp_path).stream(PANEL_Q, ENTRIES, "en"))
    draft = events[-1]
    assert draft.refused and draft.only_restated and draft.trace()["only_restated"]
    assert draft.text == "The sources do not answer this question."
    assert [e for e in events if isinstance(e, str)][-2:] == ["\f", draft.text]


def test_a_yes_no_answer_in_the_question_s_words_stands(scripted_llm, tmp_path) -> None:
    llm = scripted_llm("Seoul is the capital of South Korea.")
    draft = answer_drafter(llm, tmp_path).run("Is Seoul the capital of South Korea?", ENTRIES, "en")
    assert draft.text == "Seoul is the capital of South Korea." and not draft.only_restated and len(llm.calls) == 1
