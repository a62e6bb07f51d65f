"""Training pairs for the support judge, made from real documents (issue 49).

Reads documents of the kinds users ingest, cuts each into sentences with navicite's own splitter
and makes (claim, window, label) pairs with :class:`navicite.train.support_pairs.PairMaker`:

- ``scifact``: the 5,183 SciFact abstracts (``../shared/data/scifact/corpus.jsonl``), less those
  whose title a labelled support pair carries;
- ``wiki``: the HotpotQA and MuSiQue Wikipedia paragraphs (``hipporag-train-corpus.json``);
- ``leval``: the long papers and stories of ``../shared/data/leval`` (QuALITY, Qasper papers);
- ``debian-doc``: this machine's ``/usr/share/doc`` (READMEs, text, Markdown and HTML manuals,
  gzipped or not; no changelog or copyright file);
- ``man``: manual pages from ``/usr/share/man`` rendered to text by ``man``;
- ``pdf``: PDF files given with ``--pdf`` (R package vignettes from Debian packages).
- ``tables``: the rows of ``/usr/share/doc``'s tables (HTML as navicite loads it, Markdown as
  written), claims of a row's cell with :class:`navicite.train.table_pairs.TablePairMaker`.

No document of an evaluation pile is read: the dev pile's and held-out pile's documents (Bash,
SQLite, GnuPG, nano, Mutt, the sandwich, vcd, zoo, partykit and survival vignettes) and their
packages' docs and man pages are skipped by name.

    .venv/bin/python bench/support_judge_data.py --out /tmp/judge/pairs.jsonl --pdf /tmp/judge/pdf
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import re
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from navicite.eval.support_set import load_support_set
from navicite.ingest.loaders import load
from navicite.documents import Document
from navicite.text.sentences import split_sentences
from navicite.train.support_pairs import PairMaker, SupportExample
from navicite.train.table_pairs import TablePairMaker, table_pairs, tables

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
#: Documents of the evaluation piles (and their packages): never training text.
EVALUATED = re.compile(r"bash|nano|mutt|sqlite|gnupg|gpg|sandwich|vcd|zoo|partykit|survival|timedep|concordance", re.I)
_SKIP_DOC_FILES = re.compile(r"changelog|copyright|NEWS\.Debian|\.(?:png|jpg|gif|svg|css|js|py|c|h|sh|pl|el|json|xml|ps|dvi)(?:\.gz)?$", re.I)


def _sentences(text: str) -> list[str]:
    # Hard-wrapped lines are joined within a paragraph; a blank line ends one.
    out: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text):
        flat = " ".join(paragraph.split())
        if len(flat) > 40:
            out.extend(split_sentences(flat))
    return out


def scifact(banned_titles: set[str]) -> Iterator[tuple[str, str, list[str]]]:
    for line in (DATA / "scifact" / "corpus.jsonl").open(encoding="utf-8"):
        rec = json.loads(line)
        if rec["title"].strip().lower() not in banned_titles:
            yield f"scifact:{rec['_id']}", rec["title"], split_sentences(rec["text"])


def wiki() -> Iterator[tuple[str, str, list[str]]]:
    for name in ("hotpotqa", "musique"):
        data = json.loads((DATA / name / "hipporag-train-corpus.json").read_text(encoding="utf-8"))
        items = data.items() if isinstance(data, dict) else ((d["title"], d["text"]) for d in data)
        for k, (title, text) in enumerate(items):
            text = " ".join(text) if isinstance(text, list) else text
            yield f"{name}:{k}", title, split_sentences(text)


def leval() -> Iterator[tuple[str, str, list[str]]]:
    for name in ("quality", "scientific_qa", "paper_assistant"):
        for k, line in enumerate((DATA / "leval" / f"{name}.jsonl").open(encoding="utf-8")):
            text = json.loads(line)["input"]
            title = text.strip().splitlines()[0][:80] if text.strip() else ""
            yield f"leval-{name}:{k}", title, _sentences(text)


def _document_text(doc: Document) -> str:
    return doc.text or doc.abstract or ""


def _doc_texts(root: Path) -> Iterator[tuple[Path, str]]:
    """Each readable document of ``root`` (``/usr/share/doc``) with its text as navicite loads it."""
    for path in sorted(root.rglob("*")):
        if not path.is_file() or EVALUATED.search(str(path)) or _SKIP_DOC_FILES.search(path.name):
            continue
        name = path.name.removesuffix(".gz").lower()
        try:
            if name.endswith((".html", ".htm")):
                source = path
                if path.suffix == ".gz":
                    continue  # the HTML loader reads plain files
                docs = [d for d in load(source, "html") if isinstance(d, Document)]
                text = "\n\n".join(_document_text(d) for d in docs)
            elif name.endswith((".txt", ".md", ".rst")) or name.startswith("readme") or "." not in name:
                raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
                if b"\0" in raw[:4096]:
                    continue
                text = raw.decode("utf-8", errors="replace")
            else:
                continue
        except (OSError, ValueError, EOFError):
            continue
        yield path, text


def _doc_title(root: Path, path: Path) -> tuple[str, str]:
    return f"debian-doc:{path.relative_to(root)}", path.parent.name + " " + path.name.split(".")[0]


def debian_doc(root: Path = Path("/usr/share/doc")) -> Iterator[tuple[str, str, list[str]]]:
    for path, text in _doc_texts(root):
        sentences = _sentences(text)
        if len(sentences) >= 4:
            yield *_doc_title(root, path), sentences


def debian_tables(root: Path = Path("/usr/share/doc")) -> Iterator[tuple[str, str, str]]:
    """The documents of ``root`` that hold a table (HTML as loaded, Markdown as written), with their text."""
    for path, text in _doc_texts(root):
        if tables(text):
            yield *_doc_title(root, path), text


def _render_man(path: Path) -> str:
    try:
        done = subprocess.run(["man", "-l", str(path)], capture_output=True, timeout=30,
                              env={"MANWIDTH": "2000", "MAN_KEEP_FORMATTING": "0", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"})
    except (subprocess.TimeoutExpired, OSError):
        return ""
    text = re.sub(r".\x08", "", done.stdout.decode("utf-8", errors="replace"))
    return text


def man_pages(limit: int, seed: int) -> Iterator[tuple[str, str, list[str]]]:
    pages = [p for section in ("man1", "man5", "man8") for p in sorted(Path("/usr/share/man", section).glob("*"))
             if not EVALUATED.search(p.name)]
    random.Random(seed).shuffle(pages)
    with ThreadPoolExecutor(4) as pool:
        for path, text in zip(pages[:limit], pool.map(_render_man, pages[:limit])):
            # Each rendered line is one paragraph of the page (MANWIDTH is wide).
            sentences = [s for line in text.splitlines() if len(line.strip()) > 40 for s in split_sentences(line.strip())]
            if len(sentences) >= 4:
                yield f"man:{path.name}", "manual page " + path.name.split(".")[0], sentences


def pdfs(folder: Path | None) -> Iterator[tuple[str, str, list[str]]]:
    if folder is None:
        return
    for path in sorted(folder.glob("*.pdf")):
        if EVALUATED.search(path.name):
            continue
        docs = [d for d in load(path, "pdf") if isinstance(d, Document)]
        for doc in docs:
            yield f"pdf:{path.name}", doc.title or path.stem, _sentences(_document_text(doc))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="JSONL of pairs")
    parser.add_argument("--pdf", type=Path, help="a folder of PDF files to read too")
    parser.add_argument("--man", type=int, default=2500, help="manual pages to render")
    parser.add_argument("--seed", type=int, default=49)
    parser.add_argument("--per-sentence", type=float, default=1.0)
    parser.add_argument("--sources", default="scifact,wiki,leval,debian-doc,man,pdf,tables",
                        help="which sources to read, comma-separated (tables: rows of /usr/share/doc's tables)")
    args = parser.parse_args()
    banned = {q.title.strip().lower() for p in load_support_set() for q in p.passages if q.title}
    rng = random.Random(args.seed)
    maker = PairMaker(rng)
    sources = {"scifact": lambda: scifact(banned), "wiki": wiki, "leval": leval, "debian-doc": debian_doc,
               "man": lambda: man_pages(args.man, args.seed), "pdf": lambda: pdfs(args.pdf)}
    chosen = args.sources.split(",")
    unknown = set(chosen) - set(sources) - {"tables"}
    if unknown:
        parser.error(f"unknown source {', '.join(sorted(unknown))}; choose among {', '.join(sources)}, tables")
    table_maker = TablePairMaker(rng)
    per_source: Counter[str] = Counter()
    docs: Counter[str] = Counter()
    started = time.time()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as out:
        def write(name: str, examples: Iterator[SupportExample]) -> None:
            for ex in examples:
                per_source[name] += 1
                out.write(json.dumps({"claim": ex.claim, "title": ex.title, "window": ex.window, "label": ex.label,
                                      "kind": ex.kind, "doc": ex.doc, "source": name}, ensure_ascii=False) + "\n")

        for name, read in sources.items():
            if name not in chosen:
                continue
            for doc_id, title, sentences in read():
                docs[name] += 1
                write(name, maker.from_document(doc_id, title, sentences, args.per_sentence))
            print(f"{name}: {docs[name]} documents, {per_source[name]} pairs ({time.time() - started:.0f} s)", file=sys.stderr, flush=True)
        if "tables" in chosen:
            for doc_id, title, text in debian_tables():
                docs["tables"] += 1
                write("tables", table_pairs(table_maker, doc_id, title, text))
    summary = {"documents": dict(docs), "pairs": dict(per_source),
               "kinds": dict(sorted((maker.counts + table_maker.counts).items())),
               "total": sum(per_source.values())}
    args.out.with_suffix(".summary.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
