"""Portfolio construction from fixed keywords, checked against docs/method.md §1.2 node by node."""

from __future__ import annotations

from navicite.index.query import And, Not, Or, Phrase, Prefix, Term
from navicite.retrieve.keywords import Analysis, Keyword
from navicite.retrieve.portfolio import NOISE_TERMS, PortfolioBuilder, Translation, prefix_query, term_query

NOISE = Or(tuple(Term(w) for w in NOISE_TERMS))


def analysis(primary: list[Keyword], expanded: list[Keyword]) -> Analysis:
    return Analysis(primary, expanded, "en", "llm")


KW = analysis(
    [
        Keyword("vitamin d", ("cholecalciferol", "calciferol")),
        Keyword("fracture", ("bone break",)),
        Keyword("elderly"),
        Keyword("supplementation"),
        Keyword("risk"),
    ],
    [Keyword("bone density", reason="mechanism"), Keyword("falls"), Keyword("osteoporosis")],
)

VITD = Or((Phrase("vitamin d"), And((Term("vitamin"), Term("d")))))
BONE = Or((Phrase("bone density"), And((Term("bone"), Term("density")))))
E_GROUP = Or((BONE, Term("falls"), Term("osteoporosis")))
E_PREFIX = Or((Or((Phrase("bone density"), And((Term("bone"), Prefix("density"))))), Prefix("falls"), Prefix("osteoporosis")))
P_GROUP = Or((VITD, Term("fracture"), Term("elderly")))


def test_multi_word_term_is_phrase_or_conjunction() -> None:
    assert term_query("vitamin d") == VITD
    assert term_query("  falls ") == Term("falls")
    assert prefix_query("falls") == Prefix("falls")


def test_q_pairs_each_top_primary_with_the_expansion_group() -> None:
    built = PortfolioBuilder().portfolio_q(KW)
    assert built == [And((VITD, E_GROUP)), And((Term("fracture"), E_GROUP)), And((Term("elderly"), E_GROUP))]


def test_s_uses_synonyms_prefixed_expansions_and_excludes_noise() -> None:
    built = PortfolioBuilder().portfolio_s(KW)
    syn_vitd = Or((VITD, Term("cholecalciferol"), Term("calciferol")))
    syn_frac = Or((Term("fracture"), Or((Phrase("bone break"), And((Term("bone"), Term("break")))))))
    assert built == [
        Not(And((syn_vitd, E_PREFIX)), NOISE),
        Not(And((syn_frac, E_PREFIX)), NOISE),
        Not(And((Term("elderly"), E_PREFIX)), NOISE),
    ]


def test_f_crosses_the_anchor_group_with_p4_and_p5() -> None:
    built = PortfolioBuilder().portfolio_f(KW)
    assert built == [And((P_GROUP, Term("supplementation"))), And((P_GROUP, Term("risk")))]


def test_g_uses_translated_groups() -> None:
    tr = Translation(("비타민 D", "골절", "노인"), ("골밀도", "낙상", "골다공증"), "ko")
    built = PortfolioBuilder().portfolio_g(tr)
    t_group = Or((Or((Phrase("비타민 D"), And((Term("비타민"), Term("D"))))), Term("골절"), Term("노인")))
    assert built == [t_group, And((t_group, Or((Term("골밀도"), Term("낙상"), Term("골다공증")))))]


def test_run_orders_portfolios_and_counts_at_most_ten() -> None:
    tr = Translation(("a", "b", "c"), ("d",), "ko")
    result = PortfolioBuilder().run(KW, tr)
    assert [q.portfolio for q in result.queries] == ["Q"] * 3 + ["S"] * 3 + ["F"] * 2 + ["G"] * 2
    assert result.skipped == {}
    capped = PortfolioBuilder(max_queries=4).run(KW, tr)
    assert len(capped.queries) == 4
    assert set(capped.skipped) == {"S", "F", "G"}


def test_g_skipped_with_reason_when_no_translation() -> None:
    result = PortfolioBuilder().run(KW, None, "the collection is in one language (en), the question's")
    assert "G" not in {q.portfolio for q in result.queries}
    assert result.skipped["G"].startswith("the collection is in one language")


def test_or_groups_are_capped() -> None:
    many = analysis([Keyword("x", tuple(f"s{i}" for i in range(9)))], [])
    (s_query,) = PortfolioBuilder(or_group_cap=5).portfolio_s(many)
    assert isinstance(s_query, Not)
    assert s_query.positive == Or((Term("x"), Term("s0"), Term("s1"), Term("s2"), Term("s3")))


def test_duplicates_removed_case_insensitively() -> None:
    # Without expansions Q_i is p_i alone, and primaries differing only by case collapse.
    kw = analysis([Keyword("Fracture"), Keyword("fracture"), Keyword("FRACTURE")], [])
    result = PortfolioBuilder(noise_terms=()).run(kw)
    texts = [q.text for q in result.queries]
    assert texts == ["Fracture"]  # Q: once; S (no noise, no synonyms) equals Q's query
    assert result.skipped["F"] == "not enough keywords"


def test_query_text_renders_boolean_syntax() -> None:
    result = PortfolioBuilder().run(KW)
    assert result.queries[0].text == '("vitamin d" OR (vitamin AND d)) AND (("bone density" OR (bone AND density)) OR falls OR osteoporosis)'
