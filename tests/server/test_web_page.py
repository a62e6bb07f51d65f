"""The web page in headless Chromium against a real ``navicite serve`` on a loopback port.

The server runs as a subprocess; for speed its model is the scripted one of
``tests/web_scripted_backend.py`` (a sentence copied from the first source, then one no source
states), and once the real embedded model (``test_real_model_answer_opens_at_the_cited_page``,
marked ``llm``). The page is driven as a person would: upload two of the shared PDFs, ask, hover
and click a citation, read the viewer, delete a document.

Needs Debian's ``chromium`` and ``chromium-driver`` (``.ci/run`` installs them); skipped only when
they are absent, or when the shared PDFs are not there.
"""

from __future__ import annotations

import json
import os
import re
import time
import unicodedata
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from navicite import Collection, Document

pytestmark = [pytest.mark.slow, pytest.mark.browser]

TESTS = Path(__file__).resolve().parents[1]
#: The shared PDFs beside the checkout (a worktree elsewhere finds them at /work/shared).
PDFS = next((p for p in (TESTS.parents[1] / "shared" / "data" / "pdf", Path("/work/shared/data/pdf")) if p.exists()),
            TESTS.parents[1] / "shared" / "data" / "pdf")
LAUNCHER = "import web_scripted_backend; from navicite.cli import main; main()"
SCRIPTED = ["llm.backend=scripted-web", "generate.verifier=lexical", "rerank.backend=none",
            "generate.unsupported=flag", "generate.answer_phrase=false"]
TIMEDEP_TITLE = "Using Time Dependent Covariates"
COMPETE_TITLE = "Multi-state models and competing risks"
QUESTION = "How does tmerge build a data set with time-dependent covariates?"
ANSWER_TIMEOUT_S = 1500
#: Words of the scripted draft's sentence that no source states (web_scripted_backend.UNSUPPORTED).
UNSUPPORTED_WORDS = "written on a lighthouse in 1847"

if not (PDFS / "timedep.pdf").exists():
    pytest.skip(f"the shared PDFs are not in {PDFS}", allow_module_level=True)


# ---- the server and the browser -------------------------------------------------------------

def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as reply:
            return reply.status, reply.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


@pytest.fixture(scope="module")
def scripted_url(navicite_serve, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with navicite_serve(tmp_path_factory.mktemp("web") / "home", SCRIPTED, LAUNCHER) as url:
        yield url


def _post_records(url: str, records: list[dict]) -> None:
    request = urllib.request.Request(f"{url}/v1/documents", data=json.dumps({"records": records}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=60) as reply:
        assert reply.status == 201


# ---- what the page shows -------------------------------------------------------------------

def folded(text: str) -> str:
    """Letters and digits only, lower case, ligature letter groups dropped: how the page matches a quote."""
    kept = "".join(c for c in unicodedata.normalize("NFKD", text).lower() if c.isalnum())
    return re.sub(r"ffi|ffl|ff|fi|fl", "", kept)


def wait(driver, condition, timeout: float = 60):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.25).until(condition)


def by(driver, css: str) -> list:
    from selenium.webdriver.common.by import By

    return driver.find_elements(By.CSS_SELECTOR, css)


def upload_shared_pdfs(driver) -> None:
    from selenium.webdriver.common.by import By

    picker = driver.find_element(By.ID, "upload-files")
    picker.send_keys(f"{PDFS / 'timedep.pdf'}\n{PDFS / 'compete.pdf'}")
    wait(driver, lambda d: len(by(d, "#documents li")) == 2, 180)


def ask(driver, question: str, timeout: float = 120) -> str:
    from selenium.webdriver.common.by import By

    box = driver.find_element(By.ID, "question")
    box.clear()
    box.send_keys(question)
    driver.find_element(By.ID, "ask-button").click()
    status = driver.find_element(By.ID, "status")
    wait(driver, lambda d: "answered in" in status.text or "error" in status.get_attribute("class"), timeout)
    assert "answered in" in status.text, status.text
    return status.text


def hover_quote(driver, marker) -> tuple[str, str]:
    """Hovers ``marker``; the tooltip's quote and place."""
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).move_to_element(marker).perform()
    tip = by(driver, "#passage")[0]
    wait(driver, lambda d: tip.is_displayed())
    assert "null" not in tip.text.split("\n"), tip.text  # a source without pages has no place line
    places = tip.find_elements("css selector", ".tip-place")
    return tip.find_element("css selector", "blockquote").text, places[0].text if places else ""


def cited_pages(place: str) -> list[int]:
    found = re.match(r"pp?\. (\d+)(?:-(\d+))?", place)
    assert found, place
    first = int(found.group(1))
    return list(range(first, int(found.group(2) or first) + 1))


def check_viewer_highlights(driver, quote: str, place: str) -> int:
    """After a marker click: the viewer shows a cited page whose highlighted text holds the quote; that page."""
    wait(driver, lambda d: by(d, "#pdf-text .hl") or "not found" in by(d, "#viewer-found")[0].text, 60)
    page = int(by(driver, "#viewer-page")[0].text)
    assert page in cited_pages(place), (page, place)
    highlighted = by(driver, "#pdf-text .hl")
    assert highlighted, f"no highlight on page {page}: {by(driver, '#viewer-found')[0].text}"
    assert folded(quote) in folded("".join(h.get_attribute("textContent") for h in highlighted))
    assert highlighted[0].is_displayed()
    # The highlight is drawn where the text layer lies over the page's canvas.
    canvas = by(driver, "#pdf-canvas")[0].rect
    first = highlighted[0].rect
    assert canvas["y"] <= first["y"] <= canvas["y"] + canvas["height"]
    return page


# ---- the tests ------------------------------------------------------------------------------

def test_upload_ask_check_a_citation_and_delete(chromium, scripted_url: str, tmp_path: Path) -> None:
    driver = chromium(1440, 900)
    driver.get(scripted_url + "/")
    upload_shared_pdfs(driver)
    listed = by(driver, "#documents")[0].text
    assert TIMEDEP_TITLE in listed and COMPETE_TITLE in listed
    assert "PDF · 30 pages" in listed and "PDF · 29 pages" in listed and "passages" in listed and "added" in listed

    ask(driver, QUESTION)
    # The sentence no source states is marked where it stands, visibly.
    unsupported = [s for s in by(driver, "#answer .sentence.kind-unsupported") if UNSUPPORTED_WORDS in s.text]
    assert unsupported and unsupported[0].text.startswith("⚠")
    assert unsupported[0].value_of_css_property("background-color") not in ("rgba(0, 0, 0, 0)", "transparent")
    assert not by(driver, "#legend")[0].get_attribute("hidden")
    assert not by(driver, "#trace-panel")[0].get_attribute("open")  # the trace starts collapsed

    marker = by(driver, "#answer .kind-cited a.marker")[0]
    quote, place = hover_quote(driver, marker)
    assert quote and place.startswith("p")
    marker.click()
    assert TIMEDEP_TITLE in by(driver, "#viewer-title")[0].text
    page = check_viewer_highlights(driver, quote, place)
    assert by(driver, "#viewer-pages")[0].text == "30" and page >= 1
    driver.save_screenshot(str(tmp_path / "viewer.png"))

    # Delete one document, confirming first.
    row = next(li for li in by(driver, "#documents li") if COMPETE_TITLE in li.text)
    doc_id = row.get_attribute("data-id")
    row.find_element("css selector", "button.delete").click()
    by(driver, "#documents .confirm button.danger")[0].click()
    wait(driver, lambda d: COMPETE_TITLE not in by(d, "#documents")[0].text and len(by(d, "#documents li")) == 1)
    assert _get(f"{scripted_url}/v1/files/{doc_id}")[0] == 404
    assert json.loads(_get(f"{scripted_url}/v1/library")[1])["total"] == 1


def test_a_text_source_opens_as_its_passage_with_the_sentence_marked(chromium, scripted_url: str, tmp_path: Path) -> None:
    note = tmp_path / "tardigrades.md"
    note.write_text("# Tardigrades\n\nTardigrades are tiny animals that live in moss and lichen on every continent. "
                    "They survive complete dehydration for up to ten years by entering a state called cryptobiosis. "
                    "When water returns, tardigrades rehydrate and resume their normal activity within hours.\n",
                    encoding="utf-8")
    broken = tmp_path / "broken.pdf"
    broken.write_text("not a PDF at all", encoding="utf-8")
    driver = chromium(1440, 900)
    driver.get(scripted_url + "/")
    by(driver, "#upload-files")[0].send_keys(f"{broken}\n{note}")
    wait(driver, lambda d: "Tardigrades" in by(d, "#documents")[0].text, 60)
    # The file that could not be read says so in its own row; the other one went in.
    failed = by(driver, "#uploads li.failed")
    assert len(failed) == 1 and "broken.pdf" in failed[0].text and "could not be read: cannot read PDF" in failed[0].text
    ask(driver, "How long can tardigrades survive complete dehydration in cryptobiosis?")
    marker = by(driver, "#answer .kind-cited a.marker")[0]
    quote, _ = hover_quote(driver, marker)
    marker.click()
    wait(driver, lambda d: by(d, "#text-context mark.hl"))
    assert by(driver, "#pdf-page")[0].get_attribute("hidden") is not None
    assert folded(quote) in folded(by(driver, "#text-context mark.hl")[0].text)
    assert "Tardigrades" in by(driver, "#viewer-title")[0].text


def test_keyboard_and_phone_width(chromium, scripted_url: str, tmp_path: Path) -> None:
    from selenium.webdriver.common.keys import Keys

    driver = chromium(390, 844)
    driver.get(scripted_url + "/")
    wait(driver, lambda d: by(d, "#documents li"))
    # Nothing is wider than the phone's screen.
    assert driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1")
    ask(driver, QUESTION)
    marker = by(driver, "#answer .kind-cited a.marker")[0]
    marker.send_keys(Keys.ENTER)  # focused and opened from the keyboard
    viewer = by(driver, "#viewer")[0]
    wait(driver, lambda d: viewer.is_displayed() and by(d, "#pdf-text .hl"))
    assert viewer.rect["width"] >= 380  # the source takes the whole screen
    assert driver.execute_script("return document.activeElement.id") == "viewer-title"
    driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait(driver, lambda d: not viewer.is_displayed())
    assert driver.execute_script("return document.activeElement.classList.contains('marker')")


def test_hostile_titles_stay_text(chromium, scripted_url: str, tmp_path: Path) -> None:
    hostile = {"id": "hostile-web", "title": "<script>window.__pwned=1</script><img src=x onerror=window.__pwned=2>",
               "text": "<b>bold?</b> Lichen grows slowly on bare rock in cold places.", "link": "javascript:window.__pwned=3"}
    _post_records(scripted_url, [hostile])
    driver = chromium(1440, 900)
    driver.get(scripted_url + "/")
    wait(driver, lambda d: "<script>" in by(d, "#documents")[0].text)
    ask(driver, "How fast does lichen grow on bare rock?")
    marker = by(driver, "#answer a.marker")[0]
    hover_quote(driver, marker)
    marker.click()
    wait(driver, lambda d: by(d, "#text-context .cited"))
    assert hostile["title"] in by(driver, "#viewer-title")[0].text
    assert driver.execute_script("return window.__pwned === undefined")
    assert not by(driver, "#documents script, #documents img, #answer img, #viewer script, #viewer img, "
                          "#passage img, a[href^='javascript:']")


def test_withheld_sentences_and_documents_added_elsewhere(chromium, navicite_serve, tmp_path_factory: pytest.TempPathFactory) -> None:
    """With the default ``generate.unsupported=withhold`` the unsupported sentence is listed, not shown in the
    answer; the library follows a write made by another process."""
    settings = [o for o in SCRIPTED if not o.startswith("generate.unsupported")]
    home = tmp_path_factory.mktemp("web-withhold") / "home"
    with navicite_serve(home, settings, LAUNCHER) as url:
        _post_records(url, [{"id": "moss", "title": "Moss", "text": "Moss grows on the north side of trees in damp "
                             "forests of the northern hemisphere because that side stays shaded and moist."}])
        driver = chromium(1440, 900)
        driver.get(url + "/")
        wait(driver, lambda d: "Moss" in by(d, "#documents")[0].text)
        # A document added from outside the page (as ``navicite ingest`` does) shows up without a reload.
        with Collection(home, ["llm.backend=none"]) as cli:
            cli.add(Document(id="lichen", title="Lichen on rock", text="Lichen grows slowly on bare rock."))
        wait(driver, lambda d: "Lichen on rock" in by(d, "#documents")[0].text, 30)
        ask(driver, "Why does moss grow on the north side of trees?")
        assert UNSUPPORTED_WORDS not in by(driver, "#answer")[0].text
        control = by(driver, "#withheld")[0]
        assert control.is_displayed() and not control.get_attribute("open")
        assert by(driver, "#withheld-summary")[0].text == "1 sentence left out"
        by(driver, "#withheld-summary")[0].click()
        assert UNSUPPORTED_WORDS in by(driver, "#withheld-list li.kind-unsupported")[0].text


@pytest.mark.llm
def test_real_model_answer_opens_at_the_cited_page(chromium, navicite_serve, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The embedded model behind the page; screenshots go to ``$NAVICITE_SCREENSHOTS`` when it is set."""
    shots = Path(os.environ["NAVICITE_SCREENSHOTS"]) if os.environ.get("NAVICITE_SCREENSHOTS") else None
    home = tmp_path_factory.mktemp("web-real") / "home"
    settings = ["llm.threads=1", "generate.max_sources=4", "generate.judge_max_calls=4"]
    driver = chromium(1440, 900)
    with navicite_serve(home, settings) as url:
        driver.get(url + "/")
        upload_shared_pdfs(driver)
        if shots:
            driver.save_screenshot(str(shots / "web-library.png"))
        ask(driver, "Which function of the survival package builds data sets with time-dependent covariates?",
            ANSWER_TIMEOUT_S)
        assert "tmerge" in by(driver, "#answer")[0].text
        marker = next(m for m in by(driver, "#answer a.marker"))
        quote, place = hover_quote(driver, marker)
        if shots:
            driver.save_screenshot(str(shots / "web-answer.png"))
        marker.click()
        check_viewer_highlights(driver, quote, place)
        if shots:
            time.sleep(1)  # the smooth scroll to the highlight
            driver.save_screenshot(str(shots / "web-viewer.png"))


MATCH_CASES = [
    # (text runs as a PDF's text layer gives them, the quote, the text the highlight must cover)
    (["The ﬁrst time-", "dependent covariate was used."], "The first time-dependent covariate was used.",
     "The ﬁrst time-|dependent covariate was used."),
    (["Coecients of the model", " are shown."], "Coefficients of the model are shown.",
     "Coecients of the model| are shown."),
    (["We fit a", "model with", "  spaced   words."], "We fit a model with spaced words.", "We fit a|model with|  spaced   words."),
    (["Before. ", "Café au lait is here.", " After."], "Cafe au lait is here.", "Café au lait is here."),
    (["Nothing like it here."], "A sentence that is not on the page.", None),
]


def test_quote_matching_tolerates_ligatures_hyphens_spacing_and_accents(chromium, scripted_url: str) -> None:
    """match.js, run in the browser: where a quote stands in text runs that were extracted differently."""
    driver = chromium(800, 600)
    driver.get(scripted_url + "/")
    results = driver.execute_async_script(
        """const [cases, done] = arguments;
        import("/static/match.js").then(({ locate, within }) => done(cases.map(([runs, quote]) => {
          const range = locate(runs, quote);
          if (!range) return null;
          return runs.map((run, i) => { const part = within(range, i, run.length); return part ? run.slice(...part) : ""; })
                     .filter(Boolean).join("|");
        })));""",
        [[runs, quote] for runs, quote, _ in MATCH_CASES],
    )
    assert results == [covered for _, _, covered in MATCH_CASES]


def test_a_source_that_is_not_a_stored_passage_shows_the_text_the_answer_read(chromium, scripted_url: str) -> None:
    """Navigation evidence has no passage to look up: the viewer shows the citation's own passage, quote marked."""
    driver = chromium(1200, 800)
    driver.get(scripted_url + "/")
    driver.execute_async_script(
        """const done = arguments[0];
        import("/static/viewer.js").then(({ openSource }) => openSource({
          marker: 1, doc_id: "gone", title: "Evidence", passage_id: "gone#n3", pages: [], section: "", link: "",
          passage: "Ice cores hold air bubbles. The bubbles keep samples of old air.", quote: "The bubbles keep samples of old air.",
        })).then(() => done());""")
    wait(driver, lambda d: by(d, "#text-context mark.hl"))
    assert by(driver, "#text-context mark.hl")[0].text == "The bubbles keep samples of old air."
    assert by(driver, "#viewer-status")[0].text == ""


def _post_json(url: str, body: dict) -> dict:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request, timeout=60) as reply:
        return json.loads(reply.read())


def test_navigation_evidence_from_a_pdf_opens_at_its_page(chromium, scripted_url: str) -> None:
    """A tree's segment is not a stored passage, but its PDF opens at the cited page with the quote
    highlighted, as any citation does; a topic's summary (words on no page) shows as text."""
    driver = chromium(1200, 800)
    driver.get(scripted_url + "/")
    library = json.loads(_get(f"{scripted_url}/v1/library")[1])["documents"]
    if not any(TIMEDEP_TITLE in d["title"] for d in library):
        by(driver, "#upload-files")[0].send_keys(str(PDFS / "timedep.pdf"))
        wait(driver, lambda d: TIMEDEP_TITLE in by(d, "#documents")[0].text, 180)
    # A passage on one page past the first, and its longest sentence of prose.
    hit = next(h for h in _post_json(f"{scripted_url}/v1/search", {"query": "tmerge time dependent covariates", "k": 10})["hits"]
               if len(h["pages"]) == 1 and h["pages"][0] > 1)
    text = json.loads(_get(f"{scripted_url}/v1/passages/{urllib.parse.quote(hit['passage_id'], safe='')}")[1])["passage"]["text"]
    quote = max((s for s in re.split(r"(?<=[.!?])\s+", " ".join(text.split())) if 8 <= len(s.split()) <= 40 and ">" not in s),
                key=len)
    entry = json.loads(_get(f"{scripted_url}/v1/library/{urllib.parse.quote(hit['id'], safe='')}")[1])
    assert entry["kind"] == "pdf" and entry["has_file"] and entry["id"] == hit["id"]
    assert _get(f"{scripted_url}/v1/library/no-such-doc")[0] == 404

    def open_source(passage_id: str, passage: str, quote: str) -> None:
        driver.execute_async_script(
            """const [citation, done] = arguments;
            import("/static/viewer.js").then(({ openSource }) => openSource(citation)).then(() => done());""",
            {"marker": 1, "doc_id": hit["id"], "title": "Evidence", "passage_id": passage_id, "pages": hit["pages"],
             "section": "", "link": "", "passage": passage, "quote": quote})

    open_source("seg4", text, quote)
    page = check_viewer_highlights(driver, quote, "pp. %d-%d" % (hit["pages"][0], hit["pages"][-1]))
    assert page in hit["pages"] and by(driver, "#text-context")[0].get_attribute("hidden") is not None

    summary = "This section explains how a data set with time-dependent covariates is built."
    open_source("node:n2", summary, summary)
    wait(driver, lambda d: by(d, "#text-context mark.hl"))
    assert by(driver, "#pdf-page")[0].get_attribute("hidden") is not None
    assert by(driver, "#viewer-status")[0].text == ""
