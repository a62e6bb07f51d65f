"""The web page end to end in headless Chromium, with the real model behind ``navicite serve``.

The collection is the bundled sample plus one hostile document whose title and text
carry markup (a ``<script>`` element, an ``onerror`` handler, a ``javascript:`` link).
The test asks a question that this document answers, then checks that the answer
arrived, that every ``[n]`` marker links to a listed source and shows its passage,
and that the hostile markup appears as text and never became elements. A
screenshot is saved in the test's temporary folder.

Needs Debian's ``chromium`` and ``chromium-driver`` (the ``chromium`` fixture); skipped only when they are absent.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from navicite.collection import CollectionStore
from navicite.config import load_settings
from navicite.ingest import sample_documents

pytestmark = [pytest.mark.llm, pytest.mark.browser]

HOSTILE = {
    "id": "000-hostile-tardigrade",
    "title": "<img src=x onerror=\"window.__pwned=1\"> Tardigrade survival",
    "text": "<script>window.__pwned=2</script> Tardigrades survive complete dehydration for up to ten years. "
    "When water returns, tardigrades rehydrate and resume their normal activity within hours.",
    "link": "javascript:window.__pwned=3",
}
QUESTION = "How long can tardigrades survive dehydration?"
ANSWER_TIMEOUT_S = 1200
#: A short answer from few sources keeps the real model's part to a minute or two.
SERVE_SETTINGS = ["llm.threads=1", "generate.max_sources=2", "generate.draft_max_tokens=150",
                  "generate.judge_max_calls=2", "generate.language_retry=false"]


@pytest.fixture(scope="module")
def server_url(navicite_serve, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home = tmp_path_factory.mktemp("browser-home")
    records = home / "hostile.jsonl"
    records.write_text(json.dumps(HOSTILE) + "\n", encoding="utf-8")
    assert CollectionStore(load_settings(home, SERVE_SETTINGS)).ingest([*sample_documents(), records]).ok
    with navicite_serve(home, SERVE_SETTINGS) as url:
        yield url


@pytest.fixture
def browser(chromium) -> object:
    return chromium(1400, 1000)


def test_ask_in_the_page(server_url: str, browser, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver = browser
    driver.get(server_url + "/")
    wait = WebDriverWait(driver, 30)

    # The documents panel lists the hostile document with its markup shown as text.
    wait.until(lambda d: "Tardigrade survival" in d.find_element(By.ID, "documents").text)
    assert HOSTILE["title"] in driver.find_element(By.ID, "documents").text

    driver.find_element(By.ID, "question").send_keys(QUESTION)
    driver.find_element(By.ID, "ask-button").click()
    WebDriverWait(driver, ANSWER_TIMEOUT_S, poll_frequency=1).until(
        lambda d: "answered in" in d.find_element(By.ID, "status").text or "error" in d.find_element(By.ID, "status").get_attribute("class")
    )
    status = driver.find_element(By.ID, "status")
    assert "answered in" in status.text, status.text
    assert driver.find_element(By.ID, "answer").text.strip()

    # Every marker points at a listed source.
    markers = driver.find_elements(By.CSS_SELECTOR, "#answer a.marker")
    assert markers, "the answer shows no [n] markers"
    listed = {li.get_attribute("id") for li in driver.find_elements(By.CSS_SELECTOR, "#sources li")}
    for marker in markers:
        target = marker.get_attribute("href").rsplit("#", 1)[1]
        assert target in listed, (target, listed)
        assert marker.text == f"[{target.removeprefix('src-')}]"

    # Hovering a marker shows its quote; clicking it opens the passage beside the answer.
    from selenium.webdriver.common.action_chains import ActionChains

    ActionChains(driver).move_to_element(markers[0]).perform()
    passage = driver.find_element(By.ID, "passage")
    wait.until(lambda d: passage.is_displayed())
    assert passage.find_element(By.TAG_NAME, "blockquote").text.strip()
    # A record without pages has no place line (it once read "null").
    assert "null" not in passage.text.split("\n")[1:2], passage.text
    markers[0].click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#text-context .cited, #pdf-text span"))
    assert driver.find_element(By.ID, "viewer").is_displayed()
    # "How long ...?" asks for one thing: the answer phrase opens the answer, cited like its sentence.
    phrases = driver.find_elements(By.CSS_SELECTOR, "#answer p.phrase")
    if phrases:
        assert phrases[0].text.startswith("Answer: ") and len(phrases[0].text) > len("Answer: "), phrases[0].text

    # The hostile markup is text everywhere: no element was created from it and nothing ran.
    driver.save_screenshot(str(tmp_path / "answer.png"))
    print(f"screenshot: {tmp_path / 'answer.png'}")
    assert driver.execute_script("return window.__pwned === undefined")
    injected = driver.execute_script(
        "return document.querySelectorAll('#answer img, #answer script, #sources img, #sources script, "
        "#passage img, #passage script, #documents img, #documents script, #viewer img, #viewer script, "
        "a[href^=\"javascript:\"]').length"
    )
    assert injected == 0
    if "Tardigrade survival" in driver.find_element(By.ID, "sources").text:
        assert HOSTILE["title"] in driver.find_element(By.ID, "sources").text
