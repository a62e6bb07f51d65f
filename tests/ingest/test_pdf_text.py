"""Repairing extracted PDF text, on the real defects of the shared R ``survival`` vignettes.

Those PDFs are LaTeX output with T1-encoded fonts: the extractor gives their ligatures as
raw glyph codes ("Coe\\x1ecients"), marks line-end hyphens with U+FFFE and ends every
page with its number. Tests that need them skip when ``../shared/data/pdf`` is absent.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from navicite.collection import CollectionStore
from navicite.config import load_settings
from navicite.index import create, free_text
from navicite.ingest.pdf import extract_pages, load_pdf
from navicite.ingest.pdf_text import (
    decode_glyph_codes,
    join_decision,
    join_hyphenated,
    join_pages,
    learn_glyph_codes,
    ligature_repairs,
    normalise_ligatures,
    repair_pages,
    restore_ligature,
    drop_figure_text,
    strip_page_furniture,
)

PDF_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "pdf"
TIMEDEP = PDF_DIR / "timedep.pdf"
CONTROL = {c: None for c in [*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20)]}

needs_pdfs = pytest.mark.skipif(not TIMEDEP.exists(), reason="shared PDFs (../shared/data/pdf) not present")


@pytest.fixture(scope="module")
def timedep_raw() -> list[str]:
    if not TIMEDEP.exists():
        pytest.skip("shared PDFs (../shared/data/pdf) not present")
    return extract_pages(TIMEDEP)


@pytest.fixture(scope="module")
def timedep_fixed(timedep_raw: list[str]) -> list[str]:
    return repair_pages(timedep_raw)


# ---------------------------------------------------------------- ligatures


def test_presentation_ligatures_become_letters_and_math_is_left_alone() -> None:
    assert normalise_ligatures("\ufb01xed \ufb00ect \ufb02ow \ufb03cient \ufb04e") == "fixed ffect flow fficient ffle"
    # NFKC on the whole text would turn these into "x2", "1⁄2" and "R".
    assert normalise_ligatures("x² ½ ℝ µ") == "x² ½ ℝ µ"


def test_glyph_codes_of_the_real_pdf_are_learned_as_t1_ligatures(timedep_raw: list[str]) -> None:
    assert "Coe\x1ecients in the Cox Model" in timedep_raw[0]
    assert "3 di\x1berent but" in timedep_raw[0]
    codes = learn_glyph_codes(timedep_raw)
    assert {c: codes[c] for c in "\x1b\x1c\x1d\x1e"} == {"\x1b": "ff", "\x1c": "fi", "\x1d": "fl", "\x1e": "ffi"}
    # Once the ligatures match T1, its quotation marks are read too: “wins” on page 1.
    assert decode_glyph_codes("subject \x10wins\x11 the", codes) == "subject \u201cwins\u201d the"


def test_real_first_page_reads_cleanly(timedep_fixed: list[str]) -> None:
    page = timedep_fixed[0]
    assert page.startswith("Using Time Dependent Covariates and Time Dependent\nCoefficients in the Cox Model")
    assert "This vignette covers 3 different but interrelated concepts:" in page
    assert "the most common mistakes." in page
    assert "decide which subject \u201cwins\u201d the event" in page
    # The list bullets came as a stray control code: gone, with their space.
    assert "\nAn introduction to time dependent covariates" in page
    assert not any(chr(c) in page for c in CONTROL)


def test_dropped_ligatures_are_restored_in_the_real_text(timedep_raw: list[str]) -> None:
    # Extractors that drop unmapped glyphs deliver the same pages without the codes.
    dropped = [page.translate(CONTROL) for page in timedep_raw]
    assert "Coecients in the Cox Model" in dropped[0] and "3 dierent but" in dropped[0]
    fixed = repair_pages(dropped)
    assert "Coefficients in the Cox Model" in fixed[0]
    assert "3 different but" in fixed[0]
    assert "Time dependent coefficients." in fixed[0]
    text = "\n".join(fixed)
    for broken in ("Coecients", "dierent", " eect", "signicant"):
        assert broken not in text


def test_single_word_repair_keeps_case_and_refuses_real_words() -> None:
    assert restore_ligature("Coecients") == "Coefficients"
    assert restore_ligature("dierent") == "different"
    assert restore_ligature("rst") == "first"
    assert restore_ligature("eect") == "effect"
    assert restore_ligature("EECT") == "EFFECT"
    for word in ("awed", "are", "ne", "covariate", "the", "coxph", "eBay", "tmerge"):
        assert restore_ligature(word) == word


def test_documents_that_spell_their_ligatures_keep_rare_real_words() -> None:
    words = "The prole of the oer was awed by the first effect in the field".split()
    assert ligature_repairs(words) == {}
    assert ligature_repairs("the Coecients are dierent and the eect was rst seen".split()) == {
        "Coecients": "Coefficients", "dierent": "different", "eect": "effect", "rst": "first",
    }


# ---------------------------------------------------------------- hyphens


def test_real_line_end_hyphens(timedep_raw: list[str], timedep_fixed: list[str]) -> None:
    assert "common mis\ufffetakes." in timedep_raw[0]
    text = "\n".join(timedep_fixed)
    assert "mistakes." in text and "mis-takes" not in text
    assert "observation" in text and "ob-servation" not in text
    assert "rewritten" in text
    # A compound broken at its own hyphen stays a compound.
    assert "placebo-controlled" in text and "placebocontrolled" not in text


def test_hyphen_decisions() -> None:
    assert join_decision("func", "tion") == "function"
    assert join_decision("co", "variate") == "covariate"
    assert join_decision("time", "dependent") == "time-dependent"
    assert join_decision("follow", "up") == "follow-up"
    assert join_decision("Kaplan", "Meier") == "Kaplan-Meier"
    # The document's own spelling decides first.
    assert join_decision("base", "line", seen={"baseline": 3}) == "baseline"
    assert join_decision("work", "flow", seen={"work-flow": 2}) == "work-flow"


def test_join_hyphenated_keeps_the_line_structure() -> None:
    text = "a func-\ntion. Next line\nand time-\ndependent\nrest"
    assert join_hyphenated(text) == "a function.\nNext line\nand time-dependent\nrest"
    assert join_hyphenated("the mis\ufffetakes were") == "the mistakes\nwere"


# ---------------------------------------------------------------- page furniture


def test_real_page_numbers_are_removed(timedep_raw: list[str], timedep_fixed: list[str]) -> None:
    for number, (raw, fixed) in enumerate(zip(timedep_raw[:5], timedep_fixed[:5]), start=1):
        assert raw.rstrip().splitlines()[-1].strip() == str(number)
        assert fixed.splitlines()[-1].strip() != str(number)


def test_running_header_and_footer_removed_but_content_kept() -> None:
    bodies = ["Reef fish counts rose.", "Coral cover fell.", "Algae spread fast.", "Divers logged it all."]
    pages = [f"Journal of Tests, vol. 7, p. {n + 10}\nBody text {n}.\n{body}\nPage {n} of 4\nConfidential"
             for n, body in enumerate(bodies, start=1)]
    pages[0] = "A Title Page\nBody text 1.\nReef fish counts rose.\nPage 1 of 4\nConfidential"
    out = strip_page_furniture(pages)
    assert out[0].split("\n")[0] == "A Title Page"
    for page, body in zip(out, bodies):
        lines = [line for line in page.split("\n") if line]
        assert lines[-1] == body
        assert "Journal of Tests" not in page and "Confidential" not in page
    # Lines that repeat only with digits ignored are taken at the very edge, not behind it.
    assert all(page.split("\n")[1].startswith("Body text") for page in out)
    # A lone number that does not count pages (a table's last cell) stays.
    table = ["text\n1 2 3\n12", "text\n4 5 6\n7"]
    assert strip_page_furniture(table) == table


def test_header_and_footer_of_a_written_pdf(tmp_path: Path, write_pdf: Callable[..., Path]) -> None:
    pages = [["Proceedings of Nowhere 2024", f"Finding number {n} about coral.", f"Details {n} of the study.", str(n)]
             for n in range(1, 5)]
    [doc] = list(load_pdf(write_pdf(tmp_path / "running.pdf", pages)))
    assert "Proceedings of Nowhere" not in doc.text
    assert doc.text.split()[doc.metadata["page_starts"][2]] == "Finding"
    assert [line for line in doc.text.splitlines() if line.strip().isdigit()] == []


def test_two_sided_running_headers_are_removed(tmp_path: Path, write_pdf: Callable[..., Path]) -> None:
    # A journal layout: a title page, then the authors over odd pages and the title over even ones.
    header = {0: "{n} Counting Reef Fish in R", 1: "Ann Author, Ben Writer {n}"}
    pages = [["Counting Reef Fish in R", "Ann Author and Ben Writer", "Abstract words about the paper."]]
    pages += [[header[n % 2].format(n=n), f"Finding number {n} about coral.", f"Details {n} of the study."] for n in range(2, 10)]
    [doc] = list(load_pdf(write_pdf(tmp_path / "two-sided.pdf", pages)))
    assert "Ben Writer" not in doc.text.split("Abstract")[1]
    assert doc.text.count("Counting Reef Fish in R") == 1
    assert doc.text.split()[doc.metadata["page_starts"][2]] == "Finding"


def test_figure_labels_go_but_code_and_printed_tables_stay() -> None:
    # As pdfium extracts a results page of an R paper: a chart's tick values and axis titles,
    # its caption, the code that drew it, and a printed table of R output.
    chart = ["Empirical coverage", "0.90", "0.92", "0.94", "10 50 100 150 200 250", "gaussian", "CL−0", "CL−1"]
    code = ["R> se(list(", '+ "sandwich" = vcovPL(p_lm, cluster = ~ firm + year, adjust = FALSE),', '+ "plm" = vcovSCC(p_plm)', "+ ))"]
    table = ["sandwich plm", "(Intercept) 0.024357 0.024357", "x 0.028163 0.028163"]
    prose = ["The horizontal reference line indicates the nominal coverage of 0.95 in every panel."]
    page = "\n".join(prose + chart + ["Figure 4: Experiment IV."] + code + table + prose)
    kept = drop_figure_text(page).split("\n")
    assert not set(chart) & set(kept)
    assert kept == prose + ["Figure 4: Experiment IV."] + code + table + prose
    # A short list or a table of a few rows is not a figure; nor is an address block.
    few = "\n".join(["Level 1", "Level 2", "Level 3", "Level 4", "Level 5"])
    assert drop_figure_text(few) == few
    address = "\n".join(["Affiliation:", "Ann Author", "Department of Reefs", "Coral University", "Sea", "E-mail: ann@reef.org"])
    assert drop_figure_text(address) == address


def test_written_pdf_loses_its_figure_labels_not_its_title_block(tmp_path: Path, write_pdf: Callable[..., Path]) -> None:
    title = ["Counting Reef Fish", "Ann Author", "Reef University", "Ben Writer", "Coral Institute", "Abstract",
             "We count fish on reefs with a new method in R."]
    figure = ["Fish per dive", "0", "50", "100", "150", "north", "south", "Figure 1: Fish counts by reef side."]
    [doc] = list(load_pdf(write_pdf(tmp_path / "figure.pdf", [title, ["Most dives saw 120 fish or more.", *figure]])))
    words = doc.text.split()
    assert "Reef University" in doc.text and "Abstract" in words
    assert "north" not in words and "150" not in words and "Figure" in words and "120" in words
    assert words[doc.metadata["page_starts"][1]] == "Most"


# ---------------------------------------------------------------- offsets and the whole loader


def test_page_starts_point_into_the_repaired_text(timedep_fixed: list[str]) -> None:
    text, starts = join_pages(timedep_fixed)
    words = text.split()
    assert len(starts) == len(timedep_fixed) and starts[0] == 0
    for page, start in zip(timedep_fixed, starts):
        assert words[start : start + len(page.split())] == page.split()


def test_load_pdf_keeps_metadata_and_page_starts() -> None:
    if not TIMEDEP.exists():
        pytest.skip("shared PDFs not present")
    [doc] = list(load_pdf(TIMEDEP))
    meta = doc.metadata
    assert meta["source"] == str(TIMEDEP) and meta["format"] == "pdf" and meta["pages"] == 30
    words = doc.text.split()
    assert words[meta["page_starts"][1] : meta["page_starts"][1] + 4] == ["A", "simple", "way", "to"]
    assert doc.title.startswith("Using Time Dependent Covariates")


def test_repair_is_fast_for_a_hundred_pages(timedep_raw: list[str]) -> None:
    pages = (timedep_raw * 4)[:100]
    repair_pages(timedep_raw[:2])  # the word list loads once per process
    start = time.perf_counter()
    repair_pages(pages)
    assert time.perf_counter() - start < 10.0  # about 1 s on a loaded 2-core machine


@needs_pdfs
def test_ingested_pdf_is_found_by_a_word_only_the_repair_makes_findable(tmp_path: Path) -> None:
    settings = load_settings(home=tmp_path)
    summary = CollectionStore(settings).ingest([TIMEDEP])
    assert summary.ok and summary.documents == 1
    index = create(settings)
    # Raw, the word reads "coe\x1ecients": the index would see "coe" and "cients".
    hits = index.search(free_text("coefficients"), k=5)
    assert hits and hits[0].title.startswith("Using Time Dependent Covariates")
    assert index.search(free_text("mistakes"), k=5)
