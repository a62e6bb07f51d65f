// Finding a quoted sentence in text that was extracted differently: a PDF's text layer splits it
// into runs, breaks words with hyphens at line ends, writes ligatures as one character (or, in
// fonts whose ligature glyphs carry no text, as nothing), and spaces it its own way.
//
// Both sides are reduced to lower-case letters and digits (accents and ligature characters
// decomposed), and the letter groups a ligature stands for (ff, fi, fl, ffi, ffl) are dropped
// on both sides, so "Coefficients", "Coeﬃcients" and "Coecients" read the same. Every kept
// character remembers where it came from, so a match maps back onto the original pieces.

const KEEP = /[\p{L}\p{N}]/u;
const LIGATURE = /ffi|ffl|ff|fi|fl/g;
const TRAILING = /[.!?;:,)\]"'\u2019\u201d\u00bb]/;

// pieces: array of strings. Returns {text, at} where at[i] = [piece, offset] of text[i].
export function fold(pieces) {
  let text = "";
  const at = [];
  pieces.forEach((piece, index) => {
    for (let offset = 0; offset < piece.length; ) {
      const point = piece.codePointAt(offset);
      const ch = String.fromCodePoint(point);
      for (const part of ch.normalize("NFKD").toLowerCase()) {
        if (KEEP.test(part)) {
          text += part;
          at.push([index, offset, ch.length]);
        }
      }
      offset += ch.length;
    }
  });
  // Drop ligature letter groups (keeping the map in step).
  let out = "";
  const outAt = [];
  let last = 0;
  for (const m of text.matchAll(LIGATURE)) {
    out += text.slice(last, m.index);
    outAt.push(...at.slice(last, m.index));
    last = m.index + m[0].length;
  }
  out += text.slice(last);
  outAt.push(...at.slice(last));
  return { text: out, at: outAt };
}

// Where the quote stands in the pieces: {start: [piece, offset], end: [piece, offset]} (end
// exclusive), or null. A quote that is not found whole is looked for without a few characters at
// either end (a page break or a footnote mark may cut into it).
export function locate(pieces, quote) {
  const hay = fold(pieces);
  const needle = fold([quote]).text;
  if (needle.length < 4) return null;
  const trims = [0, 3, 8].map((n) => [n, needle.slice(n, needle.length - n)]);
  for (const [, part] of trims) {
    if (part.length < 4) continue;
    const found = hay.text.indexOf(part);
    if (found >= 0) {
      const first = hay.at[found];
      const last = hay.at[found + part.length - 1];
      const run = pieces[last[0]];
      let end = last[1] + last[2];
      // The sentence's closing punctuation, where the quote has it too (letters alone were matched).
      if (TRAILING.test(quote.trimEnd().slice(-1))) while (end < run.length && TRAILING.test(run[end])) end++;
      return { start: [first[0], first[1]], end: [last[0], end] };
    }
  }
  return null;
}

// The [start, end) offsets of a located range within piece i, or null when it does not touch it.
export function within(range, i, pieceLength) {
  if (!range || i < range.start[0] || i > range.end[0]) return null;
  const from = i === range.start[0] ? range.start[1] : 0;
  const to = i === range.end[0] ? range.end[1] : pieceLength;
  return to > from ? [from, to] : null;
}
