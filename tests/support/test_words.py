"""Words of a claim against words of its passages (the support judge's cheap half)."""

from __future__ import annotations

from navicite.support.words import claim_names, lexical_support, novel_words, span_support, swapped_subject, unmentioned

EIFFEL = "The Eiffel Tower is a lattice tower in Paris. It was completed in 1889 and is 330 metres tall."
KIM = "김 교수 연구팀은 당뇨병 진단 모델을 개발했으며 정확도는 95.7%였다."
TT = (
    "A true time-dependent covariate can be constructed using the time-transform functionality of coxph. "
    "> vfit3 <- coxph(Surv(time, status) ~ trt + prior + karno + tt(karno), data=veteran)"
)




def test_lexical_support_orders_pairs_sensibly() -> None:
    assert lexical_support("The Eiffel Tower was completed in 1889.", EIFFEL) > 0.8
    assert lexical_support("The tower stands in Berlin.", EIFFEL) < 0.6
    assert lexical_support("Bananas are yellow fruit.", EIFFEL) == 0.0
    assert lexical_support("", EIFFEL) == 0.0


def test_a_wrong_number_halves_support() -> None:
    right = lexical_support("It was completed in 1889.", EIFFEL)
    wrong = lexical_support("It was completed in 1887.", EIFFEL)
    assert wrong < right / 2 + 0.01


def test_a_name_the_source_never_mentions_is_not_accepted_on_overlap() -> None:
    source = "Folic acid supplementation lowered plasma homocysteine in healthy adults."
    plain = lexical_support("Folic acid supplementation lowered homocysteine in adults.", source)
    assert plain >= 0.8
    for invented in (
        "Smith et al. showed folic acid supplementation lowered homocysteine in adults.",
        "A trial by Smith showed folic acid supplementation lowered homocysteine in adults.",
    ):
        assert lexical_support(invented, source) < 0.8
    named = "Folic acid supplementation lowered homocysteine in Dutch adults."
    assert lexical_support(named, source + " The adults were Dutch.") >= 0.8
    hyphenated = "Folic acid supplementation lowered homocysteine in COVID-19 patients."
    assert lexical_support(hyphenated, "Folic acid supplementation lowered homocysteine in COVID-19 patients.") == 1.0


def test_korean_overlap_survives_particles() -> None:
    assert lexical_support("연구팀의 당뇨병 진단 정확도는 95.7%이다.", KIM) > 0.6
    assert lexical_support("서울은 한국의 수도이다.", KIM) < 0.2


def test_names_numbers_and_code_are_what_a_claim_names() -> None:
    assert claim_names("The study by Smith et al. shows that folic acid lowers homocysteine.") == ["Smith"]
    assert claim_names("Smith et al. showed it.") == ["Smith"]
    assert claim_names("It was built in Paris in 1,889.") == ["1889", "Paris"]
    assert claim_names("Use `coxph` with tmerge() and time_dep columns.") == ["coxph", "tmerge", "time_dep"]
    # The first word, the pronoun and the article are capitalised without naming anything.
    assert claim_names("Both were American, as I said.") == ["American"]
    # A Korean particle after a name in Latin script is not part of it.
    assert claim_names("Jonny Craig는 Emarosa 밴드에서 활동했다.") == ["Craig", "Emarosa"]
    # A clause after a colon or a list dash opens with a capital too (ExpertQA's list answers).
    assert claim_names("Choose a model: Select a machine learning algorithm.") == []
    assert claim_names("Tips are:  - **Get a feel for the big picture**") == []


def test_digits_run_into_letters_are_one_name() -> None:
    # pile-19: "2xx :: Success" passed against a Bash passage holding a "2" elsewhere.
    assert claim_names("Code 2xx means Success.") == ["2xx", "Success"]
    assert unmentioned("2xx :: Success", ["Bash-5.2 reports Success."]) == ["2xx"]
    assert unmentioned("A value of 2 (0x02) is an interior page.", ["A value of 2 (0x02) means an interior page."]) == []
    assert unmentioned("It waits 10ms.", ["It waits 10 ms."]) == []


def test_novel_words_are_the_content_words_no_source_holds() -> None:
    elaboration = "The time-transform function takes the baseline variable and returns a linear combination of the two."
    assert set(novel_words(elaboration, [TT])) >= {"linear", "combin", "return"}
    # Inflections meet through the stemmer; stop words never count.
    assert novel_words("The coxph function builds a covariate because of a spline.", [TT, "How does coxph build one?"]) == ["spline"]


def test_novel_words_leave_korean_endings_out() -> None:
    source = "임수경은 1989년 6월 30일 평양축전에 대표로 파견되었다."
    assert novel_words("평양축전에 파견된 인물은 임수경입니다.", [source]) == []


def test_novel_words_leave_words_about_the_sources_out() -> None:
    # The bundled sample's answer, on its cited abstract: only "sources", "confirm" and
    # "stating" were missing from it, and they report on the source rather than claim anything.
    source = ("Lowering serum homocysteine levels with folic acid is expected to reduce mortality from "
              "ischemic heart disease.")
    claim = ("The sources confirm this by stating that lowering serum homocysteine levels with folic acid is "
             "expected to reduce mortality from ischemic heart disease.")
    assert novel_words(claim, [source]) == []
    assert novel_words("The study reports a spline.", [source]) == ["spline"]


def test_span_support_needs_the_words_in_one_place() -> None:
    passage = ("vcovHAC() computes HAC covariance matrix estimates. Further interfaces kernHAC() and NeweyWest() are "
               "available. Another package is car, whose hccm() computes HC0 to HC4.")
    joined = "The car package provides kernHAC() and NeweyWest() for HAC covariances."
    assert lexical_support(joined, passage) >= 0.8  # every word is somewhere in the passage
    assert span_support(joined, passage) < 0.8  # but no sentence (or two in a row) says it
    assert span_support("vcovHAC() computes HAC covariance matrix estimates.", passage) == 1.0


def test_swapped_subject_sees_a_source_sentence_told_of_another_subject() -> None:
    libertines = ("The Libertines are an English rock band, formed in London in 1997 by frontmen Carl Barât "
                  "(vocals/guitar) and Pete Doherty (vocals/guitar). The band was part of the garage rock revival.")
    swapped = ("Pete Doherty is an English rock band, formed in London in 1997 by frontmen Carl Barât "
               "(vocals/guitar) and Pete Doherty (vocals/guitar).")
    assert swapped_subject(swapped, [libertines])
    assert not swapped_subject("The Libertines are an English rock band formed in London in 1997.", [libertines])
    craig = ('Jonathan Monroe "Jonny" Craig (born March 26, 1986) is a Canadian-American singer and songwriter. '
             "He has been the lead vocalist for the bands Dance Gavin Dance, Emarosa and Slaves.")
    assert not swapped_subject("Jonny Craig is a Canadian-American singer and songwriter.", [craig])


def test_span_support_ignores_the_title_alone_and_a_turned_statement() -> None:
    title = "Cognitive behavioral therapy vs. zopiclone for treatment of chronic primary insomnia"
    text = "Participants in the CBT group spent much more time in slow-wave sleep than those in other groups."
    claim = "Cognitive behavioral therapy is an ineffective treatment for insomnia"
    assert lexical_support(claim, f"{title}\n{text}") >= 0.8 and span_support(claim, text, title) < 0.8
    stated = "Folic acid supplementation lowered plasma homocysteine in healthy adults."
    assert span_support("Folic acid supplementation lowered plasma homocysteine.", stated) == 1.0
    assert span_support("Folic acid supplementation did not lower plasma homocysteine.", stated) == 0.0
    assert span_support("Folic acid supplementation is ineffective for plasma homocysteine.", stated) == 0.0


def test_a_sentence_that_gives_the_claim_another_name_disputes_it() -> None:
    from navicite.support.words import disputing_sentence

    other = "Some say so. The capital of France is Berlin, according to this page."
    assert disputing_sentence("The capital of France is Paris.", other) == "The capital of France is Berlin, according to this page."
    assert disputing_sentence("The capital of France is Paris.", "Its capital and largest city is Paris.") is None
    assert disputing_sentence("The Eiffel Tower was completed in 1889.", "The Statue of Liberty was completed in 1886.") is None
    assert disputing_sentence("The Eiffel Tower was completed in 1889.", "The Eiffel Tower was completed in 1887.") is not None


def test_a_capitalised_function_word_is_no_missing_name() -> None:
    # The bundled sample's abstract, copied word for word into an answer by the no-model fallback.
    source = "CONTEXT Many observational studies have shown that physical activity reduces the risk of cognitive decline."
    assert lexical_support(source, source) == 1.0 and span_support(source, source) == 1.0
