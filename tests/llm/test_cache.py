"""The SQLite answer cache: keys, persistence, threads and processes."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

from navicite.llm.cache import AnswerCache, CachedAnswer, cache_key


def _answer(text: str) -> CachedAnswer:
    return CachedAnswer(text, prompt_tokens=10, completion_tokens=2)


def test_key_depends_on_every_part() -> None:
    base = cache_key("embedded", "m", {"messages": [["user", "hi"]], "temperature": 0.1, "schema": None})
    assert base == cache_key("embedded", "m", {"schema": None, "temperature": 0.1, "messages": [["user", "hi"]]})
    assert base != cache_key("openai", "m", {"messages": [["user", "hi"]], "temperature": 0.1, "schema": None})
    assert base != cache_key("embedded", "m2", {"messages": [["user", "hi"]], "temperature": 0.1, "schema": None})
    assert base != cache_key("embedded", "m", {"messages": [["user", "hi!"]], "temperature": 0.1, "schema": None})
    assert base != cache_key("embedded", "m", {"messages": [["user", "hi"]], "temperature": 0.2, "schema": None})
    assert base != cache_key("embedded", "m", {"messages": [["user", "hi"]], "temperature": 0.1, "schema": {"type": "object"}})


def test_get_put_clear_stats(tmp_path: Path) -> None:
    cache = AnswerCache(tmp_path / "cache" / "llm.sqlite")
    assert cache.get("k") is None
    assert not cache.path.exists()  # reading does not create the file
    cache.put("k", backend="embedded", model="m", stage="draft", answer=_answer("hello"))
    cache.put("k2", backend="embedded", model="m", stage="judge", answer=_answer("yes"))
    assert cache.get("k") == _answer("hello")
    assert AnswerCache(cache.path).get("k2") == _answer("yes")  # persisted
    stats = cache.stats()
    assert stats.entries == 2
    assert stats.by_model == {"embedded:m": 2}
    assert stats.by_stage == {"draft": 1, "judge": 1}
    assert stats.bytes > 0
    assert cache.clear() == 2
    assert cache.get("k") is None
    assert cache.stats().entries == 0


def test_threads_share_one_file(tmp_path: Path) -> None:
    cache = AnswerCache(tmp_path / "llm.sqlite")

    def write(worker: int) -> None:
        for i in range(25):
            cache.put(f"{worker}-{i}", backend="b", model="m", stage="s", answer=_answer(f"{worker}/{i}"))

    threads = [threading.Thread(target=write, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert cache.stats().entries == 100
    assert cache.get("3-24") == _answer("3/24")


_WRITER = """
import sys
from pathlib import Path
from navicite.llm.cache import AnswerCache, CachedAnswer
cache = AnswerCache(Path(sys.argv[1]))
for i in range(30):
    cache.put(f"p{sys.argv[2]}-{i}", backend="b", model="m", stage="s", answer=CachedAnswer(str(i), 1, 1))
"""


def test_processes_share_one_file(tmp_path: Path) -> None:
    path = tmp_path / "llm.sqlite"
    workers = [subprocess.Popen([sys.executable, "-c", _WRITER, str(path), str(w)]) for w in range(2)]
    assert [w.wait(timeout=120) for w in workers] == [0, 0]
    assert AnswerCache(path).stats().entries == 60


def test_token_alternatives_are_stored_with_the_answer(tmp_path: Path) -> None:
    cache = AnswerCache(tmp_path / "llm.sqlite")
    cache.put("k", backend="b", model="m", stage="s", answer=CachedAnswer("yes", 3, 1, ((" true", {" true": -0.1, " false": -2.4}),)))
    cache.put("plain", backend="b", model="m", stage="s", answer=_answer("no"))
    assert cache.get("k").alternatives == ((" true", {" true": -0.1, " false": -2.4}),)
    assert cache.get("plain").alternatives == ()


def test_a_cache_written_before_alternatives_existed_is_read_and_extended(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "llm.sqlite"
    with sqlite3.connect(path) as conn:  # the table as earlier versions made it
        conn.execute("CREATE TABLE answers (key TEXT PRIMARY KEY, backend TEXT NOT NULL, model TEXT NOT NULL, stage TEXT NOT NULL, "
                     "text TEXT NOT NULL, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL, created REAL NOT NULL)")
        conn.execute("INSERT INTO answers VALUES ('old', 'b', 'm', 's', 'kept', 5, 1, 0.0)")
    cache = AnswerCache(path)
    assert cache.get("old") == CachedAnswer("kept", 5, 1)
    cache.put("new", backend="b", model="m", stage="s", answer=CachedAnswer("x", 1, 1, (("x", {"x": 0.0}),)))
    assert cache.get("new").alternatives == (("x", {"x": 0.0}),)
