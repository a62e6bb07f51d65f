"""Verification of alignments: which sources the verifier shows the support judge, and what it keeps."""

from __future__ import annotations

from navicite.config import load_settings
from navicite.generate.align import Alignment
from navicite.generate.answer import Source
from navicite.generate.sources import ContextEntry
from navicite.generate.verify import Verifier, closest_sentence, create_judge, create_verifier, linked
from navicite.support.base import Verdict
from navicite.support.cascade import Cascade, default_rules
from navicite.support.llm import LLMJudge
from navicite.support.words import lexical_support, swapped_subject


class _Always:
    """A model judge that gives every pair the same verdict and counts the pairs it was asked about."""

    name = "llm"

    def __init__(self, score: float) -> None:
        self.value = score
        self.asked = 0

    def entails(self, premises, claim, given=()):
        self.asked += 1
        return Verdict(self.value >= 0.5, self.value, self.name)


def verifier(model=None, novel_words: int = 0, joint: bool = True, confirm=None) -> Verifier:
    """The verifier around the default cascade with ``model`` (word rules and overlap only without one)."""
    return Verifier(Cascade(default_rules(novel_words), model), 0.8, joint=joint and model is not None, confirm=confirm)


EIFFEL = "The Eiffel Tower is a lattice tower in Paris. It was completed in 1889 and is 330 metres tall."
KIM = "김 교수 연구팀은 당뇨병 진단 모델을 개발했으며 정확도는 95.7%였다."


def entry(n: int, text: str, title: str = "") -> ContextEntry:
    return ContextEntry(n, Source(f"d{n}", title or f"T{n}", text), text, False)


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
    verified = verifier().run(sentences, alignments, entries)
    assert verified[0].kept == []
    assert verified[1].kept == [1] and verified[1].support and verified[1].support > 0.8
    assert verified[2].kept == [2] and [c.kept for c in verified[2].checks] == [False, True]
    assert verified[3].kept == []
    assert verified[4].kept == [1] and verified[4].kind == "general"


def test_the_judge_follows_the_verifier_setting(tmp_path, scripted_llm) -> None:
    llm = scripted_llm()
    lexical = create_judge(llm, load_settings(tmp_path, ["generate.verifier=lexical"]))
    assert lexical.model is None
    hybrid = create_judge(llm, load_settings(tmp_path))
    assert isinstance(hybrid.model, LLMJudge) and "overlap-accept" not in [r.name for r in hybrid.rules]
    assert "names" in [r.name for r in hybrid.rules]
    only_llm = create_judge(llm, load_settings(tmp_path, ["generate.verifier=llm"]))
    assert "overlap-accept" not in [r.name for r in only_llm.rules]
    assert create_judge(None, load_settings(tmp_path)).model is None
    assert create_verifier(None, load_settings(tmp_path), answer_form=True).confirm is None


def test_unlabelled_sentences_are_guessed_by_their_content() -> None:
    from navicite.generate.verify import looks_factual

    assert looks_factual("It opened in 1889.") and looks_factual("It was built by Gustave Eiffel.")
    assert not looks_factual("In short, it is a landmark.")
    entries = [entry(1, EIFFEL)]
    sentences = ["In short, it is a landmark.", "It was moved to Lyon in 1950."]
    unanswered = [Alignment("fact", (), answered=False)] * 2
    verified = verifier().run(sentences, unanswered, entries)
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


def test_an_invented_author_cannot_be_cited_on_a_source_without_him() -> None:
    sentence = "The study by Smith et al. shows that folic acid supplementation lowered plasma homocysteine in healthy adults."
    entries = [entry(1, FOLATE, "Folic acid and homocysteine")]
    # Even a judge that accepts everything does not make the source cite a name it lacks.
    llm_says_yes = _Always(1.0)
    [result] = verifier(llm_says_yes).run([sentence], [Alignment("fact", (1,))], entries)
    assert result.kept == [] and llm_says_yes.asked == 0
    assert [(c.source, c.kept, c.scorer) for c in result.checks] == [(1, False, "names")]
    # The same sentence without the name is cited.
    plain = "Folic acid supplementation lowered plasma homocysteine in healthy adults."
    [result] = verifier(_Always(1.0)).run([plain], [Alignment("fact", (1,))], entries)
    assert result.kept == [1]


def test_invented_function_names_are_not_supported_by_the_manual() -> None:
    entries = [entry(1, SURVIVAL, "survival package")]
    invented = [
        "The survival package offers two optimizers, Newton-Raphson and Efron, for coxph().",
        "Time-dependent covariates are built with tmerge() or survSplit().",
        "The coxph() function fits Cox models on 3 cores.",
    ]
    verified = verifier(_Always(1.0)).run(invented, [Alignment("fact", (1,))] * 3, entries)
    assert [v.kept for v in verified] == [[], [], []]
    stated = "Time-dependent covariates are built with tmerge(), which splits each subject's follow-up."
    [ok] = verifier(_Always(1.0)).run([stated], [Alignment("fact", (1,))], entries)
    assert ok.kept == [1]


def test_a_wrong_number_is_not_cited_even_by_the_rescue() -> None:
    entries = [entry(1, FOLATE)]
    sentence = "Folic acid supplementation of 0.8 mg a day lowered plasma homocysteine by 40 percent after 12 weeks."
    [result] = verifier().run([sentence], [Alignment("fact", ())], entries)
    assert result.kept == []
    right = sentence.replace("40", "25")
    [result] = verifier().run([right], [Alignment("fact", ())], entries)
    assert result.kept == [1]


def test_a_two_source_sentence_passes_when_each_name_is_in_one_of_its_sources() -> None:
    derrickson = entry(1, "Scott Derrickson is an American director, screenwriter and producer.", "Scott Derrickson")
    wood = entry(2, "Edward Davis Wood Jr., known as Ed Wood, was an American filmmaker and actor.", "Ed Wood")
    sentence = "Scott Derrickson and Ed Wood were both American."
    judge = _Always(1.0)
    [both] = verifier(judge).run([sentence], [Alignment("fact", (1, 2))], [derrickson, wood])
    # Alone each lacks the other's name (no model call); read together they are judged once.
    assert both.kept == [1, 2] and judge.asked == 1
    # Cited on one of them only, Ed Wood is named by no cited source.
    [one] = verifier(_Always(1.0)).run([sentence], [Alignment("fact", (1,))], [derrickson, wood])
    assert [c.scorer for c in one.checks][0] == "names" and one.checks[0].kept is False


CRAIG = entry(1, "Jonny Craig has been the lead vocalist for the bands Dance Gavin Dance, Emarosa and Slaves.", "Jonny Craig")
DOHERTY = entry(2, "Pete Doherty is best known as co-frontman of the Libertines; his other band is Babyshambles.", "Pete Doherty")
OTHER = entry(3, "Isles & Glaciers was a supergroup formed in 2009.", "Isles & Glaciers")
COMPARISON = "Jonny Craig has been a member of more bands than Pete Doherty."


def test_a_claim_no_single_source_supports_is_judged_against_the_pair_that_covers_it(scripted_llm) -> None:
    # The aligner proposed the wrong source, and alone neither right one names both singers:
    # no single check is worth a call, the pair read together is.
    llm = scripted_llm({"supported": True})
    judge = LLMJudge(llm)
    [result] = verifier(judge).run(
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


def test_the_pair_is_not_judged_when_it_misses_a_name_or_the_judge_is_off(scripted_llm) -> None:
    llm = scripted_llm(default={"supported": False})
    judge = LLMJudge(llm)
    invented = "Jonny Craig has been a member of more bands than Pete Doherty and Morrissey."
    [named] = verifier(judge).run(
        [invented], [Alignment("fact", (1, 2))], [CRAIG, DOHERTY, OTHER]
    )
    assert named.kept == [] and not any(c.scorer == "joint" for c in named.checks)
    asked = len(llm.calls)
    [off] = verifier(judge, joint=False).run([COMPARISON], [Alignment("fact", (1, 2))], [CRAIG, DOHERTY])
    assert off.kept == [] and len(llm.calls) == asked  # each source alone lacks a name, and no joint call


def test_a_failing_joint_judge_leaves_the_claim_unsupported(scripted_llm) -> None:
    # Alone each source lacks a name (no call); the pair's call fails twice (the reply and its repair).
    llm = scripted_llm("not json", "still not json")
    judge = LLMJudge(llm)
    [result] = verifier(judge).run(
        [COMPARISON], [Alignment("fact", (1, 2))], [CRAIG, DOHERTY]
    )
    assert result.kept == [] and judge.failures == 1


def test_the_answer_sentence_is_not_cited_on_overlap_alone(scripted_llm) -> None:
    # The real HotpotQA case: every word is in Jaclyn Stapp's passage, but 2008 is her pageant title's year.
    stapp = entry(1, "Jaclyn Stapp is a former Mrs. Florida America 2008 and the wife of Scott Stapp, "
                     "the former frontman of the band Creed.", "Jaclyn Stapp")
    answer = "Jaclyn Stapp is married to the former frontman of the band Creed, which disbanded in 2008."
    after = "Scott Stapp was the frontman of the band Creed."
    llm = scripted_llm({"supported": False})
    judge = LLMJudge(llm)
    first, second = verifier(judge, joint=False, confirm=judge).run([answer, after], [Alignment("fact", (1,))] * 2, [stapp])
    assert lexical_support(answer, stapp.text) >= 0.8  # overlap alone would have cited it
    assert first.kept == [] and [c.scorer for c in first.checks] == ["overlap-accept", "llm-confirm"]
    assert second.kept == [1] and len(llm.calls) == 1  # only the answer sentence costs a call
    # Confirmed, it stays cited.
    yes = scripted_llm({"supported": True})
    [kept] = verifier(LLMJudge(yes), confirm=LLMJudge(yes)).run([answer], [Alignment("fact", (1,))], [stapp])
    assert kept.kept == [1] and len(yes.calls) == 1


def test_a_name_the_question_gave_need_not_be_repeated_by_the_source() -> None:
    # The real compete.pdf passage that answers "Which command creates the data set for a Fine-Gray model?"
    passage = entry(1, "The data set can be created using the finegray command. The finegray command has been used "
                       "to create two data sets: one for the PCM endpoint and one for the death endpoint.", "Multi-state models")
    sentence = "The command that creates the data set for a Fine-Gray model is finegray()."
    question = "Which command creates the data set for a Fine-Gray model?"
    [bare] = verifier(_Always(1.0)).run([sentence], [Alignment("fact", (1,))], [passage])
    assert bare.kept == []  # without the question, "Fine-Gray" looks invented
    [asked] = verifier(_Always(1.0)).run([sentence], [Alignment("fact", (1,))], [passage], question)
    assert asked.kept == [1]
    # A name that neither the question nor the source has is still refused.
    [invented] = verifier(_Always(1.0)).run(
        ["The finegray command was written by Gray in 1999."], [Alignment("fact", (1,))], [passage], question)
    assert invented.kept == []


# Sentences that say more than their sources (the shared PDFs' answers, read by hand).
TT = (
    "A true time-dependent covariate can be constructed using the time-transform functionality of coxph. "
    "> vfit3 <- coxph(Surv(time, status) ~ trt + prior + karno + tt(karno), data=veteran)"
)


def test_wording_rule_uncites_an_elaboration_the_judge_accepted() -> None:
    entries = [entry(1, TT)]
    stated = "A true time-dependent covariate is built with the time-transform functionality of coxph."
    invented = "The time-transform function takes the baseline variable and returns a linear combination of the two."
    alignments = [Alignment("fact", (1,))] * 2
    strict = verifier(_Always(1.0), novel_words=3).run([stated, invented], alignments, entries)
    assert strict[0].kept == [1] and strict[1].kept == []
    assert strict[1].checks[0].scorer == "wording"  # rejected before any judge call
    lenient = verifier(_Always(1.0), novel_words=0).run([stated, invented], alignments, entries)
    assert lenient[1].kept == [1]


def test_wording_rule_is_off_unless_set(tmp_path) -> None:
    assert "wording" not in [r.name for r in create_judge(None, load_settings(tmp_path, ["llm.backend=embedded"])).rules]
    assert "wording" in [r.name for r in create_judge(None, load_settings(tmp_path, ["generate.novel_words=3"])).rules]


def test_no_pair_is_judged_for_a_sentence_one_source_names_fully(scripted_llm) -> None:
    # Refused on its wording, an elaboration must not be rescued by a second source's words.
    tt = entry(1, "A true time-dependent covariate can be constructed using the time-transform functionality of coxph.")
    more = entry(2, "The effect of the covariate on the survival of the subjects is estimated by the model.")
    sentence = "This new variable is then used in the coxph model to estimate the effect of the covariate on survival."
    llm = scripted_llm(default={"supported": True})
    judge = LLMJudge(llm)
    [result] = verifier(judge, novel_words=3).run(
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
    judge = LLMJudge(llm)
    [result] = verifier(judge).run([swapped], [Alignment("fact", (2,))], [CRAIG, LIBERTINES])
    assert result.kept == [] and any(c.scorer == "subject" for c in result.checks)
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
    judge = LLMJudge(llm)
    [result] = verifier(judge).run(
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


def test_two_passages_of_one_long_document_are_linked_in_one_section_or_side_by_side() -> None:
    # Pile question 2 (4 Dec 2026): a Stata module made an "alternative" from §2.5 and §4 of one paper.
    def part(n: int, position: int, section: tuple[str, ...]) -> ContextEntry:
        return ContextEntry(n, Source("paper", "Clustered covariances", "text", passage_id=f"paper#p{position}",
                                      position=position, section=section), "text", False)
    stata, software = part(1, 19, ("2 Theory", "2.5 Stata")), part(2, 44, ("4 Software",))
    assert not linked([stata, software], ["avar is an alternative to xtpcse."])
    assert linked([stata, part(3, 21, ("2 Theory", "2.5 Stata"))], ["x"])  # one section
    assert linked([software, part(4, 45, ("5 Examples",))], ["x"])  # neighbours across a heading
    assert not linked([part(5, 3, ()), part(6, 9, ())], ["x"])  # far apart in an unsectioned text


def test_the_second_source_of_a_pair_is_one_linked_to_the_first(scripted_llm) -> None:
    # Held-out pile question p2-05 (5 Dec 2026): the overview naming "Pima Indians" was the best
    # second source but far from the first; the next passage, stating "eleven nodes", was never tried.
    def part(n: int, position: int, section: str, text: str) -> ContextEntry:
        return ContextEntry(n, Source("paper", "Model-based trees", text, passage_id=f"paper#p{position}",
                                      position=position, section=(section,)), text, False)
    overview = part(1, 5, "Overview", "The method is illustrated on the Pima Indians diabetes data.")
    grown = part(2, 48, "Pruning", "A large tree is grown with alpha = 0.9 and then pruned with BIC.")
    counted = part(3, 49, "Pruning", "Here, this large tree has eleven nodes before pruning.")
    llm = scripted_llm(default={"supported": False})
    claim = "For the Pima Indians data, the large tree grown with alpha = 0.9 has eleven nodes before BIC pruning."
    question = "In the Pima Indians illustration, how many nodes has the large tree before BIC pruning?"
    [result] = verifier(LLMJudge(llm)).run([claim], [Alignment("fact", (2,))], [overview, grown, counted], question)
    assert [c.source for c in result.checks if c.scorer == "joint"] == [2, 3]
