from navicite.lexical import LocalBM25

TEXTS = ["The harbour was dug by hand in 1789.", "Cheese is sold at the August festival.", "Boats left the harbour in 1911."]


def test_texts_sharing_rare_words_with_the_query_come_first() -> None:
    bm25 = LocalBM25(TEXTS)
    assert bm25.ranking("When did the boats leave the harbour?") == [2, 0, 1]
    scores = bm25.scores("cheese festivals")
    assert scores[1] > 0 and scores[0] == scores[2] == 0


def test_a_query_of_stop_words_matching_nothing_or_no_texts_keeps_the_order() -> None:
    assert LocalBM25(TEXTS).ranking("what is the") == [0, 1, 2]
    assert LocalBM25(TEXTS).ranking("why would you") == [0, 1, 2]
    assert LocalBM25(TEXTS).ranking("") == [0, 1, 2]
    assert LocalBM25([]).ranking("harbour") == [] and LocalBM25([]).scores("harbour").shape == (0,)


def test_korean_words_match_by_character_pairs_as_in_the_index() -> None:
    texts = ["서울은 한국의 수도이다.", "부산은 항구 도시이다."]
    assert LocalBM25(texts).ranking("한국의 수도는 어디인가?") == [0, 1]
    assert LocalBM25(texts).scores("항구에")[1] > 0  # a particle glued on: the pair 항구 still matches


def test_pronouns_count_as_words() -> None:
    """A story's questions turn on who: "she" is no stop word (Lucene's 33 are)."""
    texts = ["He left the harbour at dawn.", "She left the harbour at dawn."]
    assert LocalBM25(texts).ranking("Why did she leave?") == [1, 0]
