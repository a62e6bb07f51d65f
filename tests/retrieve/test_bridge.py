"""The names round (``retrieve.bridge = names``): names read in the best passages, searched with the question."""

from __future__ import annotations

from pathlib import Path

import pytest

from navicite import index as index_package
from navicite.config import Settings
from navicite.documents import Document
from navicite.index.base import LexicalIndex
from navicite.rerank.fusion import FusionReranker
from navicite.retrieve.bridge import KEEP_AHEAD, Bridge, bridge_names, find_bridges, follows_a_name, with_bridges
from navicite.retrieve.mpr import MultiPortfolioRetriever

# A MuSiQue question (2hop, from ../shared/data/musique) over its own two supporting paragraphs
# (shortened) and distractors that share the question's words.
QUESTION = "Where did the performer of Hello Love die?"
DOCS = [
    ("hello", "Hello Love", "Hello Love is a 1974 album by Hank Snow, released on RCA Victor. Hello Love reached the country charts."),
    ("snow", "Hank Snow", "Clarence Eugene Snow, known as Hank Snow, was a country singer. Snow died in Madison, Tennessee, in 1999."),
    ("love1", "Love Me Tender", "Love Me Tender is a song performed by Elvis Presley; the performer sang it in the film."),
    ("love2", "Hello Goodbye", "Hello Goodbye is a song; its performer the Beatles released it in 1967. Love was its theme."),
    ("love3", "Love Story", "Love Story is a novel; where the performer of its film song died is told in its sequel."),
    ("love4", "Hello Dolly", "Hello Dolly is a musical; its performer Carol Channing died in California. Love and hello."),
    ("love5", "Love Hurts", "Love Hurts is a song; the performer of its first recording, the Everly Brothers, did not die young."),
    ("rca", "RCA Victor", "RCA Victor is a record label owned by Sony Music; it released country music."),
]


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> LexicalIndex:
    idx = index_package.create(Settings(home=tmp_path_factory.mktemp("bridge-index")))
    idx.upsert(Document(doc_id, title, text=text) for doc_id, title, text in DOCS)
    return idx


def test_names_are_capitalised_runs_and_years_the_question_lacks() -> None:
    text = "Hello Love is a 1974 album by Hank Snow, released on RCA Victor. The album of the Year."
    assert bridge_names(text, QUESTION) == ["1974", "Hank Snow", "RCA Victor", "Year"]
    # Linking words inside a name stay, trailing ones go; a lone function word ("He") is no name.
    assert bridge_names("He joined the University of Toronto and the band of the.", "Who?") == ["University of Toronto"]


def test_find_bridges_searches_each_name_and_keeps_the_first_five_ahead() -> None:
    ranked = ["a", "b", "c", "d", "e", "f", "g"]
    texts = {"a": "Written by Ann Lee.", "b": "Sung by Bo Diddley, with Ann Lee."}
    hits = {f"Ann Lee {QUESTION}": [("b", 9.0), ("x", 4.0)], f"Bo Diddley {QUESTION}": [("f", 6.0), ("x", 5.0)]}
    bridges = find_bridges(QUESTION, ranked, lambda d: texts.get(d, ""), lambda q: hits.get(q, []))
    assert bridges == [Bridge("Bo Diddley", "b", "f", 6.0), Bridge("Ann Lee", "a", "x", 4.0)]
    assert with_bridges(ranked, bridges) == ["a", "b", "c", "d", "e", "f", "x", "g"]


def test_names_round_brings_the_second_hop_after_the_first_five(index: LexicalIndex, tmp_path: Path) -> None:
    settings = Settings(home=tmp_path)
    one_shot = MultiPortfolioRetriever(index, None, FusionReranker(), settings).run(QUESTION, top_n=7)
    settings.retrieve.rounds = 2
    result = MultiPortfolioRetriever(index, None, FusionReranker(), settings).run(QUESTION, top_n=7)
    first = [c.doc_id for c in one_shot.ranked]
    assert "snow" not in first[:KEEP_AHEAD]
    ranked = [c.doc_id for c in result.ranked]
    assert ranked[:KEEP_AHEAD] == first[:KEEP_AHEAD] and "snow" in ranked
    [step] = result.rounds
    assert step.by == "names" and "Hank Snow" in step.gap.keywords and not result.llm.get("round2", {}).get("calls")
    snow = next(c for c in result.ranked if c.doc_id == "snow")
    assert "N2" in snow.portfolios and "bridge" in snow.signals
    assert result.to_dict()["rounds"][0]["by"] == "names" and result.ranked_against == [QUESTION]


def test_only_a_question_that_names_something_runs_the_round() -> None:
    assert follows_a_name(QUESTION)  # "Hello Love"
    assert follows_a_name("Hank Snow recorded which album in 1974?")  # a name of two words may open it
    # General claims (SciFact's): the capitalised first word, abbreviations and numbers name nothing.
    assert not follows_a_name("Folic acid supplementation lowers homocysteine levels.")
    assert not follows_a_name("10% of sudden infant death syndrome (SIDS) deaths happen in newborns.")
    assert not follows_a_name("What is the continental limit of the continent with the lowest average temperature?")


def test_a_question_naming_nothing_stops_after_round_one(index: LexicalIndex, tmp_path: Path) -> None:
    settings = Settings(home=tmp_path)
    settings.retrieve.rounds = 2
    result = MultiPortfolioRetriever(index, None, FusionReranker(), settings).run("where did the performer die?", top_n=7)
    assert result.rounds == [] and result.stopped == "the question names nothing to follow: one round"


def test_a_question_in_another_language_follows_the_names_of_its_translation(index: LexicalIndex, tmp_path: Path) -> None:
    from navicite.llm.scripted import ScriptedLLM

    korean = "헬로 러브를 부른 가수는 어디에서 죽었나요?"  # "Hello Love" in Hangul: no name the English passages write
    assert not follows_a_name(korean)
    analysis = {"primary": [{"term": "헬로 러브", "synonyms": []}, {"term": "가수", "synonyms": []}], "expanded": []}
    translation = {"question": QUESTION, "primary": ["Hello Love", "performer"], "expanded": ["died"]}
    settings = Settings(home=tmp_path)
    settings.retrieve.analysis = "llm"
    settings.retrieve.rounds = 2
    result = MultiPortfolioRetriever(index, ScriptedLLM([analysis, translation]), FusionReranker(), settings).run(korean, top_n=7)
    assert result.in_collection_language == QUESTION
    [step] = result.rounds
    assert "Hank Snow" in step.gap.keywords and step.queries[0].query.endswith(QUESTION)
    assert "snow" in [c.doc_id for c in result.ranked]
