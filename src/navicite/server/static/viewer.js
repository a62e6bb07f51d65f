// The source beside the answer. A PDF opens in pdf.js (vendored, vendor/pdfjs) at the cited
// page, with the quoted sentence highlighted in the page's text layer; any other source shows its
// passage between its neighbours with the sentence marked.

import { $, el, placeOf, safeHref } from "./dom.js";
import { api, fileBytes } from "./api.js";
import { locate, within } from "./match.js";

const PDFJS = "/static/vendor/pdfjs/pdf.min.mjs";
const PDFJS_WORKER = "/static/vendor/pdfjs/pdf.worker.min.mjs";

let pdfjs = null;
const pdfs = new Map();   // doc id -> Promise of the loaded PDF
let shown = null;         // {pdf, quote, page}
let opened = 0;           // the latest open request; an older one that finishes late is dropped
let returnTo = null;      // the marker to give focus back to on close
let renderTask = null;
let zoom = 1;             // times the width of the viewer
const ZOOMS = [1, 1.5, 2, 3];
let textLayer = null;

function status(text) {
  $("viewer-status").textContent = text;
}

export async function openSource(citation, opener) {
  const ticket = ++opened;
  returnTo = opener || null;
  $("viewer").hidden = false;
  document.body.classList.add("viewing");
  $("viewer-title").textContent = citation.title || citation.doc_id;
  $("viewer-place").textContent = placeOf(citation.pages, citation.section);
  $("viewer-found").textContent = "";
  status("Opening the source…");
  $("viewer-title").focus({ preventScroll: true });
  $("viewer").scrollIntoView({ block: "nearest" });
  try {
    const context = citation.passage_id ? await found(`/passages/${encodeURIComponent(citation.passage_id)}`) : null;
    if (ticket !== opened) return;
    if (context) {
      const doc = context.document;
      if (doc.kind === "pdf" && doc.has_file) await showPdf(doc.id, citation, ticket);
      else showText(context, citation);
      return;
    }
    // Not a stored passage (navigation evidence: a tree's segment or a topic's summary). Its PDF
    // still opens at the cited page when the quote stands on it; a summary's words stand on no
    // page, and a source without a kept file has none: those show the text the answer read.
    const doc = citation.doc_id && (citation.pages || []).length && citation.quote
      ? await found(`/library/${encodeURIComponent(citation.doc_id)}`) : null;
    if (ticket !== opened) return;
    if (doc && doc.kind === "pdf" && doc.has_file && await showPdf(doc.id, citation, ticket, true)) return;
    if (ticket === opened) showText(null, citation);
  } catch (error) {
    if (ticket === opened) status(String(error.message || error));
  }
}

export function closeViewer() {
  opened++;
  $("viewer").hidden = true;
  document.body.classList.remove("viewing");
  if (returnTo && document.contains(returnTo)) returnTo.focus();
}

// ---- PDF ---------------------------------------------------------------------------------

async function library() {
  if (!pdfjs) {
    pdfjs = await import(PDFJS);
    pdfjs.GlobalWorkerOptions.workerSrc = PDFJS_WORKER;
  }
  return pdfjs;
}

function loadPdf(lib, docId) {
  if (!pdfs.has(docId)) {
    const loading = fileBytes(docId).then((data) =>
      lib.getDocument({ data, isEvalSupported: false, enableXfa: false, useWasm: false }).promise);
    loading.catch(() => pdfs.delete(docId));  // a failed load is tried again next time
    pdfs.set(docId, loading);
  }
  return pdfs.get(docId);
}

async function pageItems(pdf, number) {
  const content = await (await pdf.getPage(number)).getTextContent();
  return content.items.map((item) => item.str || "");
}

// Shows the cited page of a PDF; with ``onlyQuoted``, only if the quote stands on one of the cited
// pages (returns whether it showed the PDF).
async function showPdf(docId, citation, ticket, onlyQuoted = false) {
  const lib = await library();
  const pdf = await loadPdf(lib, docId);
  if (ticket !== opened) return true;
  const pages = (citation.pages || []).filter((p) => p >= 1 && p <= pdf.numPages);
  const first = pages.length ? pages[0] : 1;
  const last = pages.length ? pages[pages.length - 1] : first;
  // The cited page is the first page of the passage that holds the quote (a passage may run over two).
  let target = null;
  if (citation.quote) {
    for (let number = first; number <= last && target === null; number++) {
      if (locate(await pageItems(pdf, number), citation.quote)) target = number;
    }
  }
  if (ticket !== opened) return true;
  if (target === null && onlyQuoted) return false;
  target = target === null ? first : target;
  $("text-context").hidden = true;
  shown = { pdf, quote: citation.quote || "", page: target };
  $("viewer-bar").hidden = false;
  await showPage(target);
  return true;
}

// JSON from ``path``, or null when the server has no such passage or document.
function found(path) {
  return api(path).catch((error) => {
    if (/no (passage|document) with id/.test(error.message)) return null;
    throw error;
  });
}

async function showPage(number) {
  const { pdf } = shown;
  shown.page = number;
  $("viewer-page").textContent = String(number);
  $("viewer-pages").textContent = String(pdf.numPages);
  $("page-prev").disabled = number <= 1;
  $("page-next").disabled = number >= pdf.numPages;
  if (renderTask) renderTask.cancel();
  if (textLayer) textLayer.cancel();
  const page = await pdf.getPage(number);
  const box = $("pdf-page");
  box.hidden = false;
  const room = Math.max(240, $("viewer-body").clientWidth - 4);
  const scale = (room * zoom) / page.getViewport({ scale: 1 }).width;
  $("zoom-out").disabled = zoom <= ZOOMS[0];
  $("zoom-in").disabled = zoom >= ZOOMS[ZOOMS.length - 1];
  const viewport = page.getViewport({ scale });
  const ratio = window.devicePixelRatio || 1;
  const canvas = $("pdf-canvas");
  canvas.width = Math.floor(viewport.width * ratio);
  canvas.height = Math.floor(viewport.height * ratio);
  canvas.style.width = `${Math.floor(viewport.width)}px`;
  canvas.style.height = `${Math.floor(viewport.height)}px`;
  box.style.width = `${Math.floor(viewport.width)}px`;
  box.style.height = `${Math.floor(viewport.height)}px`;
  box.style.setProperty("--scale-factor", String(scale));
  const layer = $("pdf-text");
  layer.replaceChildren();
  renderTask = page.render({ canvas, viewport, transform: ratio === 1 ? null : [ratio, 0, 0, ratio, 0, 0] });
  textLayer = new pdfjs.TextLayer({ textContentSource: await page.getTextContent(), container: layer, viewport });
  try {
    await Promise.all([renderTask.promise, textLayer.render()]);
  } catch (error) {
    if (error && error.name === "RenderingCancelledException") return;  // another page was asked for
    throw error;
  }
  const found = highlight(textLayer, shown.quote);
  status("");
  $("viewer-found").textContent = !shown.quote ? "" : found ? "quoted sentence highlighted" : "quoted sentence not found on this page";
  reveal(layer.querySelector(".hl"));
}

// Scrolls the viewer's body (not the page) so that ``node`` stands in its middle.
function reveal(node) {
  const body = $("viewer-body");
  if (!node) { body.scrollTop = 0; return; }
  const box = node.getBoundingClientRect();
  const view = body.getBoundingClientRect();
  body.scrollTop = Math.max(0, box.top - view.top + body.scrollTop - body.clientHeight / 2);
  body.scrollLeft = Math.max(0, box.left - view.left + body.scrollLeft - 16);
}

// Wraps the quote's part of each text run in a highlighted span; returns whether it was found.
function highlight(layer, quote) {
  if (!quote) return false;
  const strings = layer.textContentItemsStr;
  const range = locate(strings, quote);
  if (!range) return false;
  layer.textDivs.forEach((div, i) => {
    const text = strings[i];
    const part = within(range, i, text.length);
    if (!part || div.textContent !== text) return;
    const [from, to] = part;
    div.replaceChildren(
      document.createTextNode(text.slice(0, from)),
      el("span", { class: "hl", text: text.slice(from, to) }),
      document.createTextNode(text.slice(to)),
    );
  });
  return true;
}

// ---- text sources ----------------------------------------------------------------------------

// The passage between its neighbours, the quoted sentence marked.
function showText(context, citation) {
  $("viewer-bar").hidden = true;
  $("pdf-page").hidden = true;
  const box = $("text-context");
  const passage = context ? context.passage.text : (citation.passage || "");
  const nodes = [];
  if (context) for (const p of context.before) nodes.push(el("p", { class: "around", text: p.text }));
  nodes.push(el("p", { class: "cited" }, marked(passage, citation.quote)));
  if (context) for (const p of context.after) nodes.push(el("p", { class: "around", text: p.text }));
  const href = safeHref(citation.link);
  if (href) nodes.push(el("p", {}, [el("a", { href, target: "_blank", rel: "noopener noreferrer", text: "Open the original ↗" })]));
  box.replaceChildren(...nodes);
  box.hidden = false;
  status("");
  $("viewer-found").textContent = "";
  reveal(box.querySelector("mark") || box.querySelector(".cited"));
}

function marked(text, quote) {
  const range = quote ? locate([text], quote) : null;
  if (!range) return [document.createTextNode(text)];
  const [from, to] = within(range, 0, text.length);
  return [
    document.createTextNode(text.slice(0, from)),
    el("mark", { class: "hl", text: text.slice(from, to) }),
    document.createTextNode(text.slice(to)),
  ];
}

export function setupViewer() {
  $("viewer-close").addEventListener("click", closeViewer);
  $("page-prev").addEventListener("click", () => { if (shown && shown.page > 1) showPage(shown.page - 1); });
  $("page-next").addEventListener("click", () => { if (shown && shown.page < shown.pdf.numPages) showPage(shown.page + 1); });
  const rezoom = (step) => {
    const at = ZOOMS.indexOf(zoom) + step;
    if (shown && at >= 0 && at < ZOOMS.length) { zoom = ZOOMS[at]; showPage(shown.page); }
  };
  $("zoom-out").addEventListener("click", () => rezoom(-1));
  $("zoom-in").addEventListener("click", () => rezoom(1));
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && !$("viewer").hidden) closeViewer();
  });
}
