from __future__ import annotations


from navicite.index.base import LexicalIndex
from navicite.llm import LLMUnavailableError
from navicite.llm.scripted import ScriptedLLM
from navicite.llm.jsonout import json_schema_of
from navicite.retrieve.expand import AnalysisReply, QueryAnalyzer
from navicite.retrieve.fallback import StatisticalAnalyzer

QUESTION = "Give me an overview: does vitamin D prevent hip fractures in elderly women?"

GOOD = {
    "primary": [
        {"term": "overview", "synonyms": []},
        {"term": "vitamin D", "synonyms": ["cholecalciferol", "Summary"]},
        {"term": "hip fracture", "synonyms": ["femoral neck fracture"]},
        {"term": "elderly women", "synonyms": []},
        {"term": "prevention", "synonyms": []},
        {"term": "supplementation", "synonyms": []},
        {"term": "falls", "synonyms": []},
    ],
    "expanded": ["bone mineral density", "osteoporosis", "calcium", "falls"],
}


def analyzer(llm, index: LexicalIndex) -> QueryAnalyzer:
    return QueryAnalyzer(llm, StatisticalAnalyzer(index), max_tokens=200)


def test_llm_path_trims_counts_and_drops_generic_words(small_index: LexicalIndex) -> None:
    llm = ScriptedLLM([GOOD])
    result = analyzer(llm, small_index).run(QUESTION)
    assert result.path == "llm" and result.fallback_reason is None
    assert [k.term for k in result.primary] == ["vitamin D", "hip fracture", "elderly women", "prevention", "supplementation"]
    assert result.primary[0].synonyms == ("cholecalciferol",)
    assert [k.term for k in result.expanded] == ["bone mineral density", "osteoporosis", "calcium"]
    assert all(k.synonyms == () and k.reason == "" for k in result.expanded)
    assert result.dropped == ["overview", "Summary"]
    assert result.language == "en"
    (call,) = llm.calls
    assert QUESTION in call.prompt and call.max_tokens == 200


def test_invalid_json_after_repair_takes_the_fallback(small_index: LexicalIndex) -> None:
    llm = ScriptedLLM(["keywords: vitamin D, fracture", '{"primary": "nope"}'])
    result = analyzer(llm, small_index).run(QUESTION)
    assert result.path == "fallback"
    assert "LLM analysis unusable" in (result.fallback_reason or "")
    assert len(llm.calls) == 2  # the answer and the layer's one repair
    assert "vitamin" in [k.term for k in result.primary]


def test_only_generic_primaries_take_the_fallback(small_index: LexicalIndex) -> None:
    reply = {"primary": [{"term": "summary"}, {"term": "요약"}], "expanded": []}
    result = analyzer(ScriptedLLM([reply]), small_index).run(QUESTION)
    assert result.path == "fallback"
    assert "generic" in (result.fallback_reason or "")


def test_unavailable_llm_and_no_llm_fall_back(small_index: LexicalIndex) -> None:
    down = analyzer(ScriptedLLM([LLMUnavailableError("server down")]), small_index).run(QUESTION)
    assert down.path == "fallback" and "server down" in (down.fallback_reason or "")
    none = analyzer(None, small_index).run(QUESTION)
    assert none.path == "fallback" and "no LLM" in (none.fallback_reason or "")


def test_schema_asks_only_for_what_the_portfolios_read() -> None:
    # Each field the model writes costs seconds on a CPU; language is detected in code,
    # and the portfolios read an expansion's term alone.
    schema = json_schema_of(AnalysisReply)
    assert set(schema["properties"]) == {"primary", "expanded"}
    assert schema["properties"]["expanded"]["items"]["type"] == "string"
    keyword = next(iter(schema["$defs"].values()))
    assert set(keyword["properties"]) == {"term", "synonyms"}


def test_older_reply_shape_still_validates(small_index: LexicalIndex) -> None:
    # A backend not held to the schema may answer in the shape the prompt used to ask for.
    old = {**GOOD, "language": "en", "expanded": [{"term": "osteoporosis", "synonyms": ["bone loss"], "reason": "disease"}]}
    result = analyzer(ScriptedLLM([old]), small_index).run(QUESTION)
    assert result.path == "llm" and [k.term for k in result.expanded] == ["osteoporosis"]
