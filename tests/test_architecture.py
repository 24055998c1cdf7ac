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


def test_every_adapter_speaks_the_same_vocabulary() -> None:
    """`ids.py` (surface_for, message_ref, parse_ref), `inbound.event_from`, `render.prompt`
    and `render.final`, and its config through `adapter_section`: knowing one is knowing all."""
    import importlib

    for folder in sorted(p for p in (ROOT / "adapters").iterdir() if p.is_dir()):
        if folder.name.startswith("__"):
            continue
        name = f"adapters.{folder.name}"
        for module, names in (("ids", ("surface_for", "message_ref", "parse_ref")),
                              ("inbound", ("event_from",)), ("render", ("prompt", "final"))):
            found = importlib.import_module(f"{name}.{module}")
            missing = [n for n in names if not callable(getattr(found, n, None))]
            assert not missing, f"{name}.{module} lacks {missing}"
        assert "adapter_section(" in (folder / "__init__.py").read_text(), \
            f"{name} reads its config without adapter_section"
