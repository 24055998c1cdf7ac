"""Dependency direction and public names: bridge/ never imports adapters/; adapters use `bridge`;
inside bridge/, the floors (docs/architecture.md) only import downwards."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import bridge

ROOT = Path(__file__).resolve().parent.parent


def imports(path: Path, names: bool = False) -> list[str]:
    """The absolute modules a file imports; with `names`, also relative ones and every name
    taken from them (so `from pkg import module` counts that module)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and names:
            found += [node.module or ""] + [alias.name for alias in node.names]
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


GROUND = {"contract", "validation", "labels", "parsing", "rendering", "prompts", "ids", "inbound",
          "types", "i18n", "backoff", "security", "errors", "splitting", "sections", "version",
          "text"}
"""Words and shapes: the contract, the parser, the renderer, the adapter protocols."""
CORE = {"broker", "inbox", "outbound", "onway", "reach", "selections", "queries", "surfaces",
        "pending", "deadlines", "events", "leader", "config", "config_keys", "plugins", "logs",
        "store", "tls"}
"""The lifecycle of a question, and the store it is kept in."""
INTERFACES = {"http", "mcp", "composition", "cli", "cli_agent", "doctor", "client", "__init__",
              "__main__"}
"""How agents, people and operators reach the core, and the root that wires it together."""
THIRD_PARTY = {
    "ground": {"pydantic", "pydantic_core", "babel"},
    "core": {"pydantic", "pydantic_core", "babel", "structlog", "httpx", "aiosqlite", "asyncpg"},
}
WEB = {"fastapi", "starlette", "uvicorn", "mcp", "anyio", "httpx_sse"}


def floor_of(path: Path) -> str:
    top = path.relative_to(ROOT / "bridge").parts[0].removesuffix(".py")
    for floor, names in (("ground", GROUND), ("core", CORE), ("interfaces", INTERFACES)):
        if top in names:
            return floor
    raise AssertionError(f"bridge/{top} is on no floor: add it to GROUND, CORE or INTERFACES "
                         "in this test and to docs/architecture.md")


def test_every_bridge_module_imports_only_its_floor_and_below() -> None:
    below = {"ground": GROUND, "core": GROUND | CORE}
    for path in (ROOT / "bridge").rglob("*.py"):
        floor = floor_of(path)
        if floor == "interfaces":
            continue
        for name in imports(path):
            top, _, rest = name.partition(".")
            if top == "bridge":
                inner = rest.split(".")[0]
                assert inner in below[floor], f"{path.relative_to(ROOT)} ({floor}) imports {name}"
            elif top not in sys.stdlib_module_names and top != "__future__":
                assert top in THIRD_PARTY[floor], f"{path.relative_to(ROOT)} ({floor}) imports {name}"


def test_no_web_framework_below_the_interfaces() -> None:
    for path in (ROOT / "bridge").rglob("*.py"):
        if floor_of(path) == "interfaces":
            continue
        bad = [m for m in imports(path) if m.split(".")[0] in WEB]
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_modules_stay_small() -> None:
    for folder in ("bridge", "adapters"):
        for path in (ROOT / folder).rglob("*.py"):
            lines = len(path.read_text(encoding="utf-8").splitlines())
            assert lines <= 300, f"{path.relative_to(ROOT)} has {lines} lines; split it by concept"


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


def test_no_test_module_imports_another() -> None:
    """Shared test helpers live in support modules (flows.py, harness.py), never in a test or conftest."""
    for path in (ROOT / "tests").rglob("*.py"):
        names = [m.rpartition(".")[2] for m in imports(path, names=True)]
        bad = [n for n in names if n.startswith("test_") or n == "conftest"]
        assert not bad, f"{path.relative_to(ROOT)} imports {bad}; move what it needs to a support module"
