// The trace: keywords, portfolio queries, retrieval rounds, candidates, timings and model cost.

import { $, el, fmt } from "./dom.js";

export function renderTrace(trace) {
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

