// navicite web page: wiring. The parts: library.js (documents), answer.js (the verified answer),
// viewer.js (the source beside it), trace.js, api.js (requests), dom.js (safe DOM building).

import { $, fmt } from "./dom.js";
import { askEvents, setKey } from "./api.js";
import { clearAnswer, hideTip, renderAnswer, showPreview } from "./answer.js";
import { refreshLibrary, setupLibrary } from "./library.js";
import { renderTrace } from "./trace.js";
import { setupViewer } from "./viewer.js";

function setStatus(text, isError = false) {
  const status = $("status");
  status.textContent = text;
  status.classList.toggle("error", isError);
}

async function ask(question) {
  clearAnswer();
  $("ask-button").disabled = true;
  setStatus("Finding sources…");
  const started = performance.now();
  try {
    for await (const event of askEvents(question)) handleEvent(event, started);
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
    showPreview(data.sources, data.preliminary);
    if (!data.preliminary) setStatus(`Reading ${data.sources.length} sources and writing the answer…`);
  } else if (kind === "token") {
    draft.hidden = false;
    draft.textContent += data.text;
  } else if (kind === "reset") {
    draft.textContent = "";
    setStatus("Rewriting the draft in the question's language…");
  } else if (kind === "answer") {
    draft.hidden = true;
    $("preview").hidden = true;
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
  $("key-form").addEventListener("submit", (event) => {
    event.preventDefault();
    setKey($("api-key").value.trim());
    $("key-form").hidden = true;
    refreshLibrary();
  });
  document.addEventListener("keydown", (event) => { if (event.key === "Escape") hideTip(); });
  setupLibrary();
  setupViewer();
});
