"""The links a client is given for a source: never a path on the server's disk.

A document ingested from a file has a ``file://`` link to it, which is useful in the terminal
of the machine that holds the file and a leak of that machine's folders to anyone else. Over
HTTP a source's link is its own web link when it has one (``http``/``https``), none when it has
none, and otherwise (a file, any other scheme) the server's own route for the document (``GET /v1/documents/{id}``), made absolute with the
address the client used.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any
from urllib.parse import quote, urlsplit

from navicite.generate.answer import Answer

_WEB_SCHEMES = frozenset({"http", "https"})


def document_url(base: str, doc_id: str) -> str:
    """The server's route for document ``doc_id``; ``base`` is the server's address as the client sees it."""
    return f"{base.rstrip('/')}/v1/documents/{quote(doc_id, safe='')}"


def public_link(link: str, doc_id: str, base: str) -> str:
    """``link`` if it is a web link or empty, else the document's route on this server (empty without an id)."""
    if not link or urlsplit(link).scheme.lower() in _WEB_SCHEMES:
        return link
    return document_url(base, doc_id) if doc_id else ""


def public_answer(answer: Answer, base: str) -> Answer:
    """``answer`` with each citation's link made public (:func:`public_link`)."""
    citations = [replace(c, link=public_link(c.link, c.doc_id, base)) for c in answer.citations]
    return replace(answer, citations=citations)


def public_record(record: dict[str, Any], base: str) -> dict[str, Any]:
    """A search hit's or a document's dict with its ``link`` made public (its id in ``doc_id`` or ``id``)."""
    if "link" not in record:
        return record
    return {**record, "link": public_link(record["link"] or "", record.get("doc_id") or record.get("id") or "", base)}
