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
    # Since the stricter verifier (issue 39) the right answer is cited in some runs and not in
    # others (its best span scores 0.75 against the 0.8 accept line and the alignment call
    # varies). What must hold either way: every citation points into the paragraphs and its
    # marker is in the text; an answer sentence no source supports is never shown as the answer
    # (issue 40): the answer says, in Korean, that the sources do not answer, and the draft's
    # sentence is listed as withheld.
    assert {c.doc_id for c in answer.citations} <= {p.id for p in paragraphs}
    assert all(f"[{c.marker}]" in answer.answer for c in answer.citations), answer.answer
    lead = next(s for s in answer.sentences if s.kind != "heading")
    if lead.kind == "cited":
        assert "임수경" in lead.text, answer.answer
    else:
        assert lead.kind == "general" and "없습니다" in lead.text, answer.sentences
        assert any("임수경" in s.text for s in answer.withheld), answer.withheld
