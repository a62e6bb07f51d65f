"""Section structure: PDF outlines, numbered headings, Markdown and HTML headings, section paths."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from navicite.documents import Document
from navicite.ingest.pdf import extract_outline, load_pdf
from navicite.text.sections import (
    OutlineEntry,
    line_headings,
    markdown_sections,
    numbered_headings,
    outline_sections,
    plain_text_sections,
)
from navicite.ingest.text_files import load_html, load_markdown, load_text
from navicite.text.passages import section_path

PDF_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "pdf"
SHARED_PDFS = ("timedep.pdf", "compete.pdf", "concordance.pdf")


def only(items: list) -> Document:
    assert len(items) == 1 and isinstance(items[0], Document), items
    return items[0]


def words_at(doc: Document, start: int, n: int = 3) -> list[str]:
    return doc.text.split()[start : start + n]


# ---------------------------------------------------------------- PDF outline


def test_outline_sections_point_at_their_titles(tmp_path: Path, write_outlined_pdf: Callable[..., Path]) -> None:
    filler = "Plain words fill this line of the page."
    pages = [
        ["Reef Survey", filler, "1 Introduction", "Why reefs matter to us.", filler],
        [filler, "2 Methods", "How we counted.", "2.1 Transects", "Lines along the reef.", filler],
        [filler, filler, "Closing words without a heading."],
    ]
    outline = [("Introduction", 1, 0), ("Methods", 1, 1), ("Transects", 2, 1), ("Appendix never printed", 1, 2)]
    path = write_outlined_pdf(tmp_path / "outlined.pdf", pages, outline)
    assert extract_outline(path) == [OutlineEntry("Introduction", 1, 0), OutlineEntry("Methods", 1, 1),
                                     OutlineEntry("Transects", 2, 1), OutlineEntry("Appendix never printed", 1, 2)]
    doc = only(list(load_pdf(path)))
    sections = doc.metadata["sections"]
    assert doc.metadata["sections_from"] == "outline"
    assert [(s["title"], s["level"]) for s in sections] == [("Introduction", 1), ("Methods", 1), ("Transects", 2),
                                                            ("Appendix never printed", 1)]
    # The printed section number before the title is part of the heading line.
    assert words_at(doc, sections[0]["start"]) == ["1", "Introduction", "Why"]
    assert words_at(doc, sections[1]["start"]) == ["2", "Methods", "How"]
    assert words_at(doc, sections[2]["start"]) == ["2.1", "Transects", "Lines"]
    # A title not on its page falls back to the page start.
    assert sections[3]["start"] == doc.metadata["page_starts"][2]
    lines_start = doc.text.split().index("Lines")
    assert section_path(sections, lines_start) == ["Methods", "Transects"]


def test_outline_entries_without_a_page_are_dropped() -> None:
    text = "one two three\nHeading here\nfour five"
    assert outline_sections([OutlineEntry("Heading here", 1, None), OutlineEntry("Heading here", 1, 0)], text, [0]) == [
        {"start": 3, "level": 1, "title": "Heading here"}
    ]


@pytest.mark.parametrize("name", SHARED_PDFS)
def test_shared_pdfs_have_no_outline_and_get_numbered_sections(name: str) -> None:
    path = PDF_DIR / name
    if not path.exists():
        pytest.skip("shared PDFs (../shared/data/pdf) not present")
    assert extract_outline(path) == []
    doc = only(list(load_pdf(path)))
    sections = doc.metadata["sections"]
    assert doc.metadata["sections_from"] == "headings"
    assert len(sections) >= 10
    assert [s["start"] for s in sections] == sorted(s["start"] for s in sections)
    for s in sections:
        assert " ".join(words_at(doc, s["start"], len(s["title"].split()))) == s["title"]


def test_numbered_sections_of_the_real_timedep_vignette() -> None:
    path = PDF_DIR / "timedep.pdf"
    if not path.exists():
        pytest.skip("shared PDFs (../shared/data/pdf) not present")
    doc = only(list(load_pdf(path)))
    sections = doc.metadata["sections"]
    titles = [s["title"] for s in sections]
    assert titles[:4] == ["1 Introduction", "2 Time dependent covariates", "3 Building time-dependent sets with tmerge",
                          "3.1 The function"]
    assert "3.3 Stanford heart transplant" in titles and "3.6.1 REP" in titles
    levels = {s["title"]: s["level"] for s in sections}
    assert (levels["2 Time dependent covariates"], levels["3.3 Stanford heart transplant"], levels["3.6.1 REP"]) == (1, 2, 3)
    # Numbered R output ("1 NA NA NA NA") and numbered list items ("1. One subject died ...") are not headings.
    assert not any("NA NA" in t or t.startswith("1. ") for t in titles)
    stanford = next(s for s in sections if s["title"].startswith("3.3"))
    assert section_path(sections, stanford["start"] + 50) == ["3 Building time-dependent sets with tmerge",
                                                              "3.3 Stanford heart transplant"]


# ---------------------------------------------------------------- numbered headings in text


def body(n: int) -> str:
    return " ".join(["word"] * n)


def test_numbered_headings_levels_and_offsets() -> None:
    text = f"Title line\n1 Overview\n{body(40)}\n2 Methods\n2.1 Sampling\n{body(40)}\n2.2 Analysis\n{body(40)}\n3 Results\n{body(40)}"
    sections = numbered_headings(text)
    assert [(s["title"], s["level"]) for s in sections] == [
        ("1 Overview", 1), ("2 Methods", 1), ("2.1 Sampling", 2), ("2.2 Analysis", 2), ("3 Results", 1)]
    words = text.split()
    assert all(words[s["start"]] == s["title"].split()[0] for s in sections)


def test_implausible_numbered_lines_give_no_sections() -> None:
    # Too dense: five headings in 100 words.
    assert numbered_headings("\n".join(f"{n} Part {n}\n{body(15)}" for n in range(1, 6))) == []
    # Too few.
    assert numbered_headings(f"1 Overview\n{body(40)}\n2 Methods\n{body(40)}") == []
    # A numbered list: items too close together to be sections.
    assert numbered_headings("Steps:\n1 Draw a box\n2 Think through the rates\n3 Build a data set\n4 Fit the data\n") == []
    # Table rows and sentences.
    rows = "\n".join(f"{i} NA 60 1.2" for i in range(1, 6))
    sentences = "\n".join(f"{i}. The attempt number {i} was made and it failed badly, as it did before." for i in range(1, 5))
    assert numbered_headings(f"{rows}\n{body(100)}\n{sentences}\n{body(100)}") == []
    # Numbers out of order.
    assert numbered_headings(f"3 Gamma\n{body(40)}\n1 Alpha\n{body(40)}\n5 Epsilon\n{body(40)}") == []


def test_numbered_headings_skip_a_table_of_contents() -> None:
    toc = "Contents\n1 Overview\n2 Methods\n3 Results\n"
    text = toc + f"1 Overview\n{body(40)}\n2 Methods\n{body(40)}\n3 Results\n{body(40)}"
    sections = numbered_headings(text)
    assert [s["title"] for s in sections] == ["1 Overview", "2 Methods", "3 Results"]
    assert sections[0]["start"] == len(toc.split())


def test_chapter_headings_are_numbered_level_one_headings() -> None:
    text = (f"Chapter 1\nIntroduction\n1.1 History\n{body(40)}\n1.2 Data\n{body(40)}\n"
            f"Chapter 2: Survival curves\n{body(40)}\n2.1 Estimates\n{body(40)}")
    sections = numbered_headings(text)
    assert [(s["title"], s["level"]) for s in sections] == [
        ("Chapter 1: Introduction", 1), ("1.1 History", 2), ("1.2 Data", 2), ("Chapter 2: Survival curves", 1),
        ("2.1 Estimates", 2)]
    assert text.split()[sections[0]["start"]] == "Chapter"
    # "Chapter 3" followed by a sentence is no heading.
    assert numbered_headings(f"Chapter 3\nis where we {body(40)}\n1 A b\n") == []


def test_a_table_of_contents_with_page_numbers_gives_no_headings() -> None:
    # A book's contents list its chapters with page numbers; the body heads them "Chapter n".
    toc = "Contents\n1 Introduction 3\n1.1 History . . . . . 3\n2 Survival curves 9\n3 Cox model 43\n\n4 Other models 75\n"
    text = toc + "".join(f"Chapter {n}\nPart {n} title\n{n}.1 First\n{body(40)}\n{n}.2 Second\n{body(40)}\n" for n in range(1, 5))
    titles = [s["title"] for s in numbered_headings(text)]
    assert titles[:3] == ["Chapter 1: Part 1 title", "1.1 First", "1.2 Second"] and len(titles) == 12
    assert not any(t.endswith(("3", "9", "43", "75")) for t in titles)


# ---------------------------------------------------------------- section_path


def test_section_path() -> None:
    sections = [
        {"start": 0, "level": 1, "title": "A"},
        {"start": 10, "level": 2, "title": "A.1"},
        {"start": 20, "level": 3, "title": "A.1.a"},
        {"start": 30, "level": 2, "title": "A.2"},
        {"start": 40, "level": 1, "title": "B"},
        {"start": 50, "level": 3, "title": "B..x"},
    ]
    assert section_path(sections, 5) == ["A"]
    assert section_path(sections, 25) == ["A", "A.1", "A.1.a"]
    assert section_path(sections, 30) == ["A", "A.2"]
    assert section_path(sections, 45) == ["B"]
    assert section_path(sections, 55) == ["B", "B..x"]
    assert section_path([{"start": 5, "level": 1, "title": "Late"}], 2) == []
    assert section_path([], 2) == []


# ---------------------------------------------------------------- Markdown and HTML


def test_markdown_sections_from_the_loader(tmp_path: Path) -> None:
    path = tmp_path / "notes.md"
    path.write_text(
        "---\ntitle: Field notes\n---\nIntro words here.\n\n# Tide pools\n\nAnemones live here.\n\n"
        "```python\n# not a heading\nx = 1\n```\n\nCrabs\n-----\n\nThey scuttle.\n\n### Deep water ###\nDark.\n",
        encoding="utf-8",
    )
    doc = only(list(load_markdown(path)))
    sections = doc.metadata["sections"]
    assert [(s["title"], s["level"]) for s in sections] == [("Tide pools", 1), ("Crabs", 2), ("Deep water", 3)]
    assert words_at(doc, sections[0]["start"]) == ["#", "Tide", "pools"]
    assert words_at(doc, sections[1]["start"], 1) == ["Crabs"]
    assert words_at(doc, sections[2]["start"]) == ["###", "Deep", "water"]
    assert section_path(sections, doc.text.split().index("Dark.")) == ["Tide pools", "Crabs", "Deep water"]
    assert section_path(sections, 0) == []


def test_markdown_without_headings_has_no_sections(tmp_path: Path) -> None:
    path = tmp_path / "plain.md"
    path.write_text("Just words.\n\n- a list\n---\n", encoding="utf-8")
    assert "sections" not in only(list(load_markdown(path))).metadata
    assert markdown_sections("text\n\n#hashtag is not a heading\n") == []


def test_html_sections_point_into_the_main_text(tmp_path: Path) -> None:
    path = tmp_path / "page.html"
    path.write_text(
        "<html><head><title>Pools</title></head><body><nav><h2>Menu</h2></nav>"
        "<main><h1>Rock pools</h1><p>Anemones &amp; crabs live in <b>rock</b> pools.</p>"
        "<h2>Starfish <i>facts</i></h2><ul><li>Five arms</li></ul><h3>Deep</h3><p>Dark water.</p></main>"
        "<h2>Outside main</h2></body></html>",
        encoding="utf-8",
    )
    doc = only(list(load_html(path)))
    sections = doc.metadata["sections"]
    assert [(s["title"], s["level"]) for s in sections] == [("Rock pools", 1), ("Starfish facts", 2), ("Deep", 3)]
    assert words_at(doc, sections[1]["start"], 2) == ["Starfish", "facts"]
    assert words_at(doc, sections[2]["start"], 1) == ["Deep"]
    assert section_path(sections, doc.text.split().index("arms")) == ["Rock pools", "Starfish facts"]


def test_html_without_main_takes_every_visible_heading(tmp_path: Path) -> None:
    path = tmp_path / "bare.html"
    path.write_text("<body><header><h1>Site</h1></header><h1>Heading One</h1><p>Para one.</p><h2>Two</h2><div>Para two.</div></body>",
                    encoding="utf-8")
    doc = only(list(load_html(path)))
    assert doc.metadata["sections"] == [{"start": 0, "level": 1, "title": "Heading One"},
                                        {"start": 4, "level": 2, "title": "Two"}]


# A paper saved as plain text with one paragraph per line, as Qasper's papers come in L-Eval:
# unnumbered heading lines, sub-sections flattened to "Parent ::: Child".
PARAGRAPH = ("We describe the corpus of annotated messages and the way the labels were checked by two "
             "readers who worked apart, then compared their choices and settled every disagreement. ")
PAPER = "\n".join([
    "Introduction", PARAGRAPH * 2,
    "Related Work ::: Transfer learning", PARAGRAPH,
    "Related Work ::: Hybrid models", PARAGRAPH,
    "Model Architecture", PARAGRAPH, "Model Architecture ::: Loss function", PARAGRAPH,
    "Conclusion", PARAGRAPH,
])


def test_line_headings_of_a_paragraph_per_line_paper() -> None:
    found = [(s["level"], s["title"]) for s in line_headings(PAPER)]
    # "Related Work" heads no line of its own: its first sub-section opens it.
    assert found == [(1, "Introduction"), (1, "Related Work"), (2, "Transfer learning"), (2, "Hybrid models"),
                     (1, "Model Architecture"), (2, "Loss function"), (1, "Conclusion")]
    doc = Document(id="paper", title="Paper", text=PAPER, metadata={"sections": line_headings(PAPER)})
    offset = doc.text.split().index("Hybrid") + 3
    assert section_path(doc.metadata["sections"], offset) == ["Related Work", "Hybrid models"]


def test_line_headings_leave_hard_wrapped_text_and_formula_lines_alone() -> None:
    wrapped = "\n".join(["Chapter One", "It was late when Ellen came back to the house on the hill,",
                          "Carrying the letter she had found under the door of the old",
                          "Mill. Nobody had seen her leave.", "The End"] * 20)
    assert line_headings(wrapped) == []
    proof = "\n".join(["Then we have", PARAGRAPH * 2, "Thus", PARAGRAPH * 2, "Since x ≤ y", PARAGRAPH * 2,
                        "Table S1: Units per layer", PARAGRAPH * 2, "Proof. See Appendix D", PARAGRAPH * 2])
    assert line_headings(proof) == []


def test_plain_text_prefers_numbered_headings() -> None:
    numbered = "\n".join(["1 Introduction", PARAGRAPH, "2 Methods", PARAGRAPH, "Data sources", PARAGRAPH,
                           "3 Results", PARAGRAPH, "Summary", PARAGRAPH])
    assert [s["title"] for s in plain_text_sections(numbered)] == ["1 Introduction", "2 Methods", "3 Results"]
    assert [s["title"] for s in plain_text_sections(PAPER)][:2] == ["Introduction", "Related Work"]


ORG = """# doc/DETAILS                         -*- org -*-
#+TITLE: Internal notes
* Format of the listings
Some words about the listing format, enough of them to read as a paragraph.
** Description of the fields
*** Field 2 - Validity
  - w :: The key is well known.
#+begin_example
* not a heading inside an example
#+end_example
* Layout of the database
The database is built of records of 40 bytes each.
"""


def test_org_text_gets_its_star_headings_as_sections(tmp_path: Path) -> None:
    found = [(s["level"], s["title"]) for s in plain_text_sections(ORG)]
    assert found == [(1, "Format of the listings"), (2, "Description of the fields"), (3, "Field 2 - Validity"),
                     (1, "Layout of the database")]
    path = tmp_path / "DETAILS.txt"
    path.write_text(ORG, encoding="utf-8")
    doc = only(list(load_text(path)))
    words = doc.text.split()
    assert section_path(doc.metadata["sections"], words.index("well")) == [
        "Format of the listings", "Description of the fields", "Field 2 - Validity"]
    assert section_path(doc.metadata["sections"], words.index("40")) == ["Layout of the database"]


def test_star_lists_of_plain_text_are_not_org_headings() -> None:
    bullets = "\n".join(["Shopping list for the week, written down here.", "* apples", "* pears", "* plums", "Done."])
    assert plain_text_sections(bullets) == []


def test_text_files_carry_their_heading_lines(tmp_path: Path) -> None:
    path = tmp_path / "paper.txt"
    path.write_text(PAPER + "\n", encoding="utf-8")
    doc = only(list(load_text(path)))
    titles = [s["title"] for s in doc.metadata["sections"]]
    assert titles[:3] == ["Introduction", "Related Work", "Transfer learning"]
    assert words_at(doc, doc.metadata["sections"][4]["start"], 2) == ["Model", "Architecture"]


LEVAL_QASPER = PDF_DIR.parent / "leval" / "scientific_qa.jsonl"


@pytest.mark.skipif(not LEVAL_QASPER.exists(), reason="shared L-Eval data not present")
def test_every_leval_qasper_paper_gets_a_usable_structure() -> None:
    from navicite.eval.datasets import load_dataset
    from navicite.navigate.structure import structure_of

    papers = load_dataset(f"leval:{LEVAL_QASPER}").corpus
    assert papers and all(structure_of(d).usable for d in papers)
