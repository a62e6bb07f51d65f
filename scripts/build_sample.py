"""Rebuild the bundled sample in src/navicite/data/sample from ../shared/data.

Run from the project root: ``.venv/bin/python scripts/build_sample.py``. The
selection is deterministic: the SciFact abstracts judged relevant to the
training claims, vitamin-D claims first (the README's first search), then
claims in id order, until 300 abstracts; plus two Qasper papers from L-Eval
written out as Markdown with their titles.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
OUT = Path(__file__).resolve().parents[1] / "src" / "navicite" / "data" / "sample"
ABSTRACTS = 300
FIRST_CLAIMS = ("622", "1367", "1371")  # vitamin D claims
#: L-Eval scientific_qa line -> (id, title, arXiv link); titles are not in the L-Eval text.
PAPERS = {
    14: ("arxiv-1909.00694", "Minimally Supervised Learning of Affective Events Using Discourse Relations",
         "https://arxiv.org/abs/1909.00694"),
    15: ("arxiv-1908.06606", "Question Answering based Clinical Text Structuring Using Pre-trained Language Model",
         "https://arxiv.org/abs/1908.06606"),
}


def scifact_sample() -> list[dict]:
    relevant: dict[str, list[str]] = {}
    for line in (DATA / "scifact" / "qrels" / "train.tsv").read_text().splitlines()[1:]:
        query, doc, _ = line.split("\t")
        relevant.setdefault(query, []).append(doc)
    order = list(FIRST_CLAIMS) + sorted((q for q in relevant if q not in FIRST_CLAIMS), key=int)
    wanted: list[str] = []
    for query in order:
        for doc in relevant[query]:
            if doc not in wanted and len(wanted) < ABSTRACTS:
                wanted.append(doc)
    corpus = {}
    with (DATA / "scifact" / "corpus.jsonl").open() as handle:
        for line in handle:
            record = json.loads(line)
            corpus[record["_id"]] = record
    return [{"_id": d, "title": corpus[d]["title"], "text": corpus[d]["text"]} for d in wanted]


def _section_path(line: str) -> list[str] | None:
    """Qasper section lines ('Experiments ::: Dataset') as a heading path; None for body text."""
    stripped = line.strip()
    if " ::: " in stripped:
        return stripped.split(" ::: ")
    words = stripped.split()
    if 0 < len(words) <= 6 and stripped[0].isupper() and not stripped.endswith((".", ":", ",", ")")) and stripped.isascii():
        return [stripped]
    return None


def paper_markdown(text: str, doc_id: str, title: str, link: str) -> str:
    lines = [f"---\nid: {doc_id}\ntitle: {title}\nlink: {link}\nlicense: CC BY 4.0\n---\n", f"# {title}\n"]
    open_path: list[str] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        path = _section_path(line)
        if path is None:
            lines.append(f"{line.strip()}\n")
            continue
        # Emit parent sections the source leaves implicit ("Appendices ::: Seed Lexicon ::: ...").
        for depth, name in enumerate(path):
            if open_path[: depth + 1] != path[: depth + 1]:
                lines.append("#" * (depth + 2) + f" {name}\n")
        open_path = path
    return "\n".join(lines)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    records = scifact_sample()
    with (OUT / "scifact-300.jsonl").open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    rows = [json.loads(line) for line in (DATA / "leval" / "scientific_qa.jsonl").open()]
    for line_no, (doc_id, title, link) in PAPERS.items():
        slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:60]
        (OUT / f"{slug}.md").write_text(paper_markdown(rows[line_no]["input"], doc_id, title, link), encoding="utf-8")
    print(f"wrote {len(records)} abstracts and {len(PAPERS)} papers to {OUT}")


if __name__ == "__main__":
    main()
