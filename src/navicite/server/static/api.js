// Talking to the server: same-origin requests, the optional API key, streamed events, uploads.

import { $ } from "./dom.js";

const KEY_STORE = "navicite.apiKey";

export function setKey(key) {
  sessionStorage.setItem(KEY_STORE, key);
}

export function headers(extra = {}) {
  const key = sessionStorage.getItem(KEY_STORE);
  return key ? { ...extra, Authorization: `Bearer ${key}` } : extra;
}

function needKey() {
  $("key-form").hidden = false;
  return new Error("this server needs an API key: enter it at the top of the page");
}

async function failure(response) {
  if (response.status === 401) return needKey();
  const body = await response.json().catch(() => ({}));
  return new Error(body.detail || `request failed (${response.status})`);
}

// JSON from /v1<path>; a JSON body is sent as application/json.
export async function api(path, options = {}) {
  const init = { ...options, credentials: "same-origin", headers: headers(options.headers) };
  if (options.json !== undefined) {
    init.body = JSON.stringify(options.json);
    init.headers = headers({ ...options.headers, "Content-Type": "application/json" });
  }
  const response = await fetch(`/v1${path}`, init);
  if (!response.ok) throw await failure(response);
  return response.json();
}

// The bytes of a document's kept original file.
export async function fileBytes(docId) {
  const response = await fetch(`/v1/files/${encodeURIComponent(docId)}`, { credentials: "same-origin", headers: headers() });
  if (!response.ok) throw await failure(response);
  return new Uint8Array(await response.arrayBuffer());
}

// POST /v1/ask with stream=true; yields {kind, data} events (EventSource only does GET).
export async function* askEvents(question) {
  const response = await fetch("/v1/ask", {
    method: "POST",
    credentials: "same-origin",
    headers: headers({ "Content-Type": "application/json" }),
    body: JSON.stringify({ question, stream: true }),
  });
  if (!response.ok) throw await failure(response);
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

// One file to POST /v1/documents, reporting upload progress (0..1); resolves with the ingest summary.
export function uploadFile(file, onProgress) {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    form.append("files", file, file.name);
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/v1/documents");
    for (const [name, value] of Object.entries(headers())) xhr.setRequestHeader(name, value);
    xhr.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    });
    xhr.addEventListener("load", () => {
      let body = {};
      try { body = JSON.parse(xhr.responseText); } catch (_) { /* not JSON: the status says enough */ }
      if (xhr.status === 401) reject(needKey());
      else if (xhr.status >= 400 && !(body && body.failed)) reject(new Error(body.detail || `upload failed (${xhr.status})`));
      else resolve(body);
    });
    xhr.addEventListener("error", () => reject(new Error("the upload did not reach the server")));
    xhr.send(form);
  });
}
