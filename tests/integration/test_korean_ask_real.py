"""`Collection.ask` with the real embedded model: a Korean question over Korean paragraphs
gets a Korean answer with citations (issue 21). Three KorQuAD paragraphs, flat retrieval,
no reranker, word-overlap verification, two short sources and a short draft keep it to a
few model calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from navicite import Collection, Document
from navicite.eval.datasets import load_dataset
from navicite.text.language import question_language

pytestmark = pytest.mark.llm

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "korquad_mini.json"
SHORT = ["llm.backend=embedded", "llm.model=qwen2.5-coder-1.5b", "llm.threads=1", "generate.draft_max_tokens=80",
         "generate.verifier=lexical", "retrieve.method=flat", "rerank.backend=none", "retrieve.dense_portfolio=false",
         "generate.max_sources=2", "generate.max_source_tokens=160"]


def test_korean_question_over_korean_paragraphs_gets_a_cited_korean_answer(tmp_path: Path) -> None:
    paragraphs = load_dataset(f"korquad:{FIXTURE}").corpus
    with Collection(tmp_path / "home", SHORT) as collection:
        collection.add([Document(id=p.id, title=p.title, text=p.text) for p in paragraphs])
        answer = collection.ask("1989년 6월 30일 평양축전에 대표로 파견된 인물은 누구인가?")
    assert question_language(answer.answer) == "ko", answer.answer
    assert "임수경" in answer.answer, answer.answer
    # Since the stricter verifier (issue 39) the right answer is cited in some runs and shown
    # unsupported in others (its best span scores 0.75 against the 0.8 accept line and the
    # alignment call varies); what must hold either way: a citation points into the paragraphs,
    # and an uncited answer is marked unsupported, never passed off as cited.
    assert {c.doc_id for c in answer.citations} <= {p.id for p in paragraphs}
    if answer.citations:
        assert any(f"[{c.marker}]" in answer.answer for c in answer.citations), answer.answer
    else:
        assert answer.sentences[0].kind == "unsupported", answer.sentences
