"""Passages: sentence-aligned, sized, never across a heading, with pages and section paths."""

from __future__ import annotations

from navicite.documents import Document, Passage
from navicite.text.passages import cut_passages, page_text, passage_link, section_path


def _sentences(n: int, words: int = 10, start: int = 0) -> str:
    return " ".join(f"S{start + i} " + " ".join(f"w{start + i}x{j}" for j in range(words - 2)) + f" end{start + i}." for i in range(n))


def test_a_short_record_is_one_passage_with_the_documents_id() -> None:
    doc = Document(id="r1", title="T", abstract="Folic acid lowers homocysteine.", text="More text here.")
    [passage] = cut_passages(doc, words=100)
    assert passage.id == "r1" and passage.whole
    assert passage.text == "Folic acid lowers homocysteine.\nMore text here."


def test_passages_end_at_sentence_ends_and_cover_every_word() -> None:
    text = _sentences(40)  # 400 words in sentences of 10
    passages = cut_passages(Document(id="d", text=text), words=50)
    assert all(p.text.endswith(".") for p in passages)
    assert all(50 <= p.end - p.start <= 100 for p in passages[:-1])
    assert [w for p in passages for w in p.text.split()] == text.split()
    assert passages[0].id == "d#p0" and passages[1].start == passages[0].end


def test_a_section_heading_starts_a_new_passage_and_names_the_section() -> None:
    first, second = _sentences(8), _sentences(8, start=100)
    text = f"1 Introduction {first} 2 Methods {second}"
    heading = len(f"1 Introduction {first}".split())
    sections = [{"start": 0, "level": 1, "title": "1 Introduction"}, {"start": heading, "level": 1, "title": "2 Methods"},
                {"start": heading + 40, "level": 2, "title": "2.1 Data"}]
    passages = cut_passages(Document(id="d", text=text, metadata={"sections": sections}), words=30)
    assert heading in {p.start for p in passages}
    methods = next(p for p in passages if p.start == heading)
    assert methods.section == ("2 Methods",)
    assert section_path(sections, heading + 45) == ["2 Methods", "2.1 Data"]


def test_pages_come_from_page_starts() -> None:
    text = _sentences(30)
    doc = Document(id="d", text=text, metadata={"page_starts": [0, 100, 200]})
    passages = cut_passages(doc, words=60)
    assert passages[0].pages == (1,)
    assert any(p.pages == (1, 2) for p in passages) or any(p.start == 100 for p in passages)
    assert passages[-1].pages[-1] == 3
    assert page_text(doc, 2).split()[0] == text.split()[100]


def test_a_passage_round_trips_through_its_index_entry() -> None:
    parent = Document(id="d", title="Paper", link="file:///p.pdf")
    passage = Passage("d", 3, "Some text.", 10, 12, "text", (4, 5), ("2 Methods",))
    entry = passage.as_document(parent)
    assert entry.id == "d#p3" and entry.title == "Paper" and entry.metadata["doc_id"] == "d"
    assert Passage.from_document(entry) == passage


def test_a_passage_links_to_its_sections_anchor() -> None:
    first, second = _sentences(8), _sentences(8, start=100)
    text = f"Intro\n{first}\nQuoting\n{second}"
    sections = [{"start": 0, "level": 1, "title": "Intro"},
                {"start": len(f"Intro\n{first}".split()), "level": 2, "title": "Quoting", "anchor": "Quoting-1"}]
    doc = Document(id="m", text=text, link="file:///docs/manual.html", metadata={"sections": sections})
    passages = cut_passages(doc, words=40)
    links = {p.section[-1]: passage_link(doc, p) for p in passages}
    assert links == {"Intro": "file:///docs/manual.html", "Quoting": "file:///docs/manual.html#Quoting-1"}
    pdf = Document(id="p", text=text, link="file:///docs/paper.pdf#page=2", metadata={"sections": sections})
    assert {passage_link(pdf, p) for p in cut_passages(pdf, words=40)} == {"file:///docs/paper.pdf#page=2"}


def test_a_long_table_is_cut_between_rows_not_inside_one() -> None:
    # Rows of printed R output: no sentence ends, seven words a row, so cuts come by size.
    rows = [f"x{r} 0.0{r}1 0.0{r}2 0.0{r}3 0.0{r}4 0.0{r}5 0.0{r}6" for r in range(60)]
    text = "\n".join(rows)
    passages = cut_passages(Document(id="t", text=text), words=50)
    assert len(passages) > 2
    for p in passages:
        assert all(line in rows for line in p.text.split("\n")), p.text[:80]
    assert [w for p in passages for w in p.text.split()] == text.split()
