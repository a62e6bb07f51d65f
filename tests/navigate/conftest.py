"""Helpers for the navigate tests: documents with known topics and a rule-based stand-in model.

``TreeModel`` answers the organising prompts from their content: a segment whose
text starts with ``Topic: <name>.`` is filed under ``<name>``, refine merges notes
into one paragraph citing them all, split cuts the paragraphs into the fewest consecutive
groups the prompt allows, packed parts are named "Episode k". Tests wrap it to inject derailments.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from navicite.config import Settings, load_settings
from navicite.documents import Document
from navicite.llm.base import Message
from navicite.llm.scripted import ScriptedLLM

SEGMENT = re.compile(r'<segment n="(\d+)">\s*Topic: ([^.]+)\.', re.S)
NOTE = re.compile(r"^((?:\[\d+\])+) (.*)$", re.M)
SECTION = re.compile(r'<section n="(\d+)" title="([^"]*)">')


def stage_of(messages: list[Message]) -> str:
    """Which organising or navigation prompt ``messages`` are."""
    text = "\n".join(m.content for m in messages)
    for marker, stage in (
        ("file each one under topic titles", "select"),
        ("Give this passage a new topic title", "create"),
        ("Rewrite the notes", "refine"),
        ("divided into sub-topics", "split"),
        ("consecutive parts of a document", "name"),
        ("Label every entry", "level"),
        ("Choose the passages", "leaf"),
        ("Classify the question", "classify"),
        ("write a summary of at most", "summarise"),
    ):
        if marker in text:
            return stage
    raise AssertionError(f"unknown prompt: {text[:300]!r}")


class TreeModel:
    """Answers organising prompts by rule; ``overrides`` maps a stage to a list of answers used first."""

    def __init__(self, overrides: dict[str, list[Any]] | None = None) -> None:
        self.overrides = {k: list(v) for k, v in (overrides or {}).items()}
        self.seen: list[str] = []

    def __call__(self, messages: list[Message]) -> Any:
        stage = stage_of(messages)
        self.seen.append(stage)
        queued = self.overrides.get(stage)
        if queued:
            answer = queued.pop(0)
            return answer(messages) if callable(answer) else answer
        return getattr(self, stage)("\n".join(m.content for m in messages))

    def select(self, text: str) -> dict[str, Any]:
        return {
            "segments": [
                {"segment": int(n), "topics": [{"title": name.strip(), "summary": f"Segment {n} says {name.strip()} facts."}]}
                for n, name in SEGMENT.findall(text)
            ]
        }

    def create(self, text: str) -> dict[str, Any]:
        return {"title": "Created topic", "summary": "A created summary."}

    def refine(self, text: str) -> dict[str, Any]:
        notes = NOTE.findall(text.split("Notes collected")[1].split("Rewrite")[0])
        sources = sorted({int(s) for marks, _ in notes for s in re.findall(r"\d+", marks)})
        return {"paragraphs": [{"text": " ".join(body for _, body in notes), "sources": sources}]}

    def split(self, text: str) -> dict[str, Any]:
        count = len(re.findall(r"^P\d+[ :]", text, re.M))
        wanted = re.search(r"into (\d+) to \d+ sub-topics", text)
        parts = min(count, int(wanted.group(1))) if wanted else 2
        bounds = [count * k // parts for k in range(parts + 1)]
        names = ["First part", "Second part", "Third part", "Fourth part", "Fifth part", "Sixth part"]
        return {
            "overview": "An overview.",
            "groups": [
                {"title": names[k] if k < len(names) else f"Part {k + 1}", "paragraphs": list(range(bounds[k] + 1, bounds[k + 1] + 1))}
                for k in range(parts)
            ],
        }


    def summarise(self, text: str) -> dict[str, Any]:
        return {"summaries": [{"n": int(n), "summary": f"What {title} covers, in brief."} for n, title in SECTION.findall(text)]}

    def name(self, text: str) -> dict[str, Any]:
        count = len(re.findall(r"^Part \d+:", text, re.M))
        return {"titles": [f"Episode {k}" for k in range(1, count + 1)]}


def topic_document(topics: list[str], words_per_segment: int = 40, doc_id: str = "doc") -> Document:
    """A document of one segment per topic name (segment size ``words_per_segment``, no overlap)."""
    parts = []
    for i, name in enumerate(topics):
        filler = " ".join(f"w{i}x{j}" for j in range(words_per_segment - 1 - len(name.split())))
        parts.append(f"Topic: {name}. {filler}")
    return Document(id=doc_id, title=f"Document {doc_id}", text="\n".join(parts))


def sectioned_document(parts: list[tuple[int, str, int]], doc_id: str = "manual", front: int = 0, references: int = 0) -> Document:
    """A Markdown document of ``(level, title, sentences)`` sections (``#`` per level), each sentence
    eight words naming its section, with ``front`` sentences before the first heading and a
    "References" line followed by ``references`` entries; ``metadata["sections"]`` as the loader sets it."""
    from navicite.text.sections import markdown_sections

    def sentences(name: str, count: int) -> list[str]:
        return [f"Sentence {k} of {name} states one plain fact." for k in range(1, count + 1)]

    lines = [" ".join(sentences("the preface", front))] if front else []
    for level, title, count in parts:
        lines += [f"{'#' * level} {title}", " ".join(sentences(title, count))]
    if references:
        lines += ["References", " ".join(f"[{k}] Author {k}. A cited work, 2001." for k in range(1, references + 1))]
    text = "\n".join(lines)
    return Document(id=doc_id, title=f"Manual {doc_id}", text=text, metadata={"sections": markdown_sections(text)})


def tree_settings(home: Any, *extra: str) -> Settings:
    """Settings for small test trees: 40-word segments without overlap, concurrency 1, evidence
    as navigation found it (no BM25 fill, which its own tests turn on)."""
    return load_settings(
        home,
        [
            "ingest.segment_words=40",
            "ingest.segment_overlap=0.0",
            "navigate.min_document_words=10",
            "navigate.concurrency=1",
            "navigate.fill_tokens=0",
            *extra,
        ],
    )


@pytest.fixture
def settings(tmp_path: Any) -> Settings:
    return tree_settings(tmp_path)


def rule_llm(model: TreeModel | None = None) -> ScriptedLLM:
    """A ScriptedLLM answering every request with ``model`` (rule-based by default)."""
    return ScriptedLLM(default=model or TreeModel(), concurrency=1)


class Kit:
    """The helpers above, handed to tests as the ``kit`` fixture (test modules cannot import conftest)."""

    TreeModel = TreeModel
    sectioned_document = staticmethod(sectioned_document)
    stage_of = staticmethod(stage_of)
    topic_document = staticmethod(topic_document)
    tree_settings = staticmethod(tree_settings)
    rule_llm = staticmethod(rule_llm)


@pytest.fixture
def kit() -> type[Kit]:
    return Kit
