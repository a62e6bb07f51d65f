// Building the page from data. Every piece of text that comes from documents, the model or the
// user goes in through textContent (el's "text"), never as markup.

export const $ = (id) => document.getElementById(id);

export function el(tag, props = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "text") node.textContent = String(value);
    else if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, String(value));
  }
  for (const child of children) if (child !== null && child !== undefined && child !== false) node.append(child);
  return node;
}

// Only web links become href; a "javascript:" link in a document stays text.
export function safeHref(link) {
  if (!link) return null;
  try {
    const url = new URL(link, window.location.href);
    return ["http:", "https:"].includes(url.protocol) ? url.href : null;
  } catch (_) {
    return null;
  }
}

export function fmt(seconds) {
  return typeof seconds === "number" ? seconds.toFixed(1) : "?";
}

// "p. 12, §3.3 Title": the page(s) and section a citation points at.
export function placeOf(pages, section) {
  const parts = [];
  if (pages && pages.length) {
    const first = pages[0], last = pages[pages.length - 1];
    parts.push(first === last ? `p. ${first}` : `pp. ${first}-${last}`);
  }
  if (section) parts.push(/^\d/.test(section) ? `§${section}` : section);
  return parts.join(", ");
}
