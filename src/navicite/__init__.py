"""navicite: question answering over document collections with sentence-level citations.

``from navicite import Collection`` is the Python API (see :mod:`navicite.api`).
"""

from typing import Any

from navicite.config import Settings, load_settings
from navicite.documents import Document, Passage, Segment

__all__ = ["Answer", "Citation", "Collection", "Document", "Passage", "SearchHit", "Segment", "Settings", "load_settings"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    # Imported on first use: the API pulls in the whole pipeline, which `navicite --help` does not need.
    if name in ("Collection", "SearchHit"):
        from navicite import api

        return getattr(api, name)
    if name in ("Answer", "Citation"):
        from navicite.generate import answer

        return getattr(answer, name)
    raise AttributeError(f"module 'navicite' has no attribute {name!r}")
