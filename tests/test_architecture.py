"""Dependency direction and public names: bridge/ never imports adapters/; adapters use `bridge`."""

from __future__ import annotations

import ast
from pathlib import Path

import bridge

ROOT = Path(__file__).resolve().parent.parent


def imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
    return found


def test_bridge_never_imports_adapters() -> None:
    for path in (ROOT / "bridge").rglob("*.py"):
        bad = [m for m in imports(path) if m == "adapters" or m.startswith("adapters.")]
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_adapters_use_only_bridge_public_names() -> None:
    for path in (ROOT / "adapters").rglob("*.py"):
        bad = [m for m in imports(path) if m.startswith("bridge.")]
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}; use `from bridge import …`"


def test_bridge_all_is_explicit_and_importable() -> None:
    assert sorted(bridge.__all__) == sorted(set(bridge.__all__))
    for name in bridge.__all__:
        assert hasattr(bridge, name), name


def test_every_adapter_has_the_same_shape() -> None:
    for folder in sorted(p for p in (ROOT / "adapters").iterdir() if p.is_dir()):
        if folder.name.startswith("__"):
            continue
        files = {p.name for p in folder.glob("*.py")}
        missing = {"__init__.py", "adapter.py", "config.py", "inbound.py", "render.py"} - files
        assert not missing, f"adapters/{folder.name} lacks {sorted(missing)}"


def imported_modules(path: Path) -> list[str]:
    """Every module a file names, counting `from package import module` as that module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            found += [node.module or ""] + [alias.name for alias in node.names]
    return found


def test_no_test_module_imports_another() -> None:
    """Shared test helpers live in support modules (flows.py, harness.py), never in a test or conftest."""
    for path in (ROOT / "tests").rglob("*.py"):
        names = [m.rpartition(".")[2] for m in imported_modules(path)]
        bad = [n for n in names if n.startswith("test_") or n == "conftest"]
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}; move what it needs to a support module"
