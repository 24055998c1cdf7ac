"""The layout holds: bridge/ is a stack of packages, each importing only the ones below it;
adapters use bridge's public face; no import circle anywhere, TYPE_CHECKING imports included."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

LAYERS = ["model", "text", "runtime", "store", "core", "http", "agent", "mcp", "server", "cli"]
"""bridge/'s packages from the bottom up (docs/architecture.md draws them): each imports only
itself and the packages before it in this list."""
THIRD_PARTY = {
    # rfc8785: canonical JSON for an approval's payload hash; jsonschema: its argumentsSchema
    "model": {"pydantic", "pydantic_core", "rfc8785", "jsonschema"},
    "text": {"babel"},
    "runtime": {"structlog", "httpx"},
    "store": {"aiosqlite", "asyncpg"},
    "core": set(),
}
"""What each of the pure and core packages may import besides the standard library, adding to
what the ones below it may; the packages above `core` face the world and take what they need."""
WEB = {"fastapi", "starlette", "uvicorn", "mcp", "anyio", "httpx_sse"}
NO_WEB = {"model", "text", "runtime", "store", "core", "agent"}
"""Packages that never load a web framework or the MCP SDK (the agent's client included)."""
TOP_LEVEL = {"__init__.py", "__main__.py", *LAYERS}
PUBLIC = {"bridge", "bridge.http"}
"""What adapters may import: the public face, and the web helpers for their own routes."""


def imports(path: Path) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement in a file, wherever it stands (functions, TYPE_CHECKING)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def targets(node: ast.Import | ast.ImportFrom, here: str, is_package: bool) -> list[str]:
    """The absolute names a statement imports: modules, and `module.name` for `from` imports."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = here.split(".") if is_package else here.split(".")[:-1]
        package = package[: len(package) - (node.level - 1)]
        base = ".".join(package + ([node.module] if node.module else []))
    return [base] + [f"{base}.{alias.name}" for alias in node.names]


def source_files(*folders: str) -> list[Path]:
    return [p for folder in folders for p in sorted((ROOT / folder).rglob("*.py"))
            if "__pycache__" not in p.parts]


def layer_of(path: Path) -> str | None:
    parts = path.relative_to(ROOT / "bridge").parts
    return parts[0] if len(parts) > 1 else None


def test_bridge_has_a_few_entries_each_a_layer() -> None:
    entries = {p.name for p in (ROOT / "bridge").iterdir()  # a folder left with only caches
               if p.name != "__pycache__" and (p.is_file() or any(p.rglob("*.py")))}
    assert len(entries) <= 12, sorted(entries)
    assert entries <= TOP_LEVEL, f"bridge/ holds {sorted(entries - TOP_LEVEL)}: put it in a layer"


def test_every_package_imports_only_the_ones_below_it() -> None:
    for path in source_files("bridge"):
        layer = layer_of(path)
        if layer is None:  # the public face and `python -m bridge` sit on top
            continue
        below = set(LAYERS[: LAYERS.index(layer) + 1])
        allowed = set().union(*(THIRD_PARTY.get(name, set()) for name in below))
        for node in imports(path):
            for name in targets(node, module_name(path), path.name == "__init__.py")[:1]:
                top, _, rest = name.partition(".")
                where = f"{path.relative_to(ROOT)} ({layer})"
                if top == "adapters":
                    raise AssertionError(f"{where} imports {name}: bridge/ never knows its adapters")
                if top == "bridge":
                    inner = rest.split(".")[0]
                    assert inner in below, f"{where} imports {name}, a layer above it"
                elif layer in THIRD_PARTY and top not in sys.stdlib_module_names | {"__future__"}:
                    assert top in allowed, f"{where} imports {name}"
                if layer in NO_WEB:
                    assert top not in WEB, f"{where} imports {name}"


def test_adapters_use_only_the_public_face() -> None:
    for path in source_files("adapters"):
        for node in imports(path):
            name = targets(node, module_name(path), path.name == "__init__.py")[0]
            if name.split(".")[0] == "bridge":
                assert name in PUBLIC, f"{path.relative_to(ROOT)} imports {name}; use `from bridge import …`"


def graph() -> dict[str, set[str]]:
    """Module → the modules it imports, in bridge/ and adapters/. An import of a package's
    `__init__` is not an arrow: the face re-exports, it is not a step in the chain."""
    files = {module_name(p): p for p in source_files("bridge", "adapters")}
    arrows: dict[str, set[str]] = {}
    for name, path in files.items():
        if path.name == "__init__.py":
            continue
        found: set[str] = set()
        for node in imports(path):
            for target in targets(node, name, False):
                while target and target not in files:
                    target = target.rpartition(".")[0]
                if target and target != name and files[target].name != "__init__.py":
                    found.add(target)
        arrows[name] = found
    return arrows


def circles(arrows: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    groups: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in arrows.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(arrows):
        if v not in index:
            visit(v)
    return groups


def test_no_import_circles() -> None:
    assert circles(graph()) == []


def test_the_circle_finder_finds_one() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_modules_stay_small() -> None:
    for path in source_files("bridge", "adapters"):
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
    """Shared test helpers live in support modules, never in a test or conftest."""
    for path in source_files("tests"):
        for node in imports(path):
            names = [t.rpartition(".")[2] for t in targets(node, module_name(path), False)]
            bad = [n for n in names if n.startswith("test_") or n == "conftest"]
            assert not bad, f"{path.relative_to(ROOT)} imports {bad}; move it to a support module"


def test_no_two_test_modules_share_a_name() -> None:
    """A test module's name says what it tests, once: `-k`, reports and a reader's search find
    one file."""
    seen: dict[str, Path] = {}
    for path in source_files("tests"):
        if path.name.startswith("test_"):
            other = seen.setdefault(path.name, path)
            assert other == path, f"{path.relative_to(ROOT)} and {other.relative_to(ROOT)}"


def test_tests_of_bridge_mirror_its_packages() -> None:
    """tests/bridge/<package>/test_<module>.py tests bridge/<package>/<module>(.py or package),
    `test_<module>_<aspect>.py` one aspect of it (`_replicas`: across replicas), and
    `test_<package>.py` the package as a whole."""
    for path in (ROOT / "tests" / "bridge").rglob("test_*.py"):
        package = path.parent.relative_to(ROOT / "tests" / "bridge")
        assert len(package.parts) == 1 and package.parts[0] in LAYERS, \
            f"{path.relative_to(ROOT)}: put it in the folder of the package it tests"
        words = path.stem.removeprefix("test_").split("_")
        names = ["_".join(words[:n]) for n in range(1, len(words) + 1)]
        home = ROOT / "bridge" / package
        assert any(name == package.parts[0] or (home / f"{name}.py").exists()
                   or (home / name).is_dir() for name in names), \
            f"{path.relative_to(ROOT)} names no module of {home}"
