"""One Settings object for the whole of navicite.

Values come, lowest precedence first, from the defaults below, the TOML file
``navicite.toml`` in the data directory, environment variables
(``NAVICITE_<SECTION>__<KEY>``, e.g. ``NAVICITE_LLM__THREADS=1`` or
``NAVICITE_RERANK__NAVICITE__DEPTH=5``), a named preset and finally overrides
given on the command line (``--set llm.threads=1``), all read by
pydantic-settings' own sources. A backend's own knobs sit in its sub-section
(``rerank.navicite.depth``). Every section forbids unknown keys, so a typo in a
config file is an error rather than a silently ignored value, and a key that
moved is an error naming its new place.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Literal, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError
from pydantic_settings import (
    BaseSettings,
    InitSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from navicite.errors import ConfigError

CONFIG_FILE_NAME = "navicite.toml"
DEFAULT_HOME = Path(".navicite")


class Section(BaseModel):
    """Base of every settings section: unknown keys are errors, and so are keys that moved."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    #: Old dotted names of this section's keys and where they went (an old name is an error naming the new one).
    renamed: ClassVar[dict[str, str]] = {}

    @model_validator(mode="before")
    @classmethod
    def _moved_keys(cls, data: Any) -> Any:
        if cls.renamed and isinstance(data, dict):
            moved = [f"{old} was renamed to {new}" for old, new in cls.renamed.items() if old.rpartition(".")[2] in data]
            if moved:
                raise PydanticCustomError("renamed_setting", "; ".join(moved))
        return data


def experimental(*default: Any, description: str, **constraints: Any) -> Any:
    """A ``Field`` for a knob kept for experiments and benchmarks rather than for users.

    It works like any other key (file, environment, ``-s``), but ``navicite config show`` lists
    it only with ``--all`` or once it is set, and docs/settings.md puts it in its own part, so
    the keys a user reads are the ones a user would change. Its name stays where the code reads
    it, so benchmarks, eval method specs and config files that set it keep working.
    """
    return Field(*default, description=description, json_schema_extra={"experimental": True}, **constraints)


def is_experimental(field: FieldInfo) -> bool:
    """Whether a settings field was declared with :func:`experimental`."""
    extra = field.json_schema_extra
    return isinstance(extra, dict) and bool(extra.get("experimental"))


class OpenSearchSettings(Section):
    """``index.backend = opensearch``: the collection's indexes in an OpenSearch cluster (see docs/scaling-out.md)."""

    hosts: list[str] = Field(
        default_factory=lambda: ["http://127.0.0.1:9200"],
        description="Cluster addresses (http:// or https://, with port); requests are spread over them.",
    )
    index_prefix: str = Field(
        "",
        description="Start of the names of this collection's indexes (<prefix>-documents, <prefix>-passages); "
        "empty = 'navicite-' and a hash of the data directory's path. Give every process that serves the same "
        "collection the same prefix.",
    )
    shards: int = Field(1, ge=1, le=1024, description="Primary shards of each index (fixed when the index is created).")
    replicas: int = Field(
        1, ge=0, le=16, description="Copies of each shard on other nodes (0 on a one-node cluster keeps it green)."
    )
    username: str | None = Field(None, description="Basic authentication user (with password).")
    password: str | None = Field(None, description="Basic authentication password (or NAVICITE_INDEX__OPENSEARCH__PASSWORD; shown masked).")
    api_key: str | None = Field(None, description="API key sent as 'Authorization: ApiKey <key>' (instead of a user).")
    verify_certs: bool = Field(True, description="Check the cluster's TLS certificate (https hosts).")
    ca_certs: str | None = Field(None, description="CA bundle file for the cluster's certificate (default: the system's).")
    timeout_s: float = Field(30.0, gt=0, description="Seconds one request may take before it fails.")
    max_retries: int = Field(2, ge=0, le=10, description="Retries of a request on a connection error or timeout (another host first).")
    bulk_docs: int = Field(500, ge=1, le=100_000, description="Documents per bulk request while writing.")


class IndexSettings(Section):
    """The lexical index."""

    backend: str = Field("tantivy", description="Lexical index backend (registered name).")
    title_boost: float = experimental(
        0.25,
        ge=0,
        description="Extra weight of a title match: words without a field are scored on title, abstract and body "
        "as one text (weight 1), plus this weight on the title alone (0 = none).",
    )
    writer_heap_mb: int = Field(256, ge=16, description="Memory for the index writer.")
    writer_threads: int = Field(
        2, ge=1, le=16, description="Indexing threads of the writer; analysis runs in them, beside the Python thread."
    )
    stemming: bool = Field(True, description="English stemming of words in the index (fixed when the index is created).")
    exact_fields: bool = Field(
        False,
        description="Also index abstract and body on their own, so 'abstract:' and 'body:' queries look at that part "
        "only; without it they search title, abstract and body together, and indexing is about 40% faster (fixed "
        "when the index is created).",
    )
    lock_wait_s: float = Field(5.0, ge=0, description="How long a write waits for another process's writer to finish.")
    writer_linger_s: float = experimental(
        1.0, ge=0, description="Seconds the index writer stays open after a write, so consecutive batches share it."
    )
    opensearch: OpenSearchSettings = Field(default_factory=OpenSearchSettings)


class IngestSettings(Section):
    """How documents are read and cut into segments."""

    segment_words: int = experimental(512, ge=16, description="Words per segment of a long document.")
    segment_overlap: float = experimental(0.2, ge=0.0, lt=0.9, description="Share of a segment repeated in the next.")
    # 100 words: the best answer-in-context recall of 60-240 on 60 scientific_qa and 40 QuALITY
    # questions at a 1,500-token budget (docs/decisions/passage-words.md).
    passage_words: int = Field(
        100,
        ge=20,
        description="Target words of a passage, the unit that is retrieved, quoted and cited (passages end at a "
        "sentence end and never cross a section heading); a record of at most 3 times this (an abstract) is one passage.",
    )
    batch_size: int = Field(
        20000,
        ge=1,
        description="Documents per committed batch (a crash loses at most one). Larger batches mean fewer commits "
        "and index merges, so faster ingest; a batch is held in memory until it is committed.",
    )


class LLMSettings(Section):
    """The chat model: embedded llama.cpp by default, or any OpenAI-compatible server."""

    backend: str = Field(
        "embedded",
        description="'embedded' (llama.cpp in-process), 'openai' (any OpenAI-compatible server), 'none' (no LLM: stages fall back), or a backend added with navicite.llm.register_backend.",
    )
    model: str = Field(
        "qwen2.5-coder-1.5b",
        description="Embedded: 'qwen2.5-coder-1.5b', 'qwen2.5-coder-0.5b', a GGUF path, or a hub file "
        "'owner/name/file.gguf' (with llm.revision; needs the hub extra). OpenAI: the served model name.",
    )
    revision: str | None = Field(
        None, description="Commit or tag of a hub-file llm.model; required for one, so answers do not change under you."
    )
    profile: Literal["auto", "small", "strong"] = Field(
        "auto",
        description="How much the chat model is trusted with; it gives the keys of config.PROFILES that are left unset "
        "their value. 'small' (a local model of a few billion parameters or less, like the embedded one): keywords "
        "from the statistical analysis; 'strong' (a larger served model): the model analyses the question. "
        "'auto': small with the embedded backend, strong otherwise.",
    )
    threads: int = Field(
        default_factory=lambda: default_threads(),
        ge=1,
        le=64,
        description="CPU threads of the embedded model; default: the physical cores this process may use, at most 8.",
    )
    context_size: int = Field(4096, ge=512, description="Embedded: tokens of the model's context per parallel call (prompt and reply together).")
    base_url: str = Field("http://127.0.0.1:8080/v1", description="OpenAI backend: the server's API root (ending in /v1).")
    api_key: str | None = Field(None, description="OpenAI backend: the server's key, sent as a bearer token (shown masked).")
    temperature: float = Field(0.1, ge=0.0, le=2.0, description="Sampling temperature of every call (low: the same question gets the same answer).")
    max_tokens: int = Field(512, ge=1, description="Reply budget of a call that sets none of its own.")
    concurrency: int = Field(
        1, ge=1, le=64, description="Model calls in flight at once (embedded: parallel slots, each with llm.context_size; a server: open requests)."
    )
    timeout_s: float = Field(
        300.0, gt=0,
        description="OpenAI backend: longest wait for each step of one request (connecting, each read of the reply); "
        "a reply that keeps trickling in is bounded by llm.answer_timeout_s instead.",
    )
    answer_timeout_s: float = Field(
        900.0, gt=0,
        description="Longest time one answer may take, retrieval and all its model calls together (every backend; the "
        "OpenAI one is cut off mid-reply, the embedded one between calls and between streamed pieces). Past it the "
        "answer fails with one line naming this setting. The default leaves room for mode navi with the embedded "
        "model on a busy machine (507 s per question at load 5-7, docs/results.md); lower it for a service.",
    )
    retries: int = Field(3, ge=0, le=10, description="OpenAI backend: retries of a request that failed or timed out.")
    cache: bool = Field(True, description="Keep model answers in the data directory's cache folder and replay them for the same request (--no-cache bypasses it once).")
    seed: int = Field(0, description="Sampling seed sent with every call.")
    structured_output: Literal["auto", "json_schema", "prompt"] = Field(
        "auto",
        description="OpenAI backend: 'json_schema' response format, 'prompt' (schema in the prompt, parse, repair), or 'auto' (the first, falling back to the second when the server refuses it).",
    )


#: Defaults that depend on the chat model (``llm.profile``), for keys left unset (None); any
#: value given in a file, the environment or ``-s`` wins. Each figure is in docs/decisions/.
PROFILES: dict[str, dict[str, Any]] = {
    # The embedded 1.5B model: its analysis call took 25-65 s per question on 2 cores and
    # retrieved no better than the statistical keywords.
    "small": {"retrieve.analysis": "statistical"},
    # A served, larger model analyses the question as the method does.
    "strong": {"retrieve.analysis": "llm"},
}


def default_threads(cap: int = 8) -> int:
    """Physical cores this process may run on (its CPU affinity, hyper-threads counted once), at most ``cap``."""
    try:
        allowed = os.sched_getaffinity(0)
    except (AttributeError, OSError):
        allowed = set(range(os.cpu_count() or 1))
    cores: set[tuple[str, str]] = set()
    for cpu in allowed:
        base = Path(f"/sys/devices/system/cpu/cpu{cpu}/topology")
        try:
            cores.add(((base / "physical_package_id").read_text().strip(), (base / "core_id").read_text().strip()))
        except OSError:
            cores.add(("cpu", str(cpu)))  # no topology (containers, other systems): count logical CPUs
    return max(1, min(cap, len(cores) or 1))


class EmbedSettings(Section):
    """Dense embeddings (optional)."""

    model: str = Field(
        "all-MiniLM-L6-v2",
        description="'all-MiniLM-L6-v2' (shipped, run on ONNX Runtime), 'multilingual-e5-small' (the multilingual "
        "extra), a local model folder, or a hub id 'owner/name' (with embed.revision; needs the hub extra).",
    )
    revision: str | None = Field(
        None, description="Commit or tag of a hub-id embed.model; required for one, so stored vectors keep their meaning."
    )
    batch_size: int = Field(64, ge=1, description="Texts embedded per forward pass.")
    device: str = Field("cpu", description="Torch device, for models run by sentence-transformers only (the train extra).")


class RetrieveSettings(Section):
    """Multi-portfolio retrieval."""

    top_k_per_query: int = experimental(30, ge=1, description="Hits kept from each portfolio query before pooling.")
    max_queries: int = experimental(10, ge=1, description="Most Boolean queries of all portfolios together; later ones are dropped (and said so).")
    or_group_cap: int = experimental(5, ge=1, description="Most terms joined in one OR group of a portfolio query.")
    concurrency: int = Field(4, ge=1, description="Portfolio queries searched at once.")
    analysis: Literal["llm", "statistical"] | None = Field(
        None,
        description="Who turns the question into keywords: 'llm' (the method's analysis call) or 'statistical' (the "
        "question's rare words and pseudo-relevance feedback, no call); unset: as llm.profile says (small: statistical, strong: llm; docs/decisions/analysis.md).",
    )
    analysis_max_tokens: int = experimental(256, ge=64, description="Budget of the keyword-analysis reply (the embedded 1.5B model writes 170-210 tokens).")
    feedback_docs: int = experimental(10, ge=1, description="Top BM25 documents read by the statistical fallback's expansion.")
    bm25_depth: int = experimental(300, ge=0, description="Flat-question BM25 hits whose scores feed the reranker (0: none).")
    min_language_share: float = experimental(
        0.05, ge=0.0, le=1.0, description="Portfolio G translates only into a language holding at least this share of the collection."
    )
    flat_portfolio: bool = experimental(
        True, description="Also pool the flat question's top hits as portfolio B (a navicite addition to MPR's Q/S/F/G)."
    )
    dense_portfolio: bool = Field(
        True,
        description="Also pool the question's nearest documents by embedding as portfolio D, where the collection "
        "has stored document vectors (navicite ingest --embed); a navicite addition to MPR.",
    )
    method: Literal["mpr", "flat"] = Field(
        "mpr",
        description="'mpr': the LLM's keywords, Boolean portfolios, flat and dense portfolios, reranked; 'flat': the "
        "question's BM25 passages only (no analysis call), the baseline MPR is measured against.",
    )
    noise_terms: list[str] = experimental(
        default_factory=lambda: ["image", "photo", "poster", "slides", "review", "patent", "dataset", "press"],
        description="Words whose documents portfolio S excludes.",
    )
    rounds: int = Field(
        1, ge=1, le=5,
        description="Most retrieval rounds for multi-hop questions (1: off). With retrieve.bridge=names one more round "
        "searches the names the best passages mention (no model call; skipped when the question names nothing); with llm, after each round one LLM call reads "
        "the best passages and says whether they suffice or what to search next.",
    )
    bridge: Literal["names", "llm"] = Field(
        "names",
        description="How a later round finds what to search for: 'names' in the best two passages (no model call; "
        "MuSiQue all-supporting@10 0.42 -> 0.57 with the model's keywords, docs/decisions/rounds.md) or 'llm' (a missing-information call per round, "
        "which the embedded 1.5B model answers with the wrong bridge most of the time; for a stronger model).",
    )
    round_passages: int = experimental(5, ge=1, le=10, description="Best passages the missing-information call reads after a round.")
    round_passage_chars: int = experimental(
        240, ge=60, description="Characters of each passage (its opening) the missing-information call reads, after the title."
    )
    round_max_tokens: int = experimental(128, ge=32, description="Reply budget of the missing-information call.")


class HybridRerankSettings(Section):
    """The hybrid scorer (``rerank.backend=hybrid``, and the first stage of 'navicite' and 'llm')."""

    # Grid-searched (steps of 0.1) on SciFact train questions 100-299, statistical analysis;
    # agreement is kept small (0.0 scored 0.707 nDCG@10 there, 0.1 scored 0.702).
    dense_weight: float = experimental(0.5, ge=0.0, description="Weight of the embedding cosine.")
    bm25_weight: float = experimental(0.4, ge=0.0, description="Weight of the flat-question BM25 score.")
    agreement_weight: float = experimental(0.1, ge=0.0, description="Weight of portfolio agreement.")


class NaviciteRerankSettings(Section):
    """The 'navicite' backend: hybrid orders all candidates, the shipped cross-encoder re-scores the head."""

    # 270 pairs at 256 tokens do not fit 2 s on 2 cores (see bench/rerank_bench.py). Length and
    # weight: the shipped model's best on SciFact train 1-200 and HotpotQA closed (MODEL_CARD.md);
    # at 128 tokens it reads too little of an abstract and falls below hybrid on SciFact.
    depth: int = Field(20, ge=0, description="Candidates of the hybrid order the cross-encoder scores.")
    max_length: int = experimental(256, ge=16, description="Tokens per (question, passage) pair.")
    weight: float = experimental(0.3, ge=0.0, le=1.0, description="Weight of the cross-encoder score against the hybrid score.")
    onnx_variant: Literal["int8", "fp32"] = Field("int8", description="Which exported ONNX model to run.")
    onnx_threads: int = Field(2, ge=1, description="ONNX Runtime intra-op threads.")


class LLMRerankSettings(Section):
    """The 'llm' backend: the chat model grades the head of the hybrid order."""

    depth: int = Field(20, ge=0, description="Candidates of the hybrid order the LLM grades.")
    batch: int = Field(4, ge=1, le=10, description="Passages graded by one call.")
    passage_chars: int = experimental(700, ge=100, description="Characters of each passage shown to the LLM.")


class RerankSettings(Section):
    """Re-ranking of the pooled candidates; each backend's own knobs are in its sub-section."""

    renamed: ClassVar[dict[str, str]] = {
        "rerank.dense_weight": "rerank.hybrid.dense_weight",
        "rerank.bm25_weight": "rerank.hybrid.bm25_weight",
        "rerank.agreement_weight": "rerank.hybrid.agreement_weight",
        "rerank.cascade_depth": "rerank.navicite.depth",
        "rerank.cascade_max_length": "rerank.navicite.max_length",
        "rerank.cascade_weight": "rerank.navicite.weight",
        "rerank.onnx_variant": "rerank.navicite.onnx_variant",
        "rerank.onnx_threads": "rerank.navicite.onnx_threads",
        "rerank.llm_depth": "rerank.llm.depth",
        "rerank.llm_batch": "rerank.llm.batch",
        "rerank.llm_passage_chars": "rerank.llm.passage_chars",
    }

    backend: str = Field(
        "hybrid",
        description="'none' (the pool's fused order), 'hybrid' (embedding cosine + BM25 + agreement), 'cross-encoder' (rerank.model), "
        "'navicite' (the shipped cross-encoder over the hybrid head), 'llm' (the chat model grades the hybrid head), "
        "or a backend added with navicite.rerank.register_backend.",
    )
    model: str | None = Field(None, description="cross-encoder: a CrossEncoder folder or hub id; navicite: another model than the shipped one.")
    top_n: int = Field(50, ge=1, description="Candidates kept after re-ranking (what source selection chooses from).")
    max_length: int = Field(256, ge=16, description="cross-encoder: tokens per (question, passage) pair.")
    batch_size: int = Field(16, ge=1, description="Pairs per cross-encoder forward pass (cross-encoder and navicite).")
    hybrid: HybridRerankSettings = Field(default_factory=HybridRerankSettings)
    navicite: NaviciteRerankSettings = Field(default_factory=NaviciteRerankSettings)
    llm: LLMRerankSettings = Field(default_factory=LLMRerankSettings)


class NavigateSettings(Section):
    """Knowledge trees for long documents and the navigation agent."""

    min_document_words: int = Field(2000, ge=0, description="Documents at least this long get a knowledge tree (tree build, navi and hybrid modes).")
    titles_per_segment: int = experimental(2, ge=1, description="Model-organised trees: topics one segment may be filed under.")
    max_titles: int = experimental(4, ge=1, description="Model-organised trees: most titles the model may propose for one segment.")
    leaf_token_budget: int = experimental(1536, ge=128, description="Most tokens under one leaf of a tree; a bigger node is split.")
    max_topics_per_level: int = experimental(12, ge=2, description="Most children of one tree node; more are bundled under new nodes.")
    step_budget: int = Field(12, ge=1, description="Most model calls one navigation may make.")
    concurrency: int = Field(2, ge=1, description="Parallel model calls while building (refine) and navigating (subtrees).")
    max_calls_per_segment: float = experimental(
        1.5, ge=0.0, description="Build goal: optional calls (split, naming, refine) stop once a tree has made this many per segment; 0: no limit."
    )
    structure: Literal["auto", "llm"] = Field(
        "auto",
        description="How a tree gets its shape: 'auto' takes the document's outline or numbered/Markdown/HTML headings "
        "when they are plausible (its sections are the nodes, their passages the leaves, the model only writes short "
        "summaries of inner nodes) and lets the model organise the rest; 'llm' always lets the model organise.",
    )
    summaries: Literal["model", "extractive"] = Field(
        "model", description="Summaries of a structure tree's inner nodes: 'model' writes them (a few calls per document), "
        "'extractive' takes each node's opening sentences (no model call: a tree in well under a second)."
    )
    summaries_per_call: int = experimental(6, ge=1, le=16, description="Inner nodes of a structure tree one summary call writes.")
    node_summary_words: int = experimental(40, ge=10, description="Longest summary of an inner node of a structure tree, in words.")
    segments_per_call: int = experimental(2, ge=1, le=8, description="Segments placed by one select call (fewer when the prompt would not fit).")
    summary_words: int = experimental(60, ge=10, description="Longest summary the select call writes per title.")
    select_max_tokens: int = experimental(420, ge=32, description="Reply budget of one select call.")
    refine_max_tokens: int = experimental(640, ge=32, description="Reply budget of one refine call.")
    split_max_tokens: int = experimental(200, ge=32, description="Reply budget of one split call.")
    navigate_max_tokens: int = experimental(160, ge=32, description="Reply budget of one navigation step.")
    order_entries: Literal["document", "relevance"] = experimental(
        "document", description="Order of a level's entries and a leaf's passages in navigation prompts: the tree's own, or by BM25 of the passages under them for the question."
    )
    fill_tokens: int = Field(
        1500, ge=0, description="After the walk, add the document's best BM25 passages not yet taken until the evidence has this many tokens; 0: navigation's picks only."
    )
    fill_order: Literal["after", "interleave"] = experimental(
        "after", description="Where the fill's passages go: after navigation's picks, or alternating with them (pick, passage, pick, ...)."
    )
    preview_words: int = experimental(50, ge=5, description="Words of a child's content shown when labelling a level.")
    leaf_prompt_tokens: int = experimental(1800, ge=128, description="Most passage tokens shown in one leaf step.")
    memory: bool = experimental(False, description="Navigate with the memory variant (question type and source-grounded notes).")
    hybrid_documents: int = Field(3, ge=1, description="Most retrieved documents hybrid mode navigates (best ranked first).")
    widen_share: float = Field(
        0.5, ge=0.0, le=1.0, description="Modes section and auto: share of the evidence budget given to the best passage's section "
        "(its neighbours under the same heading, nearest first); the rest goes to the ranking as it was."
    )


class GenerateSettings(Section):
    """Drafting and citing answers."""

    evidence: Literal["passages", "document"] = experimental(
        "passages",
        description="What a source is: the retrieved passages, each document's quoted in document order, or "
        "(the first release's behaviour, kept for comparison) each retrieved document's whole text cut to the budget.",
    )
    format: Literal["answer", "report"] = Field(
        "answer",
        description="'answer': a direct answer first, then as much explanation as the question needs; 'report': "
        "the method's title / introduction / body / conclusion form.",
    )
    max_citations_per_sentence: int = experimental(
        3, ge=1, description="Most sources one sentence cites: the best supported ones (a common claim may be verified on many)."
    )
    passages_per_document: int = experimental(
        4, ge=1, description="Passages one document may place before every other document's next best is offered."
    )

    max_sources: int = Field(10, ge=1, description="Most sources (passages) the draft is written from.")
    score_ratio: float = experimental(0.5, ge=0.0, le=1.0, description="Keep sources scoring at least this share of the best.")
    context_budget_tokens: int = Field(2500, ge=256, description="Most tokens of source text in the drafting prompt (less when the model's context is smaller).")
    align: Literal["batched", "per-sentence"] = experimental(
        "batched", description="Sentence-to-source alignment: one call for the whole draft, or one call per sentence."
    )
    max_source_tokens: int = experimental(400, ge=32, description="Longest text of one source in the prompt; longer texts are cut at a sentence end.")
    draft_max_tokens: int = experimental(450, ge=32, description="Reply budget of the draft call, in tokens (the longest answer it can write).")
    section_sentences: int = experimental(3, ge=1, le=10, description="Most sentences per answer section (introduction, body, conclusion).")
    short_answer: bool = experimental(False, description="Ask for the answer phrase first (for exact-match benchmarks).")
    answer_phrase: bool = Field(
        True, description="Answer form: one short call takes the name, number or date the first sentence gives out of it, "
        "shown above the answer (not for how/why questions; off saves the call)."
    )
    verifier: Literal["lexical", "llm", "hybrid", "trained"] = Field(
        "hybrid", description="Support judge: 'hybrid' (word rules, then the LLM as a yes/no judge), 'llm' (the same), "
        "'lexical' (word overlap alone, no model), or 'trained' (experimental: navicite's trained support network, the word "
        "rules and the LLM as one calibrated score, the LLM asked only where its vote can change the verdict; at the "
        "shipped calibration for precision 0.95 it accepts almost nothing yet, docs/support.md)."
    )
    lexical_accept: float = Field(
        0.8, ge=0.0, le=1.0, description="Lexical verifier (no model): a claim whose words one passage sentence (or two in a "
        "row) holds at least this share of is accepted; also a sentence aligned as general is cited at this overlap."
    )
    judge_max_calls: int = Field(16, ge=0, description="Most judge calls per answer; beyond it only the word rules can accept a claim.")
    joint_support: bool = Field(
        True, description="A claim no single source supports is judged once against the two sources that best name and "
        "cover it, read together (a comparison or a two-hop bridge); off saves that call."
    )
    confirm_answer: bool = Field(
        True, description="Answer form: the first sentence, the answer, is put to the judge (one call) when word overlap "
        "alone accepted it."
    )
    recheck_answer: bool = Field(
        False, description="Answer form: when no source supports the first sentence, the model is shown that sentence "
        "beside the source sentence nearest it and answers once more; the new answer is kept only if its first sentence "
        "is cited. Off: with the embedded model it changed no answer of 20 HotpotQA and 8 PDF questions; on the two PDF "
        "answers it ran on it took 5-6 more calls (docs/results.md)."
    )
    unsupported_answer: Literal["not-stated", "flag"] = Field(
        "not-stated",
        description="Answer form: when no source supports the first sentence, the answer itself, it is replaced by \"The "
        "sources do not answer this question.\" (the draft's sentence is listed in the JSON's 'withheld'), with the source "
        "sentence closest to it quoted and cited when nothing else is; 'flag' shows the draft's sentence, marked.",
    )
    quote_answer_level: float = Field(
        0.65, ge=0.0, le=1.0,
        description="Answer form: where generate.unsupported_answer quotes the source sentence closest to the refused "
        "answer, the model is asked once whether that sentence answers the question; at this probability of yes or "
        "more the quote is shown as the answer, without \"The sources do not answer this question.\" (1 asks nothing; "
        "0.65: precision 0.82 / 0.88, recall 0.45 / 0.54 on tuning / held-out pairs of bench/quote_answers.py).",
    )
    unsupported: Literal["withhold", "flag"] = Field(
        "withhold",
        description="Answer form: a sentence after the first that no source was verified for is left out of the answer "
        "(listed in the JSON's 'withheld', counted under the answer); 'flag' shows it in place, marked. The first "
        "sentence, the answer, follows generate.unsupported_answer.",
    )
    novel_words: int = Field(
        0, ge=0,
        description="A sentence with this many content words that neither its sources nor the question hold is not cited "
        "(0: off, the default: on 110 held-out labelled pairs it lowered precision and recall, docs/results.md).",
    )
    language_retry: bool = Field(True, description="Translate the draft once (one call) when it is not in the question's language.")
    language_repair_share: float = experimental(
        0.25, ge=0.0, le=1.0, description="Translate the draft when more than this share of its sentences is in another language."
    )


class ServerSettings(Section):
    """The HTTP API."""

    host: str = Field("127.0.0.1", description="Address navicite serve and mcp --http bind; any other than 127.0.0.1 needs server.api_key.")
    port: int = Field(8000, ge=1, le=65535, description="Port of navicite serve.")
    api_key: str | None = Field(
        None, description="Bearer token every endpoint but /v1/health requires (env NAVICITE_API_KEY; shown masked)."
    )
    max_upload_mb: int = Field(20, ge=1, description="Largest upload of documents through the HTTP API, in MB.")
    max_body_kb: int = Field(
        1024, ge=1,
        description="Largest request body of the endpoints other than uploads (search, ask, chat), refused with 413 "
        "before it is read; uploads have server.max_upload_mb.",
    )
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Host names the server answers besides loopback names and the bound address (e.g. the name a "
        "reverse proxy or the LAN uses); other Host headers get 421, against DNS rebinding. '*' allows any.",
    )


class Settings(BaseSettings):
    """All of navicite's settings for one data directory (``home``).

    Built directly (``Settings(home=...)``) it reads the same sources as :func:`load_settings`:
    the given values over ``NAVICITE_*`` variables over ``<home>/navicite.toml``.
    """

    model_config = SettingsConfigDict(
        extra="forbid",
        validate_assignment=True,
        env_prefix="NAVICITE_",
        env_nested_delimiter="__",
    )

    home: Path = Field(DEFAULT_HOME, description="The data directory: one collection's index, trees and caches (--home, env NAVICITE_HOME).")
    index: IndexSettings = IndexSettings()
    ingest: IngestSettings = IngestSettings()
    llm: LLMSettings = LLMSettings()
    embed: EmbedSettings = EmbedSettings()
    retrieve: RetrieveSettings = RetrieveSettings()
    rerank: RerankSettings = RerankSettings()
    navigate: NavigateSettings = NavigateSettings()
    generate: GenerateSettings = GenerateSettings()
    server: ServerSettings = ServerSettings()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Highest first: explicit values (preset and ``-s`` overrides), ``NAVICITE_*`` variables,
        ``<home>/navicite.toml``, then ``NAVICITE_API_KEY`` as ``server.api_key``."""
        explicit = init_settings.init_kwargs if isinstance(init_settings, InitSettingsSource) else {}
        home = Path(explicit.get("home") or os.environ.get("NAVICITE_HOME") or DEFAULT_HOME)
        config_file = home / CONFIG_FILE_NAME
        try:
            toml_settings = TomlConfigSettingsSource(settings_cls, toml_file=config_file)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{config_file}: not valid TOML ({exc}); fix or remove the file") from exc
        except OSError as exc:
            raise ConfigError(f"{config_file}: cannot read ({exc.strerror})") from exc
        sources: tuple[PydanticBaseSettingsSource, ...] = (init_settings, env_settings, toml_settings)
        if api_key := os.environ.get("NAVICITE_API_KEY"):
            sources += (InitSettingsSource(settings_cls, init_kwargs={"server": {"api_key": api_key}}),)
        return sources

    @property
    def profile(self) -> str:
        """The profile in force: ``llm.profile``, with 'auto' read as 'small' for the embedded backend, else 'strong'."""
        if self.llm.profile != "auto":
            return self.llm.profile
        return "small" if self.llm.backend == "embedded" else "strong"

    def value(self, key: str) -> Any:
        """The value of a dotted key (``retrieve.analysis``) as set or defaulted, before any profile.

        Raises:
            ConfigError: no setting of that name.
        """
        node: Any = self
        for part in key.split("."):
            if not isinstance(node, BaseModel) or part not in type(node).model_fields:
                raise ConfigError(f"no setting {key!r}; `navicite config show --all` lists them")
            node = getattr(node, part)
        return node

    def resolved(self, key: str) -> Any:
        """The value of a dotted key, or, when it is unset (None), its default under :attr:`profile`."""
        value = self.value(key)
        if value is None:
            return PROFILES[self.profile].get(key)
        return value

    @property
    def index_dir(self) -> Path:
        """Folder of the lexical index."""
        return self.home / "index"

    @property
    def passage_index_dir(self) -> Path:
        """Folder of the passage index (what retrieval searches)."""
        return self.home / "passages"

    @property
    def cache_dir(self) -> Path:
        """Folder of caches (LLM answers, embeddings)."""
        return self.home / "cache"

    def public_dict(self) -> dict[str, Any]:
        """Effective values with secrets masked, for display."""
        data = self.model_dump(mode="json")
        for section in ("llm", "server"):
            if data[section].get("api_key"):
                data[section]["api_key"] = "***"
        for key in ("password", "api_key"):
            if data["index"]["opensearch"].get(key):
                data["index"]["opensearch"][key] = "***"
        return data


@dataclass(frozen=True)
class SettingInfo:
    """One key of :class:`Settings` as a reader sees it (``navicite config show --explain``, docs/settings.md)."""

    key: str
    field: FieldInfo
    section_doc: str

    @property
    def experimental(self) -> bool:
        """Declared with :func:`experimental` (listed apart)."""
        return is_experimental(self.field)

    @property
    def description(self) -> str:
        """The field's own description ('' when it has none)."""
        return self.field.description or ""

    @property
    def default(self) -> Any:
        """The built-in default (a factory's value is computed)."""
        if self.field.default_factory is not None:
            return self.field.default_factory()  # type: ignore[call-arg]
        return self.field.default

    @property
    def allowed(self) -> str:
        """Type and bounds in short: ``int >= 1``, ``int from 1 to 5``, ``'llm' | 'statistical' | unset``."""
        kind = _type_name(self.field.annotation)
        found = {attr: getattr(m, attr) for m in self.field.metadata for attr in ("ge", "gt", "le", "lt")
                 if getattr(m, attr, None) is not None}
        if "ge" in found and "le" in found:
            return f"{kind} from {found['ge']} to {found['le']}"
        ops = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<"}
        return " ".join([kind, *(f"{ops[attr]} {value}" for attr, value in found.items())])


def _type_name(annotation: Any) -> str:
    args = get_args(annotation)
    if get_origin(annotation) is Literal:
        return " | ".join(repr(a) for a in args)
    if args and type(None) in args:
        rest = [a for a in args if a is not type(None)]
        return " | ".join(_type_name(a) for a in rest) + " | unset"
    if args:
        return f"{getattr(annotation, '__name__', 'list')}[{', '.join(_type_name(a) for a in args)}]"
    return getattr(annotation, "__name__", str(annotation))


def setting_infos(model: type[BaseModel] = None, prefix: str = "") -> list[SettingInfo]:  # type: ignore[assignment]
    """Every key of :class:`Settings` (sub-sections flattened to dotted names), in declaration order."""
    model = model or Settings
    infos: list[SettingInfo] = []
    for name, field in model.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            infos.extend(setting_infos(annotation, f"{prefix}{name}."))
        else:
            infos.append(SettingInfo(f"{prefix}{name}", field, (model.__doc__ or "").strip().splitlines()[0]))
    return infos


#: Named sets of overrides (``navicite --preset NAME``), applied under the ``-s`` overrides.
PRESETS: dict[str, tuple[str, ...]] = {
    # The first release's call pattern, for side-by-side runs: whole documents cut to the
    # budget, the title/introduction/body/conclusion draft, one thread.
    "first-release": ("generate.evidence=document", "generate.format=report", "llm.threads=1",
                      "retrieve.analysis_max_tokens=384", "retrieve.analysis=llm",
                      "generate.joint_support=false", "generate.confirm_answer=false"),
    # Fewest model calls: no keyword analysis, word-overlap verification, five sources.
    "fast": ("retrieve.method=flat", "generate.verifier=lexical", "generate.max_sources=5",
             "generate.language_retry=false"),
    # The method's report form of the answer.
    "report": ("generate.format=report",),
    # More model judgement where it pays: every support check by the model, navicite's cross-encoder.
    "quality": ("generate.verifier=llm", "rerank.backend=navicite"),
}


def preset_overrides(name: str | None) -> list[str]:
    """The overrides of preset ``name`` (none for None).

    Raises:
        ConfigError: no preset of that name.
    """
    if not name:
        return []
    if name not in PRESETS:
        raise ConfigError(f"unknown preset {name!r}; choose one of: {', '.join(PRESETS)}")
    return list(PRESETS[name])


def parse_override(text: str) -> tuple[list[str], Any]:
    """Parse ``section.key=value`` into a key path and a TOML-typed value.

    The value is read as TOML when it parses (numbers, booleans, quoted
    strings, lists) and taken as a plain string otherwise.
    """
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"override {text!r} is not of the form section.key=value (e.g. llm.threads=2)")
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    return [part.strip() for part in key.split(".")], value


def _merge(base: dict[str, Any], path: list[str], value: Any) -> None:
    node = base
    for part in path[:-1]:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise ConfigError(f"cannot set {'.'.join(path)}: {part} is not a section")
    node[path[-1]] = value


def load_settings(home: Path | str | None = None, overrides: list[str] | None = None, preset: str | None = None) -> Settings:
    """Build the effective settings for a data directory.

    Lowest precedence first: defaults, ``<home>/navicite.toml``, ``NAVICITE_<SECTION>__<KEY>``
    variables (``NAVICITE_API_KEY`` is ``server.api_key`` where nothing else sets it), the
    preset, then ``overrides`` (pydantic-settings' TOML, environment and init sources, see
    :meth:`Settings.settings_customise_sources`).

    Args:
        home: the data directory; defaults to ``$NAVICITE_HOME`` or ``./.navicite``.
        overrides: ``section.key=value`` strings, applied last.
        preset: a name of :data:`PRESETS`, applied just before ``overrides``.

    Raises:
        ConfigError: a file, variable or override names an unknown key or a bad value.
    """
    explicit: dict[str, Any] = {}
    for text in [*preset_overrides(preset), *(overrides or [])]:
        path, value = parse_override(text)
        _merge(explicit, path, value)
    explicit["home"] = Path(home or os.environ.get("NAVICITE_HOME") or DEFAULT_HOME)
    try:
        return Settings(**explicit)
    except ValidationError as exc:
        raise ConfigError(_describe(exc)) from exc


def _describe(exc: ValidationError) -> str:
    lines = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"])
        lines.append(f"setting {where}: {err['msg']}")
    return "invalid settings:\n  " + "\n  ".join(lines)
