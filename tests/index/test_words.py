from navicite import index
from navicite.config import Settings
from navicite.documents import Document
from navicite.index.words import stem, terms


def test_terms_are_what_the_index_matches(tmp_path) -> None:
    """A text found by a word in the collection index holds that word's term here, and the reverse."""
    settings = Settings(home=tmp_path)
    docs = [Document(id="a", title="Harbours", text="The harbours were dug by hand."),
            Document(id="b", title="Festival", text="BERT를 사용한 모델은 1989년에 나왔다.")]
    collection = index.create(settings)
    collection.upsert(docs)
    for word, doc_id in [("harbour", "a"), ("digging", None), ("dug", "a"), ("bert", "b"), ("1989", "b"), ("사용", "b")]:
        found = [h.doc_id for h in collection.search(index.free_text(word), k=5)]
        holds = [d.id for d in docs if set(terms(word)) <= set(terms(f"{d.title} {d.text}"))]
        assert found == holds == ([doc_id] if doc_id else []), word


def test_terms_split_cjk_runs_into_pairs_and_keep_glued_latin_words() -> None:
    assert terms("BERT를 사용한") == ["bert", "를", "사용", "용한"]
    assert terms("Reduced harbours") == ["reduc", "harbour"]
    assert terms("Reduced", stemming=False) == ["reduced"]


def test_stem_is_the_index_stem_of_one_word() -> None:
    assert stem("Reduces") == stem("reduced") == "reduc"
    assert stem("3,5") == "3,5" and stem("") == ""  # not one word: returned lower-cased
