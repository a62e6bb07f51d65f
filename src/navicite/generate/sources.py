"""Adaptive context: which sources the model sees, how much of each, and how they are quoted.

Instead of the method's fixed top 10, sources are taken in rerank order while
their score stays close to the best one and while they fit the token budget
(which follows the model's context size). Every later stage (draft, align,
judge) quotes the chosen sources with the same text, so llama.cpp can reuse the
prompt prefix between calls.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from navicite.config import Settings
from navicite.generate.answer import Source
from navicite.text.quote import source_block
from navicite.text.tokens import estimate_tokens

# Room kept free in the context for instructions, the question and (in the align
# prompt) the draft itself; measured on our prompts with a 10-sentence answer.
_PROMPT_RESERVE_TOKENS = 700
# A cut source shorter than this tells the model too little to be worth its place.
_MIN_USEFUL_TOKENS = 48
# A later retrieval round's best passages are read even below the score floor: they hold the
# next hop, which ranks low against the question that does not name it. Names-round bridges of
# MuSiQue's gold paragraphs sat at the first three places after the kept five (git show f4b0ade:bench/README.md, "Retrieval rounds").
LATER_ROUND_SOURCES = 3
#: Documents whose best passage a question asking for several things is given, ranked within ``max_sources``.
SEVERAL_DOCUMENTS = 3
# A question that asks for two things or about several documents: "both", "each", "..., and which ...".
_SEVERAL = re.compile(
    r"\b(?:both|each|compare|comparison|differences? between)\b"
    r"|\band\s+(?:which|what|how|where|when|who|whom|whose|why|in\s+which|from\s+which)\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.!?。！？](?:['\"”’)\]]*)(?=\s|$)")


def truncate_to_tokens(text: str, max_tokens: int) -> tuple[str, bool]:
    """``text`` cut to about ``max_tokens``, at the last sentence end that fits (else a word end).

    Returns the text and whether it was cut.
    """
    if estimate_tokens(text) <= max_tokens:
        return text, False
    lo, hi = 0, len(text)
    while lo < hi:  # longest prefix within the budget
        mid = (lo + hi + 1) // 2
        if estimate_tokens(text[:mid]) <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    head = text[:lo]
    ends = [m.end() for m in _SENTENCE_END.finditer(head)]
    if ends and ends[-1] >= lo // 2:
        return head[: ends[-1]].rstrip(), True
    space = head.rfind(" ")
    cut = head[:space] if space > lo // 2 else head
    return cut.rstrip() + " …", True


@dataclass(frozen=True)
class ContextEntry:
    """A source as the model sees it: its number in the prompt and the (maybe cut) text."""

    number: int
    source: Source
    text: str
    truncated: bool


def context_budget(settings: Settings) -> int:
    """Tokens available for source texts: the setting, capped by what the model's context leaves."""
    g = settings.generate
    room = settings.llm.context_size - g.draft_max_tokens - _PROMPT_RESERVE_TOKENS
    return max(_MIN_USEFUL_TOKENS, min(g.context_budget_tokens, room))


class SourceSelector:
    """Chooses the adaptive context from reranked sources."""

    def __init__(self, settings: Settings) -> None:
        self.per_document = settings.generate.passages_per_document
        self.max_sources = settings.generate.max_sources
        self.score_ratio = settings.generate.score_ratio
        self.max_source_tokens = settings.generate.max_source_tokens
        self.budget = context_budget(settings)

    def run(self, sources: list[Source], question: str = "") -> list[ContextEntry]:
        """Sources in the given (rerank) order that pass the score and budget tests, numbered from 1.

        A source is skipped when its text and title are empty or when it repeats an
        earlier (doc_id, passage_id). The score test applies only when the best score is
        positive: ratios of zero or negative scores (unscored lists, logits) mean nothing;
        the best :data:`LATER_ROUND_SOURCES` sources a later retrieval round found pass it.
        When ``question`` asks for several things (:func:`asks_for_several`), the best passage
        of each of the first :data:`SEVERAL_DOCUMENTS` documents ranked within ``max_sources``
        comes first and passes it too, in place of the weakest passages that pass it: the second
        document a question names often scores far below the first, whose passages would
        otherwise fill the context.
        """
        usable = diversified(_distinct([s for s in sources if s.text.strip() or s.title.strip()]), self.per_document)
        if not usable:
            return []
        best = max(s.score for s in usable)
        floor = best * self.score_ratio if best > 0 else float("-inf")
        limit = self.max_sources
        leads = documents_leads(usable, self.max_sources) if asks_for_several(question) else []
        if leads:
            # As many sources as the floor lets in anyway: the leads take the places of the
            # first document's weakest passages, so the prompt is no longer for them.
            limit = min(limit, max(len(leads), sum(s.score >= floor for s in usable)))
            usable = leads + [s for s in usable if s not in leads]
        entries: list[ContextEntry] = []
        left = self.budget
        later = LATER_ROUND_SOURCES
        for source in usable:
            if len(entries) >= limit:
                break
            if source.score < floor and source not in leads:
                if source.round == 1 or later == 0:
                    continue
                later -= 1
            overhead = estimate_tokens(source.title) + 12  # title line and delimiters
            allowance = min(self.max_source_tokens, left - overhead)
            if allowance < _MIN_USEFUL_TOKENS and estimate_tokens(source.text) > max(allowance, 0):
                break
            text, cut = truncate_to_tokens(source.text.strip(), allowance)
            entries.append(ContextEntry(len(entries) + 1, source, text, cut))
            left -= overhead + estimate_tokens(text)
        return in_document_order(entries)


def asks_for_several(question: str) -> bool:
    """Whether ``question`` asks for two things or about several documents ("both", "each", "compare",
    "..., and which ...")."""
    return bool(_SEVERAL.search(question))


def documents_leads(sources: list[Source], within: int) -> list[Source]:
    """The best source of each of the first :data:`SEVERAL_DOCUMENTS` documents among the first ``within`` sources."""
    leads: dict[str, Source] = {}
    for source in sources[:within]:
        leads.setdefault(source.doc_id, source)
    return list(leads.values())[:SEVERAL_DOCUMENTS] if len(leads) > 1 else []


def diversified(sources: list[Source], per_document: int) -> list[Source]:
    """``sources`` (best first) reordered so one document cannot crowd out the rest.

    Each document's best ``per_document`` passages keep their places; its next ones wait
    until every other document has offered as many, and so on.
    """
    seen: dict[str, int] = {}
    keyed = []
    for rank, source in enumerate(sources):
        nth = seen.get(source.doc_id, 0)
        seen[source.doc_id] = nth + 1
        keyed.append((nth // per_document, rank, source))
    return [source for _, _, source in sorted(keyed, key=lambda k: (k[0], k[1]))]


def in_document_order(entries: list[ContextEntry]) -> list[ContextEntry]:
    """The chosen entries grouped by document (best document first), each document's in reading order, renumbered.

    Reading a document's passages in their own order, rather than by score, helps the
    model follow an argument that runs across them.
    """
    first_seen: dict[str, int] = {}
    for at, entry in enumerate(entries):
        first_seen.setdefault(entry.source.doc_id, at)
    ordered = sorted(entries, key=lambda e: (first_seen[e.source.doc_id], e.source.position))
    return [ContextEntry(n, e.source, e.text, e.truncated) for n, e in enumerate(ordered, start=1)]


def _distinct(sources: list[Source]) -> list[Source]:
    seen: set[tuple[str, str | None]] = set()
    out = []
    for s in sources:
        key = (s.doc_id, s.passage_id)
        if key not in seen:
            seen.add(key)
            out.append(s)
    return out


def format_sources(entries: list[ContextEntry]) -> str:
    """The sources block shared by every CiteG prompt, each source inside ``<source>`` delimiters."""
    return "\n".join(source_block(e.number, e.source.title.strip() or "(untitled)", e.text) for e in entries)
