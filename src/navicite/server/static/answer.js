// The verified answer: its sentences with their [n] markers, unsupported ones marked, withheld
// ones behind a control, the answer phrase on top; hovering a marker shows the quote and its
// place, clicking it opens the source beside the answer.

import { $, el, placeOf } from "./dom.js";
import { openSource } from "./viewer.js";

export function clearAnswer() {
  $("intro").hidden = true;
  $("answer").replaceChildren();
  $("sources").replaceChildren();
  $("sources-heading").hidden = true;
  $("legend").hidden = true;
  $("withheld").hidden = true;
  $("withheld").open = false;
  $("preview").hidden = true;
  $("draft").textContent = "";
  $("draft").hidden = true;
  hideTip();
}

// The first matches and the chosen sources, while the draft is written.
export function showPreview(sources, preliminary) {
  const box = $("preview");
  box.replaceChildren(
    el("span", { class: "muted", text: preliminary ? "First matches: " : "Reading: " }),
    ...sources.slice(0, 6).map((s) => el("span", { class: "chip", text: `${s.number}. ${s.title || s.doc_id}${placeOf(s.pages, s.section) ? ` (${placeOf(s.pages, s.section)})` : ""}` })),
  );
  box.hidden = false;
}

function markerLink(citation) {
  const place = placeOf(citation.pages, citation.section);
  const link = el("a", {
    class: "marker",
    href: `#src-${citation.marker}`,
    "data-marker": citation.marker,
    "aria-label": `source ${citation.marker}: ${citation.title || citation.doc_id}${place ? `, ${place}` : ""}`,
    text: `[${citation.marker}]`,
  });
  link.addEventListener("mouseenter", () => showTip(link, citation));
  link.addEventListener("focus", () => showTip(link, citation));
  link.addEventListener("mouseleave", hideTip);
  link.addEventListener("blur", hideTip);
  link.addEventListener("click", (event) => {
    event.preventDefault();
    openSource(citation, link);
  });
  return link;
}

function unsupportedMark() {
  return el("span", { class: "warn", text: "⚠ ", title: "no source was verified for this claim", "aria-label": "unsupported:" });
}

export function renderAnswer(answer) {
  const byMarker = new Map(answer.citations.map((c) => [c.marker, c]));
  const container = $("answer");
  const plain = answer.answer || "";
  const withMarkers = (node, markers) => {
    for (const marker of markers) {
      const citation = byMarker.get(marker);
      if (citation) node.append(" ", markerLink(citation));
    }
  };
  // The answer phrase ("Answer: 2004"), cited as the first sentence it was taken from; in
  // short-answer mode the text holds its own "Answer:" line instead (the label the Python side
  // reads, generate/language.py ANSWER_LABEL).
  const first = answer.sentences.find((s) => s.kind !== "heading");
  const labelled = /^\s*(?:\*\*)?(?:short\s+)?(?:answer|답|정답|답변)(?:\*\*)?\s*:/im.test(plain);
  if (answer.short_answer && !labelled && first) {
    const line = el("p", { class: `phrase kind-${first.kind}` });
    if (first.kind === "unsupported") line.append(unsupportedMark());
    line.append(el("strong", { text: `${answer.language === "ko" ? "답" : "Answer"}: ${answer.short_answer}` }));
    withMarkers(line, first.markers);
    container.append(line);
  }
  let paragraph = el("p");
  let cursor = 0;
  for (const sentence of answer.sentences) {
    // Blank lines of the plain answer between two sentences separate paragraphs.
    const at = plain.indexOf(sentence.text, cursor);
    if (at >= 0) {
      if (plain.slice(cursor, at).includes("\n") && paragraph.childNodes.length) {
        container.append(paragraph);
        paragraph = el("p");
      }
      cursor = at + sentence.text.length;
    }
    if (sentence.kind === "heading") {
      if (paragraph.childNodes.length) container.append(paragraph);
      container.append(el("h3", { text: sentence.text }));
      paragraph = el("p");
      continue;
    }
    const span = el("span", {
      class: `sentence kind-${sentence.kind}`,
      title: sentence.kind === "unsupported" ? "no source was verified for this claim" : undefined,
    });
    if (sentence.kind === "unsupported") span.append(unsupportedMark());
    span.append(document.createTextNode(sentence.text));
    withMarkers(span, sentence.markers);
    paragraph.append(span, " ");
  }
  if (paragraph.childNodes.length) container.append(paragraph);
  $("legend").hidden = !answer.sentences.some((s) => s.kind === "unsupported");
  renderWithheld(answer.withheld || []);
  renderSources(answer.citations);
}

function renderWithheld(withheld) {
  const box = $("withheld");
  box.hidden = withheld.length === 0;
  $("withheld-summary").textContent = `${withheld.length} sentence${withheld.length === 1 ? "" : "s"} left out`;
  $("withheld-list").replaceChildren(...withheld.map((s) => el("li", { class: "sentence kind-unsupported", text: s.text })));
}

export function renderSources(citations) {
  const list = $("sources");
  $("sources-heading").hidden = citations.length === 0;
  list.replaceChildren(...citations.map((citation) => {
    const title = citation.title || citation.doc_id;
    const place = placeOf(citation.pages, citation.section);
    const open = el("button", { type: "button", class: "link", text: title, onclick: (e) => openSource(citation, e.currentTarget) });
    return el("li", { id: `src-${citation.marker}`, value: citation.marker }, [
      open,
      place ? el("span", { class: "muted", text: ` — ${place}` }) : null,
      citation.quote ? el("q", { class: "source-quote", text: citation.quote }) : null,
    ]);
  }));
}

// ---- the hover card ------------------------------------------------------------------------

function showTip(anchor, citation) {
  const box = $("passage");
  const place = placeOf(citation.pages, citation.section);
  const quote = citation.quote || citation.passage || "(no passage recorded)";
  // replaceChildren would show a null as the text "null": the optional place is left out instead.
  box.replaceChildren(...[
    el("div", { class: "tip-title", text: `[${citation.marker}] ${citation.title || citation.doc_id}` }),
    place ? el("div", { class: "tip-place", text: place }) : null,
    el("blockquote", { text: quote }),
    el("div", { class: "tip-hint", text: "Click to open the source at this place" }),
  ].filter(Boolean));
  box.hidden = false;
  const rect = anchor.getBoundingClientRect();
  const width = Math.min(420, window.innerWidth - 16);
  box.style.width = `${width}px`;
  box.style.top = `${window.scrollY + rect.bottom + 6}px`;
  box.style.left = `${Math.max(8, Math.min(window.scrollX + rect.left - 20, window.scrollX + window.innerWidth - width - 8))}px`;
}

export function hideTip() {
  $("passage").hidden = true;
}
