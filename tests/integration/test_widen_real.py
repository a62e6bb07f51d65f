"""Mode ``auto`` with the real embedded model: the best passage widened to its section, then a cited answer."""

from __future__ import annotations

from pathlib import Path

from navicite.collection import CollectionStore
from navicite.config import load_settings
from navicite.documents import Document
from navicite.llm.base import LLM
from navicite.pipeline import Engine
from navicite.text.passages import cut_passages
from navicite.text.sections import markdown_sections

TREATMENT = ("Farmers added lime to the clay soil in 1930 to make the fields sweeter for barley. "
             "The lime came by rail from the quarry at Ribble and was spread in October. "
             "It took three weeks to spread because only two horse carts could be spared from the harvest.")
TEXT = "\n".join([
    "# Soil\nThe soil of the Ouse farm is clay rich in iron and drains slowly after rain.",
    f"# Treatment\n{TREATMENT}",
    "# Harvest\nBarley was cut in August and stored in the tithe barn by the church.",
])


def test_auto_widens_to_the_section_and_the_real_model_answers_from_it(real_llm: LLM, tmp_path: Path) -> None:
    book = Document(id="book", title="Farm book", text=TEXT, metadata={"sections": markdown_sections(TEXT)})
    settings = load_settings(tmp_path, ["ingest.passage_words=20", "generate.verifier=lexical", "retrieve.analysis=statistical",
                                        "rerank.backend=none", "llm.max_tokens=128"])
    CollectionStore(settings).upsert([book])
    answer = Engine(settings, llm=real_llm).ask("How long did spreading the lime take?", "auto")
    [widen] = [t for t in answer.trace if t.name == "widen"]
    assert widen.outputs["choice"] == "section" and widen.outputs["section"] == ["Treatment"], widen.outputs
    treatment = {p.id for p in cut_passages(book, 20) if p.section == ("Treatment",)}
    assert len(treatment) >= 2
    assert answer.citations and {c.passage_id for c in answer.citations} <= treatment, answer.answer
    assert "three weeks" in answer.answer.lower() or "3 weeks" in answer.answer.lower(), answer.answer
