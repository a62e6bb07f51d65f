"""Support scoring and verification of alignments."""

from __future__ import annotations

from navicite.config import load_settings
from navicite.generate.align import Alignment
from navicite.generate.answer import Source
from navicite.generate.sources import ContextEntry
from navicite.generate.verify import (
    HybridScorer,
    JudgeScorer,
    LexicalScorer,
    Verifier,
    ask_support,
    closest_sentence,
    create_scorer,
    plain_claim,
    swapped_subject,
    lexical_support,
    linked,
)
from navicite.llm.base import LLMOutputError

EIFFEL = "The Eiffel Tower is a lattice tower in Paris. It was completed in 1889 and is 330 metres tall."
KIM = "김 교수 연구팀은 당뇨병 진단 모델을 개발했으며 정확도는 95.7%였다."


def entry(n: int, text: str, title: str = "") -> ContextEntry:
    return ContextEntry(n, Source(f"d{n}", title or f"T{n}", text), text, False)


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


def test_judge_groups_calls_by_source_and_falls_back_on_bad_output(scripted_llm) -> None:
    e1, e2 = entry(1, EIFFEL), entry(2, "Gustave Eiffel's company built the tower.")
    llm = scripted_llm({"supported": True}, {"supported": False}, LLMOutputError("x"))
    judge = JudgeScorer(llm)
    scores = judge.score([("Claim A.", e2), ("The Eiffel Tower was completed in 1889.", e1), ("Claim C.", e1)])
    # Calls go source 1, source 1, source 2: the source-1 prompts share their prefix.
    assert "Claim: The Eiffel Tower" in llm.calls[0].prompt and "Claim: Claim C." in llm.calls[1].prompt
    assert scores[1] == (1.0, "llm") and scores[2] == (0.0, "llm")
    assert scores[0][1] == "lexical" and judge.failures == 1


def test_hybrid_asks_only_when_overlap_cannot_decide(scripted_llm) -> None:
    llm = scripted_llm(default={"supported": True})
    hybrid = HybridScorer(JudgeScorer(llm), accept=0.8, max_calls=5)
    e = entry(1, EIFFEL)
    scores = hybrid.score(
        [
            ("The Eiffel Tower was completed in 1889.", e),  # clear overlap: no call
            ("Bananas are yellow fruit.", e),  # no overlap, same script: no call
            ("The tower in Paris is famous.", e),  # partial overlap: judge
            ("에펠탑은 1889년에 완공되었다.", e),  # Korean claim, English source: judge
        ]
    )
    assert len(llm.calls) == 2
    assert scores[0][1] == "lexical" and scores[1] == (0.0, "lexical")
    assert scores[2] == (1.0, "llm") and scores[3] == (1.0, "llm")


def test_hybrid_call_budget(scripted_llm) -> None:
    llm = scripted_llm(default={"supported": True})
    hybrid = HybridScorer(JudgeScorer(llm), accept=0.99, max_calls=1)
    e = entry(1, EIFFEL)
    hybrid.score([("The tower in Paris is famous.", e), ("The lattice tower is tall.", e)])
    assert len(llm.calls) == 1


def test_verifier_keeps_supported_drops_unsupported_and_rescues() -> None:
    entries = [entry(1, EIFFEL), entry(2, "Gustave Eiffel's company designed and built the Eiffel Tower.")]
    sentences = [
        "This answer is about a tower.",
        "The Eiffel Tower was completed in 1889.",
        "Gustave Eiffel's company built the Eiffel Tower.",
        "The tower is painted green every year by robots.",
        "The Eiffel Tower is in Paris.",
    ]
    alignments = [
        Alignment("general", ()),
        Alignment("fact", (1,)),
        Alignment("fact", (1,)),  # wrong source: rescued by source 2
        Alignment("fact", (1,)),  # not supported anywhere
        Alignment("general", ()),  # labelled general, but source 1 states it word for word
    ]
    verified = Verifier(LexicalScorer(), threshold=0.5, general_accept=0.8).run(sentences, alignments, entries)
    assert verified[0].kept == []
    assert verified[1].kept == [1] and verified[1].support and verified[1].support > 0.8
    assert verified[2].kept == [2] and [c.kept for c in verified[2].checks] == [False, True]
    assert verified[3].kept == []
    assert verified[4].kept == [1] and verified[4].kind == "general"


def test_create_scorer_follows_settings(tmp_path, scripted_llm) -> None:
    llm = scripted_llm()
    assert isinstance(create_scorer(llm, load_settings(tmp_path, ["generate.verifier=lexical"])), LexicalScorer)
    assert isinstance(create_scorer(llm, load_settings(tmp_path, ["generate.verifier=llm"])), JudgeScorer)
    assert isinstance(create_scorer(llm, load_settings(tmp_path)), HybridScorer)
    assert isinstance(create_scorer(None, load_settings(tmp_path)), LexicalScorer)


def test_unlabelled_sentences_are_guessed_by_their_content() -> None:
    from navicite.generate.verify import looks_factual

    assert looks_factual("It opened in 1889.") and looks_factual("It was built by Gustave Eiffel.")
    assert not looks_factual("In short, it is a landmark.")
    entries = [entry(1, EIFFEL)]
    sentences = ["In short, it is a landmark.", "It was moved to Lyon in 1950."]
    unanswered = [Alignment("fact", (), answered=False)] * 2
    verified = Verifier(LexicalScorer(), threshold=0.5, general_accept=0.8).run(sentences, unanswered, entries)
    assert [v.kind for v in verified] == ["general", "fact"] and verified[1].kept == []


# Names, numbers and code the cited source never mentions.

FOLATE = (
    "In a randomised trial of 100 healthy adults, folic acid supplementation of 0.8 mg a day lowered plasma "
    "homocysteine by 25 percent after 12 weeks."
)
SURVIVAL = (
    "The coxph() function of the survival package fits Cox proportional hazards models. Time-dependent "
    "covariates are built with tmerge(), which splits each subject's follow-up at the event times."
)


def test_names_numbers_and_code_are_what_a_claim_names() -> None:
    from navicite.generate.verify import claim_names

    assert claim_names("The study by Smith et al. shows that folic acid lowers homocysteine.") == ["Smith"]
    assert claim_names("Smith et al. showed it.") == ["Smith"]
    assert claim_names("It was built in Paris in 1,889.") == ["1889", "Paris"]
    assert claim_names("Use `coxph` with tmerge() and time_dep columns.") == ["coxph", "tmerge", "time_dep"]
    # The first word, the pronoun and the article are capitalised without naming anything.
    assert claim_names("Both were American, as I said.") == ["American"]
    # A Korean particle after a name in Latin script is not part of it.
    assert claim_names("Jonny Craig는 Emarosa 밴드에서 활동했다.") == ["Craig", "Emarosa"]


def test_an_invented_author_cannot_be_cited_on_a_source_without_him() -> None:
    sentence = "The study by Smith et al. shows that folic acid supplementation lowered plasma homocysteine in healthy adults."
    entries = [entry(1, FOLATE, "Folic acid and homocysteine")]
    # Even a judge that accepts everything does not make the source cite a name it lacks.
    llm_says_yes = _Always(1.0)
    [result] = Verifier(llm_says_yes, threshold=0.5, general_accept=0.8).run([sentence], [Alignment("fact", (1,))], entries)
    assert result.kept == [] and llm_says_yes.asked == 0
    assert [(c.source, c.kept, c.scorer) for c in result.checks] == [(1, False, "names")]
    # The same sentence without the name is cited.
    plain = "Folic acid supplementation lowered plasma homocysteine in healthy adults."
    [result] = Verifier(_Always(1.0), threshold=0.5, general_accept=0.8).run([plain], [Alignment("fact", (1,))], entries)
    assert result.kept == [1]


def test_invented_function_names_are_not_supported_by_the_manual() -> None:
    entries = [entry(1, SURVIVAL, "survival package")]
    invented = [
        "The survival package offers two optimizers, Newton-Raphson and Efron, for coxph().",
        "Time-dependent covariates are built with tmerge() or survSplit().",
        "The coxph() function fits Cox models on 3 cores.",
    ]
    verified = Verifier(_Always(1.0), threshold=0.5, general_accept=0.8).run(invented, [Alignment("fact", (1,))] * 3, entries)
    assert [v.kept for v in verified] == [[], [], []]
    stated = "Time-dependent covariates are built with tmerge(), which splits each subject's follow-up."
    [ok] = Verifier(_Always(1.0), threshold=0.5, general_accept=0.8).run([stated], [Alignment("fact", (1,))], entries)
    assert ok.kept == [1]


def test_a_wrong_number_is_not_cited_even_by_the_rescue() -> None:
    entries = [entry(1, FOLATE)]
    sentence = "Folic acid supplementation of 0.8 mg a day lowered plasma homocysteine by 40 percent after 12 weeks."
    [result] = Verifier(LexicalScorer(), threshold=0.5, general_accept=0.8).run([sentence], [Alignment("fact", ())], entries)
    assert result.kept == []
    right = sentence.replace("40", "25")
    [result] = Verifier(LexicalScorer(), threshold=0.5, general_accept=0.8).run([right], [Alignment("fact", ())], entries)
    assert result.kept == [1]


def test_a_two_source_sentence_passes_when_each_name_is_in_one_of_its_sources() -> None:
    derrickson = entry(1, "Scott Derrickson is an American director, screenwriter and producer.", "Scott Derrickson")
    wood = entry(2, "Edward Davis Wood Jr., known as Ed Wood, was an American filmmaker and actor.", "Ed Wood")
    sentence = "Scott Derrickson and Ed Wood were both American."
    judge = _Always(1.0)
    [both] = Verifier(judge, threshold=0.5, general_accept=0.8).run([sentence], [Alignment("fact", (1, 2))], [derrickson, wood])
    assert both.kept == [1, 2] and judge.asked == 2
    # Cited on one of them only, Ed Wood is named by no cited source.
    [one] = Verifier(_Always(1.0), threshold=0.5, general_accept=0.8).run([sentence], [Alignment("fact", (1,))], [derrickson, wood])
    assert 1 not in one.kept


def test_a_kept_source_is_dropped_when_together_they_miss_a_name(scripted_llm) -> None:
    # The judge accepts source 1 and rejects source 2, which has the name: source 1 alone cannot carry it.
    derrickson = entry(1, "Scott Derrickson is an American director.", "Scott Derrickson")
    wood = entry(2, "Ed Wood was an American filmmaker.", "Ed Wood")
    llm = scripted_llm({"supported": True}, {"supported": False})
    [result] = Verifier(JudgeScorer(llm), threshold=0.5, general_accept=0.8).run(
        ["Scott Derrickson and Ed Wood were both American."], [Alignment("fact", (1, 2))], [derrickson, wood]
    )
    assert result.kept == [] and result.support is None
    assert [(c.source, c.kept, c.scorer) for c in result.checks] == [(1, False, "llm+names"), (2, False, "llm")]


CRAIG = entry(1, "Jonny Craig has been the lead vocalist for the bands Dance Gavin Dance, Emarosa and Slaves.", "Jonny Craig")
DOHERTY = entry(2, "Pete Doherty is best known as co-frontman of the Libertines; his other band is Babyshambles.", "Pete Doherty")
OTHER = entry(3, "Isles & Glaciers was a supergroup formed in 2009.", "Isles & Glaciers")
COMPARISON = "Jonny Craig has been a member of more bands than Pete Doherty."


def test_a_claim_no_single_source_supports_is_judged_against_the_pair_that_covers_it(scripted_llm) -> None:
    # The aligner proposed the wrong source, and alone neither right one names both singers:
    # no single check is worth a call, the pair read together is.
    llm = scripted_llm({"supported": True})
    judge = JudgeScorer(llm)
    [result] = Verifier(judge, threshold=0.5, general_accept=0.8, judge=judge).run(
        [COMPARISON], [Alignment("fact", (3,))], [CRAIG, DOHERTY, OTHER]
    )
    assert result.kept == [1, 2]
    assert [(c.source, c.scorer) for c in result.checks if c.kept] == [(1, "joint"), (2, "joint")]
    assert len(llm.calls) == 1
    together = llm.calls[0].prompt
    # Each source in its own numbered block, under its own title.
    assert '<source id="1">\nTitle: Jonny Craig\nJonny Craig has been' in together
    assert '<source id="2">\nTitle: Pete Doherty\nPete Doherty is' in together
    assert "Isles" not in together


def test_the_judge_reads_a_claim_without_markdown_marks(scripted_llm) -> None:
    llm = scripted_llm({"supported": True})
    ask_support(llm, "Competing risks", "The data set can be created using the finegray command.",
                "The command that creates the data set is `finegray`, a **new** one.")
    assert "Claim: The command that creates the data set is finegray, a new one." in llm.calls[0].prompt
    assert plain_claim("`tmerge()` and `__init__`") == "tmerge() and __init__"


def test_the_pair_is_not_judged_when_it_misses_a_name_or_the_judge_is_off(scripted_llm) -> None:
    llm = scripted_llm(default={"supported": False})
    judge = JudgeScorer(llm)
    invented = "Jonny Craig has been a member of more bands than Pete Doherty and Morrissey."
    [named] = Verifier(judge, threshold=0.5, general_accept=0.8, judge=judge).run(
        [invented], [Alignment("fact", (1, 2))], [CRAIG, DOHERTY, OTHER]
    )
    assert named.kept == [] and not any(c.scorer == "joint" for c in named.checks)
    asked = len(llm.calls)
    [off] = Verifier(judge, threshold=0.5, general_accept=0.8, judge=judge, joint=False).run([COMPARISON], [Alignment("fact", (1, 2))], [CRAIG, DOHERTY])
    assert off.kept == [] and len(llm.calls) == asked + 2  # the two single checks, no joint call


def test_a_failing_joint_judge_leaves_the_claim_unsupported(scripted_llm) -> None:
    # Both single checks refused, then the pair's call fails twice (the reply and its repair).
    llm = scripted_llm({"supported": False}, {"supported": False}, "not json", "still not json")
    judge = JudgeScorer(llm)
    [result] = Verifier(judge, threshold=0.5, general_accept=0.8, judge=judge).run(
        [COMPARISON], [Alignment("fact", (1, 2))], [CRAIG, DOHERTY]
    )
    assert result.kept == [] and judge.failures == 1


def test_the_second_judge_follows_the_verifier_setting(tmp_path, scripted_llm) -> None:
    from navicite.generate.verify import create_support_judge

    llm = scripted_llm()
    assert create_support_judge(llm, load_settings(tmp_path)) is not None
    assert create_support_judge(llm, load_settings(tmp_path, ["generate.verifier=lexical"])) is None
    assert create_support_judge(None, load_settings(tmp_path)) is None
    old = load_settings(tmp_path, preset="first-release").generate
    assert not old.joint_support and not old.confirm_answer


def test_the_answer_sentence_is_not_cited_on_overlap_alone(scripted_llm) -> None:
    # The real HotpotQA case: every word is in Jaclyn Stapp's passage, but 2008 is her pageant title's year.
    stapp = entry(1, "Jaclyn Stapp is a former Mrs. Florida America 2008 and the wife of Scott Stapp, "
                     "the former frontman of the band Creed.", "Jaclyn Stapp")
    answer = "Jaclyn Stapp is married to the former frontman of the band Creed, which disbanded in 2008."
    after = "Scott Stapp was the frontman of the band Creed."
    llm = scripted_llm({"supported": False})
    judge = JudgeScorer(llm)
    scorer = HybridScorer(judge, accept=0.8, max_calls=16)
    first, second = Verifier(scorer, threshold=0.5, general_accept=0.8, judge=judge, confirm_first=True, joint=False).run(
        [answer, after], [Alignment("fact", (1,))] * 2, [stapp]
    )
    assert lexical_support(answer, stapp.text) >= 0.8  # overlap alone would have cited it
    assert first.kept == [] and [c.scorer for c in first.checks] == ["lexical+judge", "llm-confirm"]
    assert second.kept == [1] and len(llm.calls) == 1  # only the answer sentence costs a call
    # Confirmed, it stays cited.
    yes = scripted_llm({"supported": True})
    [kept] = Verifier(HybridScorer(JudgeScorer(yes), accept=0.8, max_calls=16), threshold=0.5, general_accept=0.8,
                      judge=JudgeScorer(yes), confirm_first=True).run([answer], [Alignment("fact", (1,))], [stapp])
    assert kept.kept == [1] and len(yes.calls) == 1


class _Always:
    """A scorer that gives every pair the same score and counts the pairs it was asked about."""

    name = "llm"

    def __init__(self, score: float) -> None:
        self.value = score
        self.asked = 0

    def score(self, pairs):
        self.asked += len(pairs)
        return [(self.value, self.name) for _ in pairs]


def test_a_name_the_question_gave_need_not_be_repeated_by_the_source() -> None:
    # The real compete.pdf passage that answers "Which command creates the data set for a Fine-Gray model?"
    passage = entry(1, "The data set can be created using the finegray command. The finegray command has been used "
                       "to create two data sets: one for the PCM endpoint and one for the death endpoint.", "Multi-state models")
    sentence = "The command that creates the data set for a Fine-Gray model is finegray()."
    question = "Which command creates the data set for a Fine-Gray model?"
    [bare] = Verifier(_Always(1.0), threshold=0.5, general_accept=0.8).run([sentence], [Alignment("fact", (1,))], [passage])
    assert bare.kept == []  # without the question, "Fine-Gray" looks invented
    [asked] = Verifier(_Always(1.0), threshold=0.5, general_accept=0.8).run([sentence], [Alignment("fact", (1,))], [passage], question)
    assert asked.kept == [1]
    # A name that neither the question nor the source has is still refused.
    [invented] = Verifier(_Always(1.0), threshold=0.5, general_accept=0.8).run(
        ["The finegray command was written by Gray in 1999."], [Alignment("fact", (1,))], [passage], question)
    assert invented.kept == []


# Sentences that say more than their sources (the shared PDFs' answers, read by hand).
TT = (
    "A true time-dependent covariate can be constructed using the time-transform functionality of coxph. "
    "> vfit3 <- coxph(Surv(time, status) ~ trt + prior + karno + tt(karno), data=veteran)"
)


def test_novel_words_are_the_content_words_no_source_holds() -> None:
    from navicite.generate.verify import novel_words

    elaboration = "The time-transform function takes the baseline variable and returns a linear combination of the two."
    assert set(novel_words(elaboration, [TT])) >= {"linear", "combin", "return"}
    # Inflections meet through the stemmer; stop words never count.
    assert novel_words("The coxph function builds a covariate because of a spline.", [TT, "How does coxph build one?"]) == ["spline"]


def test_wording_rule_uncites_an_elaboration_the_judge_accepted() -> None:
    entries = [entry(1, TT)]
    stated = "A true time-dependent covariate is built with the time-transform functionality of coxph."
    invented = "The time-transform function takes the baseline variable and returns a linear combination of the two."
    alignments = [Alignment("fact", (1,))] * 2
    strict = Verifier(_Always(1.0), threshold=0.5, general_accept=0.8, novel_words=3).run([stated, invented], alignments, entries)
    assert strict[0].kept == [1] and strict[1].kept == []
    assert strict[1].checks[0].scorer == "wording"  # rejected before any judge call
    lenient = Verifier(_Always(1.0), threshold=0.5, general_accept=0.8, novel_words=0).run([stated, invented], alignments, entries)
    assert lenient[1].kept == [1]


def test_wording_rule_is_on_for_the_embedded_model_only_unless_set(tmp_path) -> None:
    from navicite.config import PROFILES
    from navicite.generate.verify import novel_words_limit

    assert novel_words_limit(load_settings(tmp_path, ["llm.backend=embedded"])) == PROFILES["small"]["generate.novel_words"] == 3
    assert novel_words_limit(load_settings(tmp_path, ["llm.backend=openai"])) == 0
    assert novel_words_limit(load_settings(tmp_path, ["llm.backend=openai", "generate.novel_words=4"])) == 4
    assert novel_words_limit(load_settings(tmp_path, ["llm.backend=openai", "llm.profile=small"])) == 3


def test_novel_words_leave_korean_endings_out() -> None:
    from navicite.generate.verify import novel_words

    source = "임수경은 1989년 6월 30일 평양축전에 대표로 파견되었다."
    assert novel_words("평양축전에 파견된 인물은 임수경입니다.", [source]) == []


def test_novel_words_leave_words_about_the_sources_out() -> None:
    from navicite.generate.verify import novel_words

    # The bundled sample's answer, on its cited abstract: only "sources", "confirm" and
    # "stating" were missing from it, and they report on the source rather than claim anything.
    source = ("Lowering serum homocysteine levels with folic acid is expected to reduce mortality from "
              "ischemic heart disease.")
    claim = ("The sources confirm this by stating that lowering serum homocysteine levels with folic acid is "
             "expected to reduce mortality from ischemic heart disease.")
    assert novel_words(claim, [source]) == []
    assert novel_words("The study reports a spline.", [source]) == ["spline"]


def test_no_pair_is_judged_for_a_sentence_one_source_names_fully(scripted_llm) -> None:
    # Refused on its wording, an elaboration must not be rescued by a second source's words.
    tt = entry(1, "A true time-dependent covariate can be constructed using the time-transform functionality of coxph.")
    more = entry(2, "The effect of the covariate on the survival of the subjects is estimated by the model.")
    sentence = "This new variable is then used in the coxph model to estimate the effect of the covariate on survival."
    llm = scripted_llm(default={"supported": True})
    judge = JudgeScorer(llm)
    [result] = Verifier(judge, threshold=0.5, general_accept=0.8, novel_words=3, judge=judge).run(
        [sentence], [Alignment("fact", (1,))], [tt, more])
    assert not any(c.scorer == "joint" for c in result.checks)


def test_closest_sentence_matches_the_words_and_leaves_the_misread_number_aside() -> None:
    # timedep.pdf's two passages (pp. 1-2): the draft read 1.5 from the table; the sentence that gives the value says 0.9.
    table = ("id tstart tstop death creatinine 1 5 0 90 0 0.9 2 5 90 120 0 1.5 3 5 120 185 1 1.2 We read this as stating "
             "that over the interval from 0 to 90 the creatinine for subject \u201c5\u201d was 0.9 (last known level), and "
             "that this interval did not end in a death.")
    rule = ("The underlying code treats intervals as open on the left and closed on the right, e.g. the creatinine on "
            "exactly day 90 is 0.9. One way to think of this is that all changes for a given day (covariates or status) "
            "are recorded at the start of the next day.")
    entries = [ContextEntry(n, Source(f"p{n}", "Time dependent covariates", t), t, False) for n, t in ((1, table), (2, rule))]
    claim = "In the creatinine example, the value of creatinine that applies on exactly day 90 is 1.5 mg/dl."
    assert closest_sentence(claim, entries) == (
        "The underlying code treats intervals as open on the left and closed on the right, e.g. the creatinine on exactly day 90 is 0.9."
    )
    assert closest_sentence("Bananas are yellow.", entries) is None


LIBERTINES = entry(2, "The Libertines are an English rock band, formed in London in 1997 by frontmen Carl Barât "
                   "(vocals/guitar) and Pete Doherty (vocals/guitar). The band was part of the garage rock revival.",
                   "The Libertines")


def test_a_source_sentence_told_of_another_subject_is_not_cited(scripted_llm) -> None:
    # A real HotpotQA answer sentence: the passage's words, the wrong subject in front of them.
    swapped = ("Pete Doherty is an English rock band, formed in London in 1997 by frontmen Carl Barât "
               "(vocals/guitar) and Pete Doherty (vocals/guitar).")
    assert swapped_subject(swapped, [LIBERTINES.text])
    llm = scripted_llm(default={"supported": True})
    judge = JudgeScorer(llm)
    [result] = Verifier(HybridScorer(judge, accept=0.8, max_calls=4), threshold=0.5, general_accept=0.8, judge=judge).run(
        [swapped], [Alignment("fact", (2,))], [CRAIG, LIBERTINES])
    assert result.kept == [] and any(c.scorer.endswith("+names") for c in result.checks)
    # The source's own subject, a pronoun it resolves, a subject the source names otherwise: kept.
    assert not swapped_subject("The Libertines are an English rock band formed in London in 1997.", [LIBERTINES.text])
    craig = ('Jonathan Monroe "Jonny" Craig (born March 26, 1986) is a Canadian-American singer and songwriter. '
             "He has been the lead vocalist for the bands Dance Gavin Dance, Emarosa and Slaves.")
    assert not swapped_subject("Jonny Craig is a Canadian-American singer and songwriter.", [craig])
    assert not swapped_subject("Jonny Craig has been the lead vocalist for the bands Dance Gavin Dance, Emarosa and Slaves.", [craig])


def test_two_sources_make_a_claim_together_only_when_linked(scripted_llm) -> None:
    stapp = entry(1, "Jaclyn Stapp is married to Scott Stapp, former frontman of the band Creed. "
                  "Her titles include Miss New York USA 2004.", "Jaclyn Stapp")
    preytells = entry(2, "The Preytells were an Australian indie rock band, formed in 2004; they disbanded in 2009.",
                      "The Preytells")
    claim = "Jaclyn Stapp is married to the former frontman of the band Creed, which disbanded in 2004."
    # A real pair the judge accepted: the other band's page only lends the claim its year.
    assert not linked([stapp, preytells], [claim])
    llm = scripted_llm(default={"supported": True})
    judge = JudgeScorer(llm)
    [result] = Verifier(judge, threshold=0.5, general_accept=0.8, judge=judge).run(
        [claim], [Alignment("fact", (2,))], [stapp, preytells])
    assert 2 not in result.kept and not any(c.scorer == "joint" for c in result.checks)
    # A bridge (one page names the other's title, its note in brackets aside), both named in
    # the claim, or two passages of one document: linked.
    game = entry(1, "Lollipop Chainsaw features Juliet Starling (voiced by Tara Strong).", "Lollipop Chainsaw")
    actress = entry(2, "Tara Strong is a Canadian-American voice actress.", "Tara Strong (actress)")
    assert linked([actress, game], ["Juliet Starling was voiced by a Canadian-American actress."])
    assert linked([CRAIG, DOHERTY], [COMPARISON])
    page_3 = ContextEntry(3, Source("paper", "Cox models", "The data set is made by finegray."), "The data set is made by finegray.", False)
    page_4 = ContextEntry(4, Source("paper", "Cox models", "Fine-Gray models weight the rows."), "Fine-Gray models weight the rows.", False)
    assert linked([page_3, page_4], ["finegray builds the Fine-Gray data set."])
