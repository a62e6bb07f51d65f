"""Evidence recall inside long documents: budget cuts, flat BM25/dense ranking, navigation, resume."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from navicite.config import Settings, load_settings
from navicite.errors import UserInputError
from navicite.eval import evidence as evidence_module
from navicite.eval.datasets import EvalDataset, load_dataset
from navicite.eval.evidence import (
    EvidenceRunner,
    first_per_document,
    gold_texts,
    within_budget,
)
from navicite.llm.base import CallOptions, Message
from navicite.llm.scripted import ScriptedLLM
from navicite.navigate import (
    KnowledgeTree,
    Node,
    Paragraph,
    SegmentRef,
    TreeStore,
    build_params,
)
from navicite.text.segments import segment
from navicite.text.tokens import estimate_tokens

FILLER = "The weather stayed grey and the harbour was quiet all week long while boats waited."
PARAGRAPHS = [
    "Captain Mora sailed north with twelve sailors aboard the ship Heron. " + FILLER,
    "A storm broke the mast, and the crew repaired it with pine from the island. " + FILLER,
    "In the end the treasure was buried under the lighthouse on the cliff. " + FILLER,
]


@pytest.fixture
def story(tmp_path: Path) -> Path:
    rec = {
        "input": "\n".join(PARAGRAPHS),
        "instructions": [
            "Where was the treasure buried?\n\n (A) in the harbour \n (B) under the lighthouse on the cliff ",
            "What repaired the mast?\n\n (A) pine from the island \n (B) iron nails ",
        ],
        "outputs": ["(B) under the lighthouse on the cliff", "(A) pine from the island"],
    }
    path = tmp_path / "quality.jsonl"
    path.write_text(json.dumps(rec) + "\n", encoding="utf-8")
    return path


def small_settings(home: Path, *extra: str) -> Settings:
    # One paragraph (28 words) per segment.
    # Document order: the scripted navigation model names its entries by number.
    return load_settings(home, ["ingest.segment_words=28", "ingest.segment_overlap=0.0", "navigate.min_document_words=10",
                                "navigate.concurrency=1", "navigate.order_entries=document", *extra])


def test_budget_cut_gold_texts_and_per_document_choice(story: Path) -> None:
    texts = ["one two three four five six seven eight. " * 4, "second text here."]
    cut = within_budget(texts, 20)
    assert len(cut) == 1 and estimate_tokens(cut[0]) <= 20
    assert within_budget(texts, 10_000) == [t.strip() for t in texts]
    data = load_dataset(f"leval:{story}")
    assert gold_texts(data.questions[0]) == ("under the lighthouse on the cliff",)
    assert [q.id for q in first_per_document(data.questions, 1)] == ["quality-1-0"]


def test_bm25_segments_find_the_answer_within_a_one_segment_budget(story: Path, tmp_path: Path) -> None:
    data = load_dataset(f"leval:{story}")
    report = EvidenceRunner(data, small_settings(tmp_path / "home"), ["bm25"], budget=40).run(data.questions)
    figures = report.methods["bm25"]
    assert figures["questions"] == 2 and figures["answer_in_context_recall"] == 1.0
    assert all(r.tokens <= 40 for r in report.records)
    assert "lighthouse" in report.records[0].evidence[0] and "pine" in report.records[1].evidence[0]


def test_a_run_resumes_from_its_records(story: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = load_dataset(f"leval:{story}")
    settings = small_settings(tmp_path / "home")
    out = tmp_path / "run"
    first = EvidenceRunner(data, settings, ["bm25"], budget=40, out_dir=out).run(data.questions)

    def forbidden(*args: Any) -> Any:
        raise AssertionError("a recorded question was asked again")

    monkeypatch.setattr(evidence_module, "create_evidence_method", forbidden)
    again = EvidenceRunner(data, settings, ["bm25"], budget=40, out_dir=out).run(data.questions)
    assert again.methods == first.methods
    with pytest.raises(AssertionError):  # another budget is another run
        EvidenceRunner(data, settings, ["bm25"], budget=41, out_dir=out).run(data.questions)


def test_unknown_method_and_bad_budget_are_user_errors(story: Path, tmp_path: Path) -> None:
    data = load_dataset(f"leval:{story}")
    with pytest.raises(UserInputError, match="bm25, dense, passages, navi"):
        EvidenceRunner(data, small_settings(tmp_path), ["bm52"], budget=40)
    with pytest.raises(UserInputError, match="--budget"):
        EvidenceRunner(data, small_settings(tmp_path), ["bm25"], budget=0)


def store_tree(data: EvalDataset, settings: Settings) -> None:
    """A stored tree of the story (one leaf per paragraph) in the run's cache, as a build would leave it."""
    document = data.corpus[0]
    parts = segment(document, settings.ingest.segment_words, settings.ingest.segment_overlap)
    leaves = [Node(f"0.{i + 1}", title, [Paragraph(f"About the {title.lower()}.", [i])], segments=[i])
              for i, title in enumerate(["Voyage", "Storm", "Treasure"])]
    tree = KnowledgeTree(document.id, document.fingerprint, Node("0", document.title, children=leaves),
                         [SegmentRef(p.index, p.start, p.end, p.text) for p in parts])
    TreeStore(settings.cache_dir / "eval" / data.corpus_key() / "trees.sqlite").put(tree, build_params(settings))


def navigation_model(messages: list[Message]) -> Any:
    """Explores the Treasure topic and keeps every passage shown."""
    text = "\n".join(m.content for m in messages)
    if "Label every entry" in text:
        return {"labels": [{"entry": 3, "label": "EXPLORE"}], "gap": "where", "closed": False}
    return {"passages": [1], "gap": "", "closed": True}


def test_navi_scores_the_navigation_evidence_with_its_path(story: Path, tmp_path: Path) -> None:
    data = load_dataset(f"leval:{story}")
    settings = small_settings(tmp_path / "home")
    store_tree(data, settings)
    llm = ScriptedLLM(default=navigation_model, concurrency=1)
    report = EvidenceRunner(data, settings, ["navi"], budget=40, llm=llm).run(data.questions[:1])
    [record] = report.records
    assert record.recall == 1.0 and record.llm_calls == 2
    assert record.paths == [f"{data.corpus[0].title} > Treasure"]
    assert report.builds[data.corpus[0].id]["calls"] == 0  # the stored tree was used, not rebuilt


def test_navi_counts_only_its_own_calls_when_the_model_is_shared(story: Path, tmp_path: Path) -> None:
    data = load_dataset(f"leval:{story}")
    settings = small_settings(tmp_path / "home")
    store_tree(data, settings)
    llm = ScriptedLLM(default=navigation_model, concurrency=2)
    others: list[str] = []

    def busy(messages: list[Message]) -> Any:
        # Another request on the same model (a server's second user) while this navigation runs.
        if not others:
            others.append("asked")
            other = threading.Thread(target=llm.complete, args=([Message("user", "unrelated")], CallOptions(stage="other")))
            other.start()
            other.join()
        return navigation_model(messages)

    llm.add(busy)
    report = EvidenceRunner(data, settings, ["navi"], budget=40, llm=llm).run(data.questions[:1])
    assert len(llm.usage.calls) == 3
    assert report.records[0].llm_calls == 2


def test_navi_builds_a_tree_for_a_document_below_the_length_threshold(story: Path, tmp_path: Path) -> None:
    data = load_dataset(f"leval:{story}")
    settings = load_settings(tmp_path / "home", ["navigate.min_document_words=100000"])
    method = evidence_module.NaviEvidence(settings, tmp_path / "trees.sqlite", memory=False, llm=ScriptedLLM())
    assert method.builder.needs_tree(data.corpus[0])  # scientific_qa-3 stopped a whole run as "short"
    assert settings.navigate.min_document_words == 100000  # the caller's settings are left alone


def test_navi_fills_up_to_the_evaluated_budget_unless_the_fill_is_off(story: Path, tmp_path: Path) -> None:
    data = load_dataset(f"leval:{story}")
    mast = data.questions[1:2]  # the scripted walk goes to the Treasure leaf, the answer is in Storm's passage
    runs = {}
    for fill in ("1500", "0"):
        settings = small_settings(tmp_path / f"home-{fill}", f"navigate.fill_tokens={fill}")
        store_tree(data, settings)
        llm = ScriptedLLM(default=navigation_model, concurrency=1)
        runs[fill] = EvidenceRunner(data, settings, ["navi"], budget=400, llm=llm).run(mast).records[0]
    title = data.corpus[0].title
    assert runs["0"].paths == [f"{title} > Treasure"] and runs["0"].recall < 1.0
    # The fill keeps the walk's pick first and adds the passage sharing most words with the question.
    assert runs["1500"].paths[:2] == [f"{title} > Treasure", f"{title} > Storm [fill]"]
    assert runs["1500"].recall == 1.0 and runs["1500"].llm_calls == runs["0"].llm_calls == 2


def test_ranked_passages_take_the_best_within_the_budget_in_document_order(tmp_path: Path) -> None:
    from navicite.documents import Document
    from navicite.eval.datasets import EvalQuestion
    from navicite.eval.evidence import create_evidence_method

    filler = " ".join(f"Sentence {i} of the log notes calm weather and idle boats." for i in range(60))
    text = f"{filler} The treasure was buried under the lighthouse on the cliff. {filler} The map was hidden in the captain's boot."
    document = Document(id="story", title="Logbook", text=text)
    settings = load_settings(tmp_path, ["ingest.passage_words=40"])
    method = create_evidence_method("passages", settings, tmp_path, budget=120)
    question = EvalQuestion(id="q", text="Where was the treasure buried, and where was the map hidden?", answers=("lighthouse",), gold={"story": 1})
    texts, _ = method.run(question, document)
    joined = " ".join(texts)
    assert "lighthouse" in joined and "boot" in joined
    assert joined.index("lighthouse") < joined.index("boot")  # quoted in the document's order
    assert sum(estimate_tokens(t) for t in texts[:-1]) <= 120


def test_section_and_auto_read_the_best_passage_s_section_where_it_has_headings(tmp_path: Path) -> None:
    from navicite.documents import Document
    from navicite.eval.datasets import EvalQuestion
    from navicite.eval.evidence import create_evidence_method
    from navicite.text.sections import markdown_sections

    calm = " ".join(f"Day {i} the crew mended nets and talked of the treasure map." for i in range(8))
    text = ("# Voyage\n{calm}\n# Burial\nThe captain asked where the treasure map would lead them, and the treasure "
            "map led the captain far. He read the chart twice at dawn before they landed. Under the old lighthouse on "
            "the cliff the men dug for a night and a day until the spades struck an iron chest of coins.\n# Return\n{calm}")
    document = Document(id="story", title="Logbook", text=text.replace("{calm}", calm),
                        metadata={"sections": markdown_sections(text.replace("{calm}", calm))})
    settings = load_settings(tmp_path, ["ingest.passage_words=20", "navigate.widen_share=0.8"])
    question = EvalQuestion(id="q", text="Where did the treasure map lead the captain?", answers=("lighthouse",), gold={"story": 1})
    read = {name: " ".join(create_evidence_method(name, settings, tmp_path, budget=90).run(question, document)[0])
            for name in ("passages", "section", "auto")}
    assert "lighthouse" not in read["passages"]  # its words are not the question's
    assert "lighthouse" in read["section"] and read["auto"] == read["section"]
    plain = Document(id="plain", title="Logbook", text=text.replace("{calm}", calm).replace("# ", ""))
    flat = create_evidence_method("passages", settings, tmp_path, budget=90).run(question, plain)[0]
    assert create_evidence_method("auto", settings, tmp_path, budget=90).run(question, plain)[0] == flat  # no headings: flat
    summary = EvalQuestion(id="s", text="Summarize the logbook.", answers=("crew",), gold={"story": 1})
    opening = create_evidence_method("auto", settings, tmp_path, budget=90).run(summary, document)
    assert opening[1] == {"paths": ["opening"]} and "Day 0 the crew" in opening[0][0] and "lighthouse" not in " ".join(opening[0])
