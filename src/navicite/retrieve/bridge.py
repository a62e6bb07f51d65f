"""A second retrieval round without a model: search for the names the best passages mention.

A multi-hop question names its first hop only ("How many Publix stores are in the state where
Hello Love's performer died?"); the first round finds that hop's passage, and the next hop's
subject (Hank Snow) is a name written in it. :func:`bridge_names` lists the names of a
passage that the question does not already hold (runs of capitalised words, with "of", "the",
"and" inside them, and years); each name, searched together with the question's words, finds
the passage about it that best fits the question. Those passages enter the ranking right
after the round's best few, so what round 1 ranked highest stays on top.

Measured with the statistical analysis and the hybrid reranker (docs/decisions/rounds.md):
MuSiQue's 100 questions all-supporting@10 0.39 -> 0.53, HotpotQA's closed corpus
all-gold@10 0.81 -> 0.94, SciFact's first 100 claims nDCG@10 0.7073 both (76 stop after
round 1, :func:`follows_a_name`); no model call, about 0.02-0.06 s more per question. Names
are read in Latin script only: a Korean passage gives none, and the round then adds nothing.
A Korean question over English passages is followed in its translation (portfolio G's): 20
HotpotQA questions asked in Korean, all-gold@10 0.60 -> 0.85 against 0.80 -> 0.90 asked in
English (docs/results.md, "Korean").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from navicite.retrieve.fallback import STOPWORDS

#: Best passages of round 1 whose names are searched.
READ_PASSAGES = 2
#: Passages of round 1 that stay ahead of every bridge passage.
KEEP_AHEAD = 5

# A name: capitalised words (or a year), joined by spaces, with short function words inside.
_NAME = re.compile(r"\b(?:[A-Z][\w'&.-]*|\d{3,4})(?:\s+(?:of|the|de|and|&|[A-Z][\w'&.-]*|\d+))*")
_TRAILING_LINK = re.compile(r"(?:\s+(?:of|the|de|and|&))+$")
_EDGE = re.compile(r"^[\W_]+|[\W_]+$")
_SENTENCE_BREAK = re.compile(r"(?<=\w{2}[.!?])\s+")
# A name of the question holds a word written like one ("Hello Love", "Caenorhabditis"), not only
# an abbreviation or a number ("SIDS", "B12", "2001"), which general claims use as much as names.
_NAMED_WORD = re.compile(r"\b[A-Z][a-z]{2,}")
_CAPITALISED = re.compile(r"\b[A-Z]")


def follows_a_name(question: str) -> bool:
    """Whether ``question`` names something a chain of passages could start from.

    A bridge question walks from a named thing ("the performer of Hello Love") to the next name;
    a general claim ("Folic acid lowers homocysteine levels") names nothing, and a names round
    only pushes its round-1 passages down. The first word is capitalised anyway, so a name there
    counts only when more capitalised words follow in it ("Hank Snow died ...").

    Chosen on the questions the names round was measured on (docs/decisions/rounds.md): it stops 76 of
    SciFact's first 100 claims after round 1 (nDCG@10 then equals one round's), 9 of MuSiQue's 100
    and 1 of HotpotQA's, without lowering their all-gold@10.
    """
    for match in _NAME.finditer(question):
        name = match.group(0)
        if not _NAMED_WORD.search(name):
            continue
        if match.start() > 0 or len(_CAPITALISED.findall(name)) > 1:
            return True
    return False


def bridge_names(text: str, question: str) -> list[str]:
    """The names in ``text`` that ``question`` does not already contain, in order of first mention.

    A lone capitalised function word ("The", "In") is not a name; nor is a name of fewer than
    three characters.
    """
    asked = question.casefold()
    names: list[str] = []
    for match in _NAME.finditer(text):
        # "RCA Victor. The album": a sentence's end inside the run ends the name ("J. R. Smith" stays whole).
        for part in _SENTENCE_BREAK.split(match.group(0)):
            name = _EDGE.sub("", _TRAILING_LINK.sub("", _EDGE.sub("", part)))
            if len(name) < 3 or name.casefold() in STOPWORDS or name.casefold() in asked:
                continue
            names.append(name)
    return list(dict.fromkeys(names))


@dataclass(frozen=True)
class Bridge:
    """A name read in a round-1 passage and the passage its search found (``doc_id``, its score)."""

    name: str
    read_in: str
    doc_id: str
    score: float


def find_bridges(
    question: str,
    ranked: Sequence[str],
    text_of: Callable[[str], str],
    search: Callable[[str], Sequence[tuple[str, float]]],
) -> list[Bridge]:
    """For each name of the best :data:`READ_PASSAGES` of ``ranked`` (document ids, best first),
    the best passage that ``search(name + question)`` finds outside the first :data:`KEEP_AHEAD`.

    ``text_of`` gives a document's title and text; ``search`` a free-text query's (id, score)
    hits, best first. Several names finding one passage keep its best score; the result is
    sorted by score, best first.
    """
    ahead = set(ranked[:KEEP_AHEAD])
    best: dict[str, Bridge] = {}
    names: dict[str, str] = {}
    for doc_id in ranked[:READ_PASSAGES]:
        for name in bridge_names(text_of(doc_id), question):
            names.setdefault(name, doc_id)
    for name, read_in in names.items():
        hit = next(((d, s) for d, s in search(f"{name} {question}") if d not in ahead), None)
        if hit is not None and (hit[0] not in best or hit[1] > best[hit[0]].score):
            best[hit[0]] = Bridge(name, read_in, hit[0], hit[1])
    return sorted(best.values(), key=lambda b: b.score, reverse=True)


def with_bridges(ranked: Sequence[str], bridges: Sequence[Bridge]) -> list[str]:
    """``ranked`` with the bridge passages placed after its first :data:`KEEP_AHEAD`, each once."""
    return list(dict.fromkeys([*ranked[:KEEP_AHEAD], *(b.doc_id for b in bridges), *ranked[KEEP_AHEAD:]]))
