"""Other ways to put the support question to the embedded model, against the shipped one (issue 49).

Every arm reads the same labelled pairs (``navicite.eval.support_set``) with the same model and
one LLM cache, in hash order with the tuning and held-out parts interleaved (a run cut short
still holds both parts and every source). Arms (``--arm``, repeatable):

- ``passage``: the shipped question (:class:`navicite.support.llm.LLMJudge`: the whole passages,
  one call); its p(yes) at the verdict token;
- ``examples``: the shipped question after six worked cases (:data:`EXAMPLES`) shown as earlier
  user and assistant turns in the same words;
- ``window``: the same question over the sentence windows (:mod:`navicite.text.windows`) that
  the shipped trained network ranks highest for the claim (the network locates, the model
  judges), top 2; with several passages the best window of each is read together;
- ``likelihood``: the claim's tokens forced one by one (a grammar admitting only the claim) after
  the passage and after no passage; mean and lowest token log-probability given the passage, and
  the mean and lowest per-token gain over no passage (embedded backend only);
- ``claim_first``: the shipped question with the claim before the passages (the check of a quoted
  sentence, ``judge_answers``, gained most from the question first: AUC 0.75 -> 0.88);
- ``quote``: the question asked quote first (``{"quote": ..., "supported": ...}``), p(yes) at
  the verdict token after the quote.

``run`` resumes from ``--out``; ``report`` prints AUC and operating points per part and per
source against the labels (never against a model), the combinations, and seconds per pair.

    .venv/bin/python bench/support_judge_variants.py run --arm passage --arm window --limit 125 --home /tmp/judge-home --out bench/results/support-judge-variants.json
    .venv/bin/python bench/support_judge_variants.py report --out bench/results/support-judge-variants.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from pydantic import BaseModel
from support_ce_bench import auc

from navicite import prompts
from navicite.eval.support_set import SupportPair, held_out, load_support_set
from navicite.llm.base import LLM, CallOptions, LLMError
from navicite.messages import Message
from navicite.support.base import Passage
from navicite.support.llm import (
    LLMJudge,
    Reply,
    bounded_sources,
    plain_claim,
    support_messages,
    support_probability,
    titled,
    yes_probability,
)
from navicite.support.trained import MAX_LENGTH, TrainedJudge, shipped_network
from navicite.text.quote import defuse
from navicite.text.sentences import split_sentences
from navicite.text.windows import premise_text, windows

#: Windows the ``window`` arm asks about.
TOP_WINDOWS = 2
#: The ``likelihood`` arm's two prompts: after the passage, and after nothing.
ASK_SOURCE = "{source}\n\nWrite one sentence that the text above states."
ASK_NONE = "Write one sentence."
#: The ``quote`` arm's question (sent after cite_system).
ASK_QUOTE = """<source>
{source}
</source>

Claim: {claim}

First copy, word for word, the one sentence of the source that comes closest to stating the claim. Then decide whether the source states the claim or makes it plainly follow. Wording may differ. If the claim adds a name, number, date or detail that the source does not give, it is not supported.
Reply in JSON: {{"quote": "...", "supported": true}} or {{"quote": "...", "supported": false}}"""


#: The ``claim_first`` arm's question (sent after cite_system): judge_support's words, the claim first.
ASK_CLAIM_FIRST = """Claim: {claim}

{source}

Does the source above state this claim, or make it plainly follow? Wording and language may differ. If the claim adds a name, number, date or detail that the source does not give, it is not supported.
Reply in JSON: {{"supported": true}} or {{"supported": false}}"""


#: The ``examples`` arm's worked cases (title, source, claim, supported), written here on made-up
#: texts (no document of the labelled set or a pile): a reworded fact, a value given to the wrong
#: subject, a reworded how-to, a list with an added item, a table row, a swapped role.
EXAMPLES = (
    ("Harbour Bridge", "The bridge was opened to traffic in March 1932 and carries eight lanes.",
     "Traffic has crossed the bridge since 1932.", True),
    ("Exam results", "Of the 300 students, 210 (70%) passed the written test, and 150 (50%) passed the oral test.",
     "150 students, half of the class, passed the written test.", False),
    ("Installing", "After ./configure has finished, type make and then make install to copy the programs into /usr/local/bin.",
     "To install the programs, run ./configure, make and make install.", True),
    ("Kernels", "The weights can use the Bartlett kernel (the default) or the Parzen kernel.",
     "The Bartlett, Parzen and Tukey kernels are available for the weights.", False),
    ("Table 2: Counts", "Table 2 year visitors rooms\n2019 4120 38\n2020 1985 38\n2021 3307 41",
     "There were 1985 visitors in 2020.", True),
    ("Credits", "The library was written by Ana Ruiz; Tom Berg maintains the Debian package.",
     "Tom Berg wrote the library.", False),
)


def example_turns() -> list[Message]:
    """:data:`EXAMPLES` as user and assistant turns in the shipped question's words."""
    turns: list[Message] = []
    for title, text, claim, supported in EXAMPLES:
        turns += prompts.render("judge_support", title=title, text=text, claim=claim)
        turns.append(Message("assistant", json.dumps({"supported": supported})))
    return turns


class QuotedReply(BaseModel):
    """The ``quote`` arm's reply."""

    quote: str
    supported: bool


#: The replayed verdicts' names in the report (the shipped question, and the same after the worked
#: cases), and the p(yes) levels they are read at (0.5: the model's own yes, as shipped).
VERDICT = "verdict: p(yes), 0 where a rule objects"
VERDICT_WORKED = "verdict with worked examples: p(yes), 0 where a rule objects"
ACCEPT_LEVELS = (0.1, 0.2, 0.3, 0.4, 0.5)


def interleaved(pairs: list[SupportPair]) -> list[SupportPair]:
    """Tuning and held-out pairs alternately, each part in hash order."""
    pairs = sorted(pairs, key=lambda p: p.digest)
    parts = [[p for p in pairs if not held_out(p)], [p for p in pairs if held_out(p)]]
    return [part[k] for k in range(max(map(len, parts))) for part in parts if k < len(part)]


def source_text(pair: SupportPair) -> str:
    """The pair's passages under their titles, one after the other (as one source)."""
    return "\n\n".join(titled(defuse(p.title), defuse(p.text[:3000])) for p in pair.passages if p.text.strip())


class Arms:
    """The arms' shared parts: one model, the verifier's judge and the trained network as locator."""

    def __init__(self, model: LLM, cache_dir: Path) -> None:
        self.model = model
        self.judge = LLMJudge(model)
        self._cache_dir = cache_dir
        self._locator: TrainedJudge | None = None

    @property
    def locator(self) -> TrainedJudge:
        if self._locator is None:
            self._locator = TrainedJudge(shipped_network(self._cache_dir))
        return self._locator

    def passage(self, pair: SupportPair) -> dict:
        premises = [Passage(p.title, p.text) for p in pair.passages if p.text.strip()]
        v = self.judge.entails(premises, pair.claim)
        return {"p": v.score, "chars": sum(len(p.text) for p in premises)}

    def examples(self, pair: SupportPair) -> dict:
        premises = [Passage(p.title, p.text) for p in pair.passages if p.text.strip()]
        shipped = support_messages(bounded_sources(premises, self.judge.max_chars), pair.claim)
        return {"p": self._yes([shipped[0], *example_turns(), *shipped[1:]])}  # after the system message

    def ranked_windows(self, passage: Passage, claim: str) -> list[tuple[float, str]]:
        """The passage's windows, best first by the trained network's logit for ``claim``."""
        sentences = split_sentences(passage.text) or [passage.text]
        texts = [" ".join(sentences[a:b]) for a, b in windows(sentences)]
        logits = self.locator.scorer.score(claim, [premise_text(passage.title, t) for t in texts], MAX_LENGTH, 16)
        return [(float(logits[i]), texts[i]) for i in np.argsort(-logits, kind="stable")]

    def window(self, pair: SupportPair) -> dict:
        premises = [Passage(p.title, p.text) for p in pair.passages if p.text.strip()]
        ranked = [self.ranked_windows(p, pair.claim) for p in premises]
        if len(premises) == 1:
            asks = [[(premises[0].title, text)] for _, text in ranked[0][:TOP_WINDOWS]]
        else:
            # The best window of each passage read together, then the strongest second window with the others' best.
            best = [r[0][1] for r in ranked]
            asks = [[(p.title, b) for p, b in zip(premises, best)]]
            alt = max(range(len(ranked)), key=lambda i: ranked[i][1][0] if len(ranked[i]) > 1 else -math.inf)
            if len(ranked[alt]) > 1:
                asks.append([(p.title, ranked[i][1][1] if i == alt else best[i]) for i, p in enumerate(premises)])
        ps = []
        for sources in asks:
            try:
                p = support_probability(self.model, sources, pair.claim.strip())[1]
            except LLMError:  # a misbehaving reply counts as no support
                p = 0.0
            ps.append(0.0 if p is None else p)
        return {"p": ps, "chars": [sum(len(x) for _, x in s) for s in asks]}

    def _forced(self, prompt: str, claim: str) -> list[float]:
        """The log-probability of each token of ``claim`` as the reply to ``prompt`` (grammar-forced)."""
        body = {"messages": [{"role": "user", "content": prompt}], "grammar": "root ::= " + json.dumps(claim),
                "max_tokens": 200, "temperature": 0.0, "logprobs": True, "top_logprobs": 1, "cache_prompt": True}
        result = self.model.runtime.server.handle_chat_completions(body)  # type: ignore[attr-defined]
        return [float(t["logprob"]) for t in result["choices"][0]["logprobs"]["content"]]

    def likelihood(self, pair: SupportPair) -> dict:
        claim = plain_claim(pair.claim)
        given = self._forced(ASK_SOURCE.format(source=source_text(pair)), claim)
        bare = self._forced(ASK_NONE, claim)
        gain = [g - b for g, b in zip(given, bare)] or [0.0]
        return {"tokens": len(given), "mean": float(np.mean(given)), "min": float(np.min(given)),
                "gain": float(np.mean(gain)), "min_gain": float(np.min(gain))}

    def claim_first(self, pair: SupportPair) -> dict:
        premises = [p for p in pair.passages if p.text.strip()]
        room = self.judge.max_chars // max(1, len(premises))  # the shipped judge's cut
        blocks = "\n".join(f"<source>\n{titled(defuse(p.title), defuse(p.text if len(p.text) <= room else p.text[:room] + ' ...'))}\n</source>"
                           for p in premises)
        messages = prompts.render("cite_system") + [Message("user", ASK_CLAIM_FIRST.format(source=blocks, claim=plain_claim(pair.claim)))]
        return {"p": self._yes(messages)}

    def _yes(self, messages: list[Message]) -> float:
        """The model's p(yes) at the verdict word of a support question (its bare verdict without log-probabilities)."""
        reply, tokens = self.model.complete_json_scored(messages, Reply, CallOptions(
            temperature=0.0, max_tokens=16, stage="verify", alternatives=8))
        p = yes_probability(tokens)
        return (1.0 if reply.supported else 0.0) if p is None else p

    def quote(self, pair: SupportPair) -> dict:
        messages = prompts.render("cite_system") + [
            Message("user", ASK_QUOTE.format(source=source_text(pair), claim=plain_claim(pair.claim)))]
        try:
            reply, tokens = self.model.complete_json_scored(messages, QuotedReply, CallOptions(
                temperature=0.0, max_tokens=160, stage="verify", alternatives=8))
        except LLMError:
            return {"p": 0.0, "quote": ""}
        p = verdict_after_quote(tokens)
        return {"p": (1.0 if reply.supported else 0.0) if p is None else p, "quote": reply.quote}


def verdict_after_quote(tokens: Sequence[tuple[str, dict[str, float]]]) -> float | None:
    """:func:`~navicite.support.llm.yes_probability` at the verdict once ``"supported"`` has been written."""
    text = ""
    for k, (token, _) in enumerate(tokens):
        if '"supported"' in text:
            return yes_probability(tokens[k:])
        text += token
    return None


def run_command(args: argparse.Namespace) -> None:
    from navicite import llm as llm_backends
    from navicite.config import Settings

    settings = Settings(home=args.home, llm={"backend": "embedded", "threads": args.threads})
    arms = Arms(llm_backends.create(settings), settings.cache_dir)
    out = json.loads(args.out.read_text(encoding="utf-8")) if args.out.is_file() else {}
    pairs = interleaved(load_support_set(args.pairs))[: args.limit or None]
    started = time.time()
    for k, pair in enumerate(pairs, start=1):
        row = out.setdefault(pair.digest, {"held_out": held_out(pair), "supported": pair.supported, "source": pair.source})
        for arm in args.arm:
            if arm in row:
                continue
            t = time.time()
            try:
                row[arm] = {**getattr(arms, arm)(pair), "s": round(time.time() - t, 2)}
            except (LLMError, KeyError, IndexError) as exc:  # the backend's reply lacked what the arm reads
                print(f"  {arm}: no result ({exc})", file=sys.stderr)
                continue
            args.out.write_text(json.dumps(out, indent=1), encoding="utf-8")
        print(f"[{k}/{len(pairs)} {time.time() - started:.0f}s]", file=sys.stderr, flush=True)
    print(f"{len(out)} pairs; model {settings.llm.model}")


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def _points(scores: list[tuple[float, bool]], thresholds: Sequence[float]) -> str:
    supported = sum(y for _, y in scores)
    cells = []
    for t in thresholds:
        accepted = [y for s, y in scores if s >= t]
        precision = sum(accepted) / len(accepted) if accepted else math.nan
        cells.append(f"{t:g}: {len(accepted)} acc, P {precision:.3f} R {sum(accepted) / max(1, supported):.3f}")
    return "; ".join(cells)


def objections() -> dict[str, bool]:
    """Per labelled pair, whether a word rule of the shipped cascade objects to it or vetoes it (no model)."""
    from support_judge_measure import objection_rules

    from navicite.support.rules import Fragment, Numbers

    rules = [*objection_rules(), Fragment(), Numbers()]
    out = {}
    for pair in load_support_set(None):
        premises = [Passage(p.title, p.text) for p in pair.passages]
        out[pair.digest] = any((v := r.decide(premises, pair.claim, ())) is not None and not v.supported for r in rules)
    return out


def report_command(args: argparse.Namespace) -> None:
    from sklearn.linear_model import LogisticRegression

    rows = json.loads(args.out.read_text(encoding="utf-8"))
    for digest, r in rows.items():
        r["digest"] = digest
    likelihood_names = ["mean", "min", "gain", "min_gain"]
    scores: dict[str, Callable[[dict], float]] = {
        "passage (shipped)": lambda r: r["passage"]["p"],
        "window, best of 1": lambda r: r["window"]["p"][0],
        "window, best of 2": lambda r: max(r["window"]["p"]),
        "mean(passage, window best of 2)": lambda r: (r["passage"]["p"] + max(r["window"]["p"])) / 2,
        "claim first": lambda r: r["claim_first"]["p"],
        "mean(passage, claim first)": lambda r: (r["passage"]["p"] + r["claim_first"]["p"]) / 2,
        "quote first": lambda r: r["quote"]["p"],
        "mean(passage, quote first)": lambda r: (r["passage"]["p"] + r["quote"]["p"]) / 2,
        "worked examples first": lambda r: r["examples"]["p"],
        **{f"likelihood {n}": (lambda n: lambda r: r["likelihood"][n])(n) for n in likelihood_names},
    }
    # p(yes) with the likelihood features: a logistic fit on the tuning part, read on both.
    both = [r for r in rows.values() if "passage" in r and "likelihood" in r]
    if any(not r["held_out"] for r in both):
        x = lambda r: [_logit(r["passage"]["p"]), *[r["likelihood"][n] for n in likelihood_names]]  # noqa: E731
        tune = [r for r in both if not r["held_out"]]
        fit = LogisticRegression(max_iter=1000).fit([x(r) for r in tune], [int(r["supported"]) for r in tune])
        scores["logistic(passage, likelihood), fitted on tuning"] = lambda r: float(fit.decision_function([x(r)])[0])

    # The shipped hybrid's decision, replayed: the model's p(yes), 0 where a word rule objects or
    # vetoes; at 0.5 it is the shipped verdict, lower thresholds are the accept levels to choose from.
    objecting = objections()
    scores[VERDICT] = lambda r: 0.0 if objecting[r["digest"]] else r["passage"]["p"]
    scores[VERDICT_WORKED] = lambda r: 0.0 if objecting[r["digest"]] else r["examples"]["p"]

    def has(name: str, r: dict) -> bool:
        try:
            scores[name](r)
            return True
        except KeyError:
            return False

    for name, f in scores.items():
        sel = [r for r in rows.values() if has(name, r)]
        if not sel:
            continue
        print(f"\n{name}: {len(sel)} pairs")
        for part, keep in (("tuning", False), ("held-out", True), ("all", None)):
            got = [(f(r), r["supported"]) for r in sel if keep is None or r["held_out"] == keep]
            line = f"  {part} ({len(got)}, {sum(y for _, y in got)} supported): AUC {auc(got):.3f}"
            if name in (VERDICT, VERDICT_WORKED):
                line += "; " + _points(got, ACCEPT_LEVELS)
            elif not name.startswith(("likelihood", "logistic")):
                line += "; " + _points(got, (0.3, 0.4, 0.5, 0.6, 0.7))
            print(line)
        sources = sorted({r.get("source", "?") for r in sel})
        print("  per source AUC: " + ", ".join(
            f"{s} {auc([(f(r), r['supported']) for r in sel if r.get('source') == s]):.3f} ({sum(r.get('source') == s for r in sel)})"
            for s in sources))
    real = [r for r in rows.values() if r.get("source") == "read:answers" and "passage" in r]
    print("\nreal answer sentences (read:answers), the shipped question's p(yes):")
    for part, keep in (("tuning", False), ("held-out", True)):
        got = [(r["passage"]["p"], r["supported"]) for r in real if r["held_out"] == keep]
        print(f"  {part} ({len(got)}, {sum(y for _, y in got)} supported): AUC {auc(got):.3f}; "
              + _points(got, (0.3, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7)))
        for verdict in (VERDICT, VERDICT_WORKED):
            if has(verdict, real[0]):
                got = [(scores[verdict](r), r["supported"]) for r in real if r["held_out"] == keep]
                print(f"  {part}, {verdict}: " + _points(got, ACCEPT_LEVELS))
    print("\nseconds per pair (mean): " + ", ".join(
        f"{arm} {np.mean([r[arm]['s'] for r in rows.values() if arm in r and 's' in r[arm]]):.2f}"
        for arm in ("passage", "window", "likelihood", "claim_first", "quote", "examples") if any(arm in r for r in rows.values())))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    r = commands.add_parser("run")
    r.add_argument("--arm", action="append", choices=["passage", "window", "likelihood", "claim_first", "quote", "examples"], required=True)
    r.add_argument("--home", type=Path, default=Path("/tmp/support-bench"), help="navicite home holding the LLM cache")
    r.add_argument("--threads", type=int, default=2)
    r.add_argument("--limit", type=int, default=0, help="only the first N pairs of the interleaved order")
    r.add_argument("--pairs", type=Path, help="folder of the labelled set (default: the shipped one)")
    r.add_argument("--out", type=Path, required=True)
    p = commands.add_parser("report")
    p.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    {"run": run_command, "report": report_command}[args.command](args)


if __name__ == "__main__":
    main()
