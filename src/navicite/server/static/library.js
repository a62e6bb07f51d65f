// The library panel: the collection's documents, a title filter, uploads with per-file progress,
// delete with confirmation. The list is read again every few seconds while the page is visible,
// so documents added or removed from the command line show up.

import { $, el } from "./dom.js";
import { api, uploadFile } from "./api.js";

const REFRESH_MS = 12000;  // the listing reads every id, like GET /v1/documents: not too often
const KINDS = { pdf: "PDF", md: "Markdown", html: "HTML", txt: "Text", record: "Record" };
let documents = [];
let total = 0;
let confirming = null;  // the id whose delete waits for confirmation

function when(iso) {
  const date = new Date(iso);
  const day = date.toLocaleDateString(undefined, { day: "numeric", month: "short", year: "numeric" });
  const time = date.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
  return `${day}, ${time}`;
}

function facts(doc) {
  const parts = [KINDS[doc.kind] || doc.kind];
  if (doc.pages) parts.push(`${doc.pages} page${doc.pages === 1 ? "" : "s"}`);
  parts.push(`${doc.passages} passage${doc.passages === 1 ? "" : "s"}`);
  return parts.join(" · ");
}

export async function refreshLibrary() {
  try {
    const page = await api("/library?limit=1000");
    documents = page.documents;
    total = page.total;
    render();
  } catch (error) {
    $("library-status").textContent = String(error.message || error);
  }
}

function render() {
  const filter = $("library-filter").value.trim().toLowerCase();
  const shown = filter ? documents.filter((d) => (d.title || d.id).toLowerCase().includes(filter)) : documents;
  $("doc-count").textContent = `${total}`;
  const list = $("documents");
  list.replaceChildren(...shown.map(item));
  let note = "";
  if (!total) note = "No documents yet: add some above.";
  else if (filter && !shown.length) note = `No title contains “${$("library-filter").value.trim()}”.`;
  else if (total > documents.length) note = `Showing the newest ${documents.length} of ${total}.`;
  $("library-status").textContent = note;
}

function item(doc) {
  const title = doc.title || doc.id;
  const children = [
    el("div", { class: "doc-main" }, [
      el("span", { class: `kind kind-${doc.kind}`, text: (KINDS[doc.kind] || doc.kind).slice(0, 4).toUpperCase(), "aria-hidden": "true" }),
      el("div", { class: "doc-text" }, [
        el("span", { class: "doc-title", text: title, title }),
        el("span", { class: "doc-facts", text: facts(doc) }),
        doc.added ? el("span", { class: "doc-facts", text: `added ${when(doc.added)}` }) : null,
      ]),
    ]),
  ];
  if (confirming === doc.id) {
    children.push(el("div", { class: "confirm", role: "group", "aria-label": `Delete ${title}?` }, [
      el("span", { text: "Delete this document?" }),
      el("button", { type: "button", class: "danger", text: "Delete", onclick: () => remove(doc) }),
      el("button", { type: "button", class: "secondary", text: "Cancel", onclick: () => { confirming = null; render(); } }),
    ]));
  } else {
    children.push(el("button", {
      type: "button", class: "icon delete", text: "Delete", title: `Delete ${title}`, "aria-label": `Delete ${title}`,
      onclick: () => { confirming = doc.id; render(); focusConfirm(); },
    }));
  }
  return el("li", { "data-id": doc.id, class: confirming === doc.id ? "confirming" : "" }, children);
}

function focusConfirm() {
  const button = document.querySelector("#documents .confirm button.danger");
  if (button) button.focus();
}

async function remove(doc) {
  confirming = null;
  try {
    await api(`/documents/${encodeURIComponent(doc.id)}`, { method: "DELETE" });
    $("library-status").textContent = `Deleted “${doc.title || doc.id}”.`;
  } catch (error) {
    $("library-status").textContent = String(error.message || error);
  }
  await refreshLibrary();
}

// One row per file: name, a progress bar, then what became of it.
async function uploadOne(file) {
  const bar = el("progress", { max: "1", value: "0", "aria-label": `upload of ${file.name}` });
  const note = el("span", { class: "upload-note", text: "uploading…" });
  const row = el("li", { class: "upload" }, [el("span", { class: "upload-name", text: file.name }), bar, note]);
  $("uploads").prepend(row);
  try {
    const summary = await uploadFile(file, (share) => {
      bar.value = share;
      if (share >= 1) note.textContent = "reading…";
    });
    bar.value = 1;
    const failed = (summary.failed || []).map((f) => f.reason).join("; ");
    if (failed) {
      row.classList.add("failed");
      note.textContent = `could not be read: ${failed}`;
    } else {
      row.classList.add("done");
      note.textContent = summary.added ? "added" : summary.replaced ? "replaced" : "already in the library";
      setTimeout(() => row.remove(), 6000);
    }
  } catch (error) {
    row.classList.add("failed");
    note.textContent = String(error.message || error);
  }
}

export async function upload(files) {
  for (const file of files) {
    await uploadOne(file);  // one at a time: the server writes one upload at a time anyway
    await refreshLibrary();
  }
}

export function setupLibrary() {
  $("library-filter").addEventListener("input", render);
  $("upload-files").addEventListener("change", (event) => {
    const files = [...event.target.files];
    event.target.value = "";
    if (files.length) upload(files);
  });
  const zone = $("dropzone");
  for (const name of ["dragenter", "dragover"]) {
    zone.addEventListener(name, (event) => { event.preventDefault(); zone.classList.add("over"); });
  }
  for (const name of ["dragleave", "drop"]) {
    zone.addEventListener(name, () => zone.classList.remove("over"));
  }
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    const files = [...(event.dataTransfer?.files || [])];
    if (files.length) upload(files);
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && confirming) { confirming = null; render(); }
  });
  setInterval(() => { if (document.visibilityState === "visible" && !confirming) refreshLibrary(); }, REFRESH_MS);
  window.addEventListener("focus", () => { if (!confirming) refreshLibrary(); });
  refreshLibrary();
}
