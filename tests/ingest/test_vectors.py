"""``embed_collection``: the collection's reranker texts embedded once, at ingest."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from navicite import embed, index
from navicite.config import Settings
from navicite.documents import Document
from navicite.ingest.vectors import embed_collection
from navicite.rerank.base import candidate_text
from navicite.vectors import open_store, text_key


def test_embeds_missing_texts_once_and_reports_progress(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path)
    lexical = index.create(settings)
    lexical.upsert([Document(id=f"d{i}", title=f"Title {i}", abstract=f"Abstract about topic {i}.", text="") for i in range(5)])
    store = open_store(tmp_path, settings.embed.model)
    seen: list[tuple[int, int]] = []
    report = embed_collection(lexical, store, embed.create(settings), batch_size=2, progress=lambda d, t: seen.append((d, t)))
    assert (report.documents, report.embedded) == (5, 5)
    assert seen == [(2, 5), (4, 5), (5, 5)]
    assert text_key(candidate_text(lexical.get("d3"))) in store.get_many([text_key(candidate_text(lexical.get("d3")))])
    again = embed_collection(lexical, store, embed.create(settings))
    assert (again.documents, again.embedded) == (5, 0)
    lexical.close()


def test_ingest_embed_flag_reports_the_count(tmp_path: Path) -> None:
    doc = tmp_path / "otters.md"
    doc.write_text("# Otters\n\nSea otters use stones as tools.", encoding="utf-8")
    home = tmp_path / "home"
    done = subprocess.run(
        [sys.executable, "-m", "navicite", "--home", str(home), "ingest", str(doc), "--embed", "--json"],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["embedded"] == 1
    assert (home / "vectors.sqlite").is_file()
