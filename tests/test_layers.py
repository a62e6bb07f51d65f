"""The layers of docs/architecture.md hold: import-linter checks the contracts in pyproject.toml."""

from __future__ import annotations

import pkgutil
import re
import tomllib
from pathlib import Path

import pytest
from importlinter.cli import lint_imports

import navicite

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def _contracts() -> list[dict]:
    return tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]


def test_import_contracts_hold(capsys: pytest.CaptureFixture[str]) -> None:
    code = lint_imports(config_filename=str(PYPROJECT), no_cache=True, no_logo=True)
    assert code == 0, capsys.readouterr().out  # the report names each import that breaks a contract


def test_every_module_of_the_package_has_a_layer() -> None:
    [layers] = [c["layers"] for c in _contracts() if c["type"] == "layers"]
    placed = {name.strip().removeprefix("navicite.") for layer in layers for name in re.split(r"[|:]", layer)}
    modules = {m.name for m in pkgutil.iter_modules(navicite.__path__)} - {"__main__"}
    assert modules - placed == set(), "a new top-level module needs a place in the layers contract"
    assert placed - modules == set()
