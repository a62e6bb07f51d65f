// navicite web page. Every piece of text that comes from documents, the model or
// the user is put into the page with textContent (via el()), never as markup.
"use strict";

const $ = (id) => document.getElementById(id);
const KEY_STORE = "navicite.apiKey";

function el(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null) continue;
    if (name === "text") node.textContent = String(value);
    else if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, String(value));
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

// Only web and file links become href; a "javascript:" link in a document stays text.
function safeHref(link) {
  try {
    const url = new URL(link, window.location.href);
    return ["http:", "https:", "file:"].includes(url.protocol) ? url.href : null;
  } catch (_) {
    return null;
  }
}

// ---- API --------------------------------------------------------------------------

function headers(extra = {}) {
  const key = sessionStorage.getItem(KEY_STORE);
  return key ? { ...extra, Authorization: `Bearer ${key}` } : extra;
}

async function api(path, options = {}) {
  const response = await fetch(`/v1${path}`, { ...options, headers: headers(options.headers) });
  if (response.status === 401) {
    $("key-form").hidden = false;
    throw new Error("this server needs an API key: enter it at the top of the page");
  }
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.detail || `request failed (${response.status})`);
  return body;
}

// Server-sent events over a POST body (EventSource only does GET).
async function* sseEvents(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const frame = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      let kind = "message";
      const data = [];
      for (const line of frame.split("\n")) {
        if (line.startsWith("event:")) kind = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).trim());
      }
      if (data.length) yield { kind, data: JSON.parse(data.join("\n")) };  // comment frames are keep-alives
    }
  }
}

// ---- asking -----------------------------------------------------------------------

function setStatus(text, isError = false) {
  const status = $("status");
  status.textContent = text;
  status.classList.toggle("error", isError);
}

function clearAnswer() {
  $("answer").replaceChildren();
  $("sources").replaceChildren();
  $("sources-heading").hidden = true;
  $("legend").hidden = true;
  $("draft").textContent = "";
  $("draft").hidden = true;
  hidePassage();
}

async function ask(question) {
  clearAnswer();
  $("ask-button").disabled = true;
  setStatus("finding sources…");
  const started = performance.now();
  try {
    const response = await fetch("/v1/ask", {
      method: "POST",
      headers: headers({ "Content-Type": "application/json" }),
      body: JSON.stringify({ question, stream: true }),
    });
    if (response.status === 401) $("key-form").hidden = false;
    if (!response.ok) {
      const body = await response.json().catch(() => ({}));
      throw new Error(body.detail || `request failed (${response.status})`);
    }
    for await (const event of sseEvents(response)) handleEvent(event, started);
  } catch (error) {
    setStatus(String(error.message || error), true);
  } finally {
    $("ask-button").disabled = false;
  }
}

function handleEvent({ kind, data }, started) {
  const draft = $("draft");
  if (kind === "stage") {
    setStatus(`${data.name}: ${data.ranked ?? "?"} sources from a pool of ${data.pool_size ?? "?"} in ${fmt(data.seconds)} s; writing the answer…`);
    if (data.analysis) {
      const outputs = { analysis: data.analysis, rounds: data.rounds, stopped: data.stopped };
      renderTrace({ stages: [{ name: data.name, seconds: data.seconds, outputs }] });
    }
  } else if (kind === "sources") {
    // Shown while the draft is written; the cited answer's own list replaces it.
    renderSources(data.sources.map((s) => ({ ...s, marker: s.number })));
    if (!data.preliminary) setStatus(`reading ${data.sources.length} sources and writing the answer…`);
  } else if (kind === "token") {
    draft.hidden = false;
    draft.textContent += data.text;
  } else if (kind === "reset") {
    draft.textContent = "";
    setStatus("rewriting the draft in the question's language…");
  } else if (kind === "answer") {
    draft.hidden = true;
    renderAnswer(data);
    renderTrace(data.trace);
    const unsupported = data.sentences.filter((s) => s.kind === "unsupported").length;
    const withheld = (data.withheld || []).length;
    setStatus(`answered in ${fmt((performance.now() - started) / 1000)} s` +
      (unsupported ? ` — ${unsupported} sentence(s) without verified support` : "") +
      (withheld ? ` — ${withheld} unsupported sentence(s) of the draft left out` : ""));
  } else if (kind === "error") {
    setStatus(data.detail || "the answer failed", true);
  }
}

function fmt(seconds) {
  return typeof seconds === "number" ? seconds.toFixed(1) : "?";
}

// ---- the answer with its markers -------------------------------------------------------

function renderAnswer(answer) {
  const byMarker = new Map(answer.citations.map((c) => [c.marker, c]));
  const container = $("answer");
  const plain = answer.answer || "";
  // The answer phrase ("Answer: 2004"), cited as the first sentence it was taken from; in
  // short-answer mode the text holds its own "Answer:" line instead (the label the Python side
  // reads, generate/language.py ANSWER_LABEL).
  const first = answer.sentences.find((s) => s.kind !== "heading");
  const labelled = /^\s*(?:\*\*)?(?:short\s+)?(?:answer|답|정답|답변)(?:\*\*)?\s*:/im.test(plain);
  if (answer.short_answer && !labelled && first) {
    const line = el("p", { class: `phrase kind-${first.kind}` });
    if (first.kind === "unsupported") line.append(el("span", { class: "warn", text: "⚠ ", "aria-label": "unsupported" }));
    line.append(el("strong", { text: `${answer.language === "ko" ? "답" : "Answer"}: ${answer.short_answer}` }));
    for (const marker of first.markers) {
      const citation = byMarker.get(marker);
      if (citation) line.append(" ", markerLink(citation));
    }
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
    if (sentence.kind === "unsupported") span.append(el("span", { class: "warn", text: "⚠ ", "aria-label": "unsupported" }));
    span.append(document.createTextNode(sentence.text));
    for (const marker of sentence.markers) {
      const citation = byMarker.get(marker);
      if (citation) span.append(" ", markerLink(citation));
    }
    paragraph.append(span, " ");
  }
  if (paragraph.childNodes.length) container.append(paragraph);
  $("legend").hidden = !answer.sentences.some((s) => s.kind === "unsupported");
  renderSources(answer.citations);
}

function markerLink(citation) {
  const link = el("a", {
    class: "marker",
    href: `#src-${citation.marker}`,
    "data-marker": citation.marker,
    "aria-describedby": "passage",
    text: `[${citation.marker}]`,
  });
  link.addEventListener("mouseenter", () => showPassage(link, citation, false));
  link.addEventListener("focus", () => showPassage(link, citation, false));
  link.addEventListener("mouseleave", () => { if (!passagePinned) hidePassage(); });
  link.addEventListener("click", (event) => {
    event.preventDefault();
    showPassage(link, citation, true);
    const source = $(`src-${citation.marker}`);
    if (source) {
      source.classList.add("flash");
      setTimeout(() => source.classList.remove("flash"), 1200);
    }
  });
  return link;
}

let passagePinned = false;

function showPassage(anchor, citation, pin) {
  passagePinned = pin;
  const box = $("passage");
  const href = pageHref(citation);
  const place = citationPlace(citation);
  // replaceChildren would show a null as the text "null": the optional parts are filtered out.
  box.replaceChildren(...[
    el("div", { class: "passage-title", text: `[${citation.marker}] ${citation.title || citation.doc_id}` }),
    place ? el("div", { class: "passage-place", text: place }) : null,
    el("blockquote", {}, quoted(citation.passage || "(no passage recorded)", citation.quote)),
    href ? el("a", { href, target: "_blank", rel: "noopener noreferrer", text: "open the source ↗" })
         : el("span", { class: "muted", text: `document ${citation.doc_id}` }),
    pin ? el("button", { type: "button", class: "close", text: "close", onclick: hidePassage }) : null,
  ].filter(Boolean));
  const rect = anchor.getBoundingClientRect();
  box.style.top = `${window.scrollY + rect.bottom + 6}px`;
  box.style.left = `${Math.max(8, Math.min(window.scrollX + rect.left, window.innerWidth - 440))}px`;
  box.hidden = false;
}

// "p. 12, §3.3 Title": the page(s) and section a citation points at.
function citationPlace(citation) {
  const parts = [];
  const pages = citation.pages || [];
  if (pages.length) parts.push(pages[0] === pages[pages.length - 1] ? `p. ${pages[0]}` : `pp. ${pages[0]}-${pages[pages.length - 1]}`);
  if (citation.section) parts.push(/^\d/.test(citation.section) ? `§${citation.section}` : citation.section);
  return parts.join(", ");
}

// A PDF link opens at the cited page (PDF viewers read #page=N).
function pageHref(citation) {
  const href = safeHref(citation.link);
  const pages = citation.pages || [];
  return href && pages.length && /\.pdf$/i.test(href) ? `${href}#page=${pages[0]}` : href;
}

// The passage with its supporting sentence marked.
function quoted(passage, quote) {
  const at = quote ? passage.indexOf(quote) : -1;
  if (at < 0) return [document.createTextNode(passage)];
  return [
    document.createTextNode(passage.slice(0, at)),
    el("mark", { text: quote }),
    document.createTextNode(passage.slice(at + quote.length)),
  ];
}

function hidePassage() {
  passagePinned = false;
  $("passage").hidden = true;
}

function renderSources(citations) {
  const list = $("sources");
  list.replaceChildren();
  $("sources-heading").hidden = citations.length === 0;
  for (const citation of citations) {
    const href = pageHref(citation);
    const title = citation.title || citation.doc_id;
    const place = citationPlace(citation);
    list.append(el("li", { id: `src-${citation.marker}`, value: citation.marker }, [
      href ? el("a", { href, target: "_blank", rel: "noopener noreferrer", text: title }) : el("span", { text: title }),
      el("span", { class: "muted", text: place ? ` — ${place}` : ` — ${citation.doc_id}` }),
    ]));
  }
}

// ---- trace ------------------------------------------------------------------------

function renderTrace(trace) {
  const box = $("trace");
  box.replaceChildren();
  for (const stage of trace.stages || []) {
    const section = el("section", { class: "stage" }, [el("h4", { text: `${stage.name} · ${fmt(stage.seconds)} s` })]);
    const out = stage.outputs || {};
    if (out.analysis) section.append(analysisView(out.analysis));
    if (out.queries) section.append(queriesView(out.queries));
    if (out.rounds && out.rounds.length) section.append(roundsView(out.rounds, out.stopped));
    if (out.ranked) section.append(candidatesView(out.ranked, out.pool_size, out.reranker));
    if (out.timings) section.append(keyValues("timings (s)", out.timings));
    for (const key of ["path", "paths", "navigation"]) if (out[key]) section.append(pathView(out[key]));
    box.append(section);
  }
  if (trace.llm && Object.keys(trace.llm).length) box.append(llmView(trace.llm));
}

function analysisView(analysis) {
  const words = (list) => (list || []).map((k) => [k.term, ...(k.synonyms || [])].join(" / ")).join("; ") || "—";
  return el("dl", {}, [
    el("dt", { text: "keywords" }), el("dd", { text: words(analysis.primary) }),
    el("dt", { text: "expanded" }), el("dd", { text: words(analysis.expanded) }),
    el("dt", { text: "language · analysis" }),
    el("dd", { text: `${analysis.language} · ${analysis.path}${analysis.fallback_reason ? ` (${analysis.fallback_reason})` : ""}` }),
  ]);
}

function queriesView(queries) {
  const table = el("table", { class: "queries" }, [
    el("tr", {}, ["portfolio", "query", "hits"].map((h) => el("th", { text: h }))),
  ]);
  for (const q of queries) {
    table.append(el("tr", {}, [
      el("td", { text: q.portfolio }),
      el("td", { class: "query", text: q.error ? `${q.query} (error: ${q.error})` : q.query }),
      el("td", { text: q.hits }),
    ]));
  }
  return el("div", {}, [el("h5", { text: "portfolio queries" }), table]);
}

// One block per missing-information call: its verdict, the sub-question's searches, what they added.
function roundsView(rounds, stopped) {
  const box = el("div", {}, [el("h5", { text: `retrieval rounds (stopped: ${stopped || "?"})` })]);
  for (const r of rounds) {
    const verdict = r.enough === null ? r.problem : r.enough ? "enough: no further search" : r.sub_question;
    const dl = el("dl", {}, [el("dt", { text: `round ${r.round}` }), el("dd", { text: verdict })]);
    if (r.enough === false) {
      dl.append(
        el("dt", { text: "bridge · missing" }), el("dd", { text: `${r.bridge || "—"} · ${r.missing || "—"}` }),
        el("dt", { text: "keywords" }), el("dd", { text: (r.keywords || []).join("; ") || "—" }),
      );
      const titles = (r.new || []).slice(0, 8).map((c) => c.title || c.doc_id);
      const more = (r.new || []).length - titles.length;
      dl.append(el("dt", { text: `new passages (${(r.new || []).length})` }),
        el("dd", { text: (titles.join("; ") || "none") + (more > 0 ? ` … and ${more} more` : "") }));
    }
    box.append(dl);
    if (r.queries && r.queries.length) box.append(queriesView(r.queries));
  }
  return box;
}

function candidatesView(ranked, poolSize, reranker) {
  const table = el("table", { class: "candidates" }, [
    el("tr", {}, ["#", "document", "score", "found by"].map((h) => el("th", { text: h }))),
  ]);
  ranked.forEach((c, i) => {
    const found = (c.provenance || []).map((p) => `${p.portfolio}${p.round > 1 ? p.round : ""}#${p.rank}`).join(" ");
    const signals = Object.entries(c.signals || {}).map(([k, v]) => `${k} ${Number(v).toFixed(3)}`).join(", ");
    table.append(el("tr", { title: signals || undefined }, [
      el("td", { text: i + 1 }),
      el("td", { text: c.title || c.doc_id }),
      el("td", { text: Number(c.score).toFixed(3) }),
      el("td", { class: "muted", text: found }),
    ]));
  });
  return el("div", {}, [el("h5", { text: `candidates (pool ${poolSize ?? "?"}, reranked by ${reranker || "?"})` }), table]);
}

function pathView(paths) {
  const list = el("ul", { class: "paths" });
  for (const path of Array.isArray(paths) ? paths : [paths]) {
    list.append(el("li", { text: Array.isArray(path) ? path.join(" › ") : typeof path === "string" ? path : JSON.stringify(path) }));
  }
  return el("div", {}, [el("h5", { text: "navigation path" }), list]);
}

function keyValues(title, values) {
  const dl = el("dl");
  for (const [key, value] of Object.entries(values)) {
    dl.append(el("dt", { text: key }), el("dd", { text: typeof value === "number" ? value.toFixed(3) : JSON.stringify(value) }));
  }
  return el("div", {}, [el("h5", { text: title }), dl]);
}

function llmView(llm) {
  const section = el("section", { class: "stage" }, [el("h4", { text: "LLM cost" })]);
  section.append(el("p", {
    text: `${llm.calls ?? 0} calls, ${llm.prompt_tokens ?? 0} prompt + ${llm.completion_tokens ?? 0} completion tokens`,
  }));
  const perStage = llm.stages || {};
  if (Object.keys(perStage).length) {
    const table = el("table", {}, [el("tr", {}, ["stage", "calls", "tokens in/out"].map((h) => el("th", { text: h })))]);
    for (const [name, t] of Object.entries(perStage)) {
      table.append(el("tr", {}, [
        el("td", { text: name }), el("td", { text: t.calls ?? 0 }),
        el("td", { text: `${t.prompt_tokens ?? 0}/${t.completion_tokens ?? 0}` }),
      ]));
    }
    section.append(table);
  }
  return section;
}

// ---- documents --------------------------------------------------------------------

async function loadDocuments() {
  try {
    const page = await api("/documents?limit=200");
    $("doc-count").textContent = `(${page.total})`;
    const list = $("documents");
    list.replaceChildren();
    for (const doc of page.documents) {
      list.append(el("li", { "data-id": doc.id }, [
        el("span", { class: "doc-title", text: doc.title || doc.id }),
        el("span", { class: "muted", text: ` ${doc.words} words` }),
        el("button", { type: "button", class: "delete", text: "delete", title: `delete ${doc.id}`, onclick: () => removeDocument(doc) }),
      ]));
    }
    if (page.total > page.documents.length) list.append(el("li", { class: "muted", text: `… and ${page.total - page.documents.length} more` }));
  } catch (error) {
    $("upload-status").textContent = String(error.message || error);
  }
}

async function removeDocument(doc) {
  if (!window.confirm(`Delete “${doc.title || doc.id}”?`)) return;
  try {
    await api(`/documents/${encodeURIComponent(doc.id)}`, { method: "DELETE" });
    $("upload-status").textContent = `deleted ${doc.title || doc.id}`;
  } catch (error) {
    $("upload-status").textContent = String(error.message || error);
  }
  loadDocuments();
}

async function upload(files) {
  const form = new FormData();
  for (const file of files) form.append("files", file, file.name);
  $("upload-status").textContent = "uploading…";
  try {
    const summary = await api("/documents", { method: "POST", body: form });
    const failed = summary.failed.map((f) => `${f.file}: ${f.reason}`).join("; ");
    $("upload-status").textContent =
      `added ${summary.added}, replaced ${summary.replaced}, unchanged ${summary.unchanged}` + (failed ? ` — failed: ${failed}` : "");
  } catch (error) {
    $("upload-status").textContent = String(error.message || error);
  }
  loadDocuments();
}

// ---- wiring -----------------------------------------------------------------------

document.addEventListener("DOMContentLoaded", () => {
  $("ask-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const question = $("question").value.trim();
    if (question) ask(question);
  });
  $("question").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      $("ask-form").requestSubmit();
    }
  });
  $("upload-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const files = $("upload-files").files;
    if (files.length) upload(files);
  });
  $("key-form").addEventListener("submit", (event) => {
    event.preventDefault();
    sessionStorage.setItem(KEY_STORE, $("api-key").value.trim());
    $("key-form").hidden = true;
    loadDocuments();
  });
  document.addEventListener("keydown", (event) => { if (event.key === "Escape") hidePassage(); });
  loadDocuments();
});
