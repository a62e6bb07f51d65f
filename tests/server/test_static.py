"""The page's own scripts and the vendored pdf.js: no markup sinks, pinned, licensed, small, served as scripts."""

from __future__ import annotations

import re

from navicite.server.app import STATIC_DIR

VENDOR = STATIC_DIR / "vendor" / "pdfjs"
SINKS = ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "DOMParser")


def test_no_script_of_the_page_writes_markup():
    """Document text reaches the page only through textContent, in every module of the page."""
    scripts = sorted(STATIC_DIR.glob("*.js"))
    assert {p.name for p in scripts} >= {"app.js", "answer.js", "viewer.js", "library.js", "match.js", "dom.js", "api.js"}
    for path in scripts:
        text = path.read_text(encoding="utf-8")
        for sink in SINKS:
            assert sink not in text, (path.name, sink)
        assert not re.search(r"setAttribute\(\s*['\"]on", text), path.name


def test_pdfjs_is_vendored_pinned_licensed_and_small():
    readme = (VENDOR / "README.md").read_text(encoding="utf-8")
    version = re.search(r"\*\*(\d+\.\d+\.\d+)\*\*", readme).group(1)
    for build in ("pdf.min.mjs", "pdf.worker.min.mjs"):  # each build names its version
        assert f'"{version}"' in (VENDOR / build).read_text(encoding="utf-8"), build
    assert "Apache License" in (VENDOR / "LICENSE").read_text(encoding="utf-8")
    assert sum(p.stat().st_size for p in VENDOR.iterdir()) < 3 * 2**20


def test_modules_are_served_as_javascript_under_the_page_policy(client):
    for path in ("/static/app.js", "/static/viewer.js", "/static/vendor/pdfjs/pdf.min.mjs",
                 "/static/vendor/pdfjs/pdf.worker.min.mjs"):
        reply = client.get(path)
        assert reply.status_code == 200, path
        assert reply.headers["content-type"].startswith("text/javascript"), (path, reply.headers["content-type"])
        assert reply.headers["x-content-type-options"] == "nosniff"
    page = client.get("/").text
    assert '<script type="module" src="/static/app.js">' in page
