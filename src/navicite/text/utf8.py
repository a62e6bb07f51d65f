"""Text that can be written as UTF-8: lone surrogates replaced.

A Python ``str`` can hold code points that UTF-8 cannot encode: lone surrogates, which is
how Python keeps the undecodable bytes of a command-line argument or a file name
(``'\\xff'`` arrives as ``'\\udcff'``) and what a JSON ``"\\ud800"`` escape becomes. The
index (tantivy), the embedder's tokenizer and every JSON response refuse them, so text from
outside (a question, a query, a document's fields) passes through :func:`utf8_safe` first.
"""

from __future__ import annotations


def utf8_safe(text: str) -> str:
    """The text with lone surrogates (from undecodable bytes) replaced by ``?``; other text unchanged."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")
    return text
