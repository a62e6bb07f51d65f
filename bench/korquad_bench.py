"""Korean retrieval: navicite's flat BM25 against bag-of-bigrams bm25s on the same set (issue 21).

Every method runs through the evaluation harness on the same questions in one process:

- ``bm25``: navicite's flat BM25 (the question as free text over the tantivy index);
- ``bm25s-bigram``, the reference: bm25s (Lucene BM25, k1 1.5, b 0.75) over title and text,
  Korean (any CJK run) as overlapping character pairs, other words lower-cased, nothing else;
- ``bm25s-kiwi`` (with ``--kiwi``): the same bm25s, Korean cut into morphemes by kiwipiepy
  (content morphemes kept: nouns, verb and adjective stems, roots, adverbs, foreign words,
  numbers, hanja), to compare a morphological analyzer with bigrams on equal terms;
- any method of ``navicite eval retrieval`` given with ``-m`` (``mpr-rerank``, ...).

Besides the metric table it prints, per tokenizer, the seconds to tokenize the corpus and
build the index, the postings and the size of the saved index, and navicite's index size.

    .venv/bin/python bench/korquad_bench.py --home /tmp/korean-home [--kiwi] [--kiwi-path DIR] \
        [-m mpr-rerank --limit 50 --set llm.threads=1]

``--kiwi-path`` adds a folder to ``sys.path`` (kiwipiepy installed with ``pip --target``, as it
is not a dependency of navicite).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import bm25s  # noqa: E402

from navicite.config import load_settings  # noqa: E402
from navicite.eval.datasets import EvalQuestion, load_dataset  # noqa: E402
from navicite.eval.methods import MethodResult, Trace  # noqa: E402
from navicite.stages import StageRecorder  # noqa: E402
from navicite.eval.registry import register_method  # noqa: E402
from navicite.eval.report import markdown_table  # noqa: E402
from navicite.eval.resources import EvalResources  # noqa: E402
from navicite.eval.runner import RetrievalRunner  # noqa: E402

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "korquad" / "KorQuAD_v1.0_dev_first70.json"

# Written here rather than taken from navicite.index.cjk, so the reference shares no code with
# what it checks: Hangul, kana, CJK ideographs (and their compatibility forms).
_CJK = "\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
_RUNS = re.compile(f"[{_CJK}]+|[^\\W{_CJK}]+")
_IS_CJK = re.compile(f"[{_CJK}]")


def bigram_tokens(text: str) -> list[str]:
    """CJK runs as overlapping character pairs (a lone character stands for itself), other words lower-cased."""
    out: list[str] = []
    for run in _RUNS.findall(text.lower()):
        if _IS_CJK.match(run) and len(run) > 1:
            out.extend(run[i : i + 2] for i in range(len(run) - 1))
        else:
            out.append(run)
    return out


#: kiwipiepy tags kept: nouns, verb/adjective stems, roots, adverbs, determiners, foreign words, numbers, hanja.
_KIWI_KEEP = ("NN", "NR", "NP", "VV", "VA", "XR", "MAG", "MM", "SL", "SN", "SH")


class KiwiTokens:
    """Content morphemes of Korean text (kiwipiepy), other words lower-cased."""

    def __init__(self) -> None:
        from kiwipiepy import Kiwi

        self.kiwi = Kiwi(num_workers=1)

    def __call__(self, text: str) -> list[str]:
        return [t.form.lower() for t in self.kiwi.tokenize(text) if t.tag.startswith(_KIWI_KEEP)]


class BM25sMethod:
    """bm25s over the corpus (title and text) with a given tokenizer; the reference."""

    def __init__(self, resources: EvalResources, name: str, tokenize) -> None:  # noqa: ANN001 -- text -> tokens
        self.name = name
        self.tokenize = tokenize
        corpus = resources.dataset.corpus
        self.ids = [d.id for d in corpus]
        started = time.perf_counter()
        tokens = [tokenize(f"{d.title}\n{d.abstract}\n{d.text}") for d in corpus]
        tokenized = time.perf_counter()
        self.model = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
        self.model.index(tokens, show_progress=False)
        built = time.perf_counter()
        with tempfile.TemporaryDirectory() as folder:
            self.model.save(folder)
            size = sum(p.stat().st_size for p in Path(folder).iterdir())
        postings = sum(len(set(t)) for t in tokens)
        vocabulary = len({w for t in tokens for w in t})
        BUILD_NOTES.append(
            f"{name}: tokenize {tokenized - started:.2f} s ({len(corpus) / (tokenized - started):,.0f} docs/s), "
            f"index {built - tokenized:.2f} s, {vocabulary:,} terms, {postings:,} postings, saved index {size / 1e6:.2f} MB"
        )

    def run(self, question: EvalQuestion, k: int) -> MethodResult:
        recorder = StageRecorder()
        with recorder.stage("search"):
            words = self.tokenize(question.text)
            known = [w for w in words if w in self.model.vocab_dict]
            scores = self.model.get_scores(known) if known else None
            top = scores.argsort()[::-1][:k] if scores is not None else []
        ranking = [(self.ids[i], float(scores[i])) for i in top if scores[i] > 0] if scores is not None else []
        return MethodResult(ranking, Trace.of(recorder))


BUILD_NOTES: list[str] = []


def _folder_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default=f"korquad:{DEFAULT_DATA}")
    parser.add_argument("--limit", type=int, help="Only the first N questions.")
    parser.add_argument("--home", default="/tmp/korean-home")
    parser.add_argument("-m", "--method", action="append", default=[], help="Further eval methods (mpr-rerank, ...).")
    parser.add_argument("--kiwi", action="store_true", help="Also bm25s over kiwipiepy morphemes.")
    parser.add_argument("--kiwi-path", help="Folder holding kiwipiepy (pip install --target).")
    parser.add_argument("--set", action="append", default=[], dest="overrides")
    parser.add_argument("--k", default="10,50,100")
    parser.add_argument("--out", help="Folder for per-question records (a re-run resumes).")
    args = parser.parse_args()

    if args.kiwi_path:
        sys.path.insert(0, args.kiwi_path)
    register_method("bm25s-bigram", lambda r: BM25sMethod(r, "bm25s-bigram", bigram_tokens))
    methods = ["bm25", "bm25s-bigram"]
    if args.kiwi:
        register_method("bm25s-kiwi", lambda r: BM25sMethod(r, "bm25s-kiwi", KiwiTokens()))
        methods.append("bm25s-kiwi")
    methods += args.method
    settings = load_settings(Path(args.home), args.overrides)
    data = load_dataset(args.dataset)
    questions = data.questions[: args.limit] if args.limit else data.questions
    resources = EvalResources(data, settings)
    ks = [int(k) for k in args.k.split(",")]
    started = time.perf_counter()
    built = time.perf_counter()
    _ = resources.lexical
    BUILD_NOTES.insert(0, f"navicite index: {time.perf_counter() - built:.2f} s (0 when cached), {_folder_mb(resources.index_folder):.2f} MB on disk (stored texts included)")
    report = RetrievalRunner(resources, methods, ks, out_dir=Path(args.out) if args.out else None).run(questions)
    load = os.getloadavg()[0]
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs (shared), load {load:.1f}; "
          f"data set {data.name}: {len(questions)} questions, {len(data.corpus)} documents; "
          f"run took {time.perf_counter() - started:.0f} s; {time.strftime('%Y-%m-%d %H:%M')}")
    print(markdown_table(report))
    for note in BUILD_NOTES:
        print(note)


if __name__ == "__main__":
    main()
