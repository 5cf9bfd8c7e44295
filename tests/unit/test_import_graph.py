"""The package's import graph, read from the source with `ast` (function-level imports counted, as Python runs them
sooner or later): no cycles, no service reaching into another's private names, boto3 only where the store and the
adapters live. A cycle is where a change in one service silently becomes a call into another: the domain's events
(issue 37) are the way one change leads to another."""
from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "chalicelib"
# boto3 (and botocore) belong to the store and to the adapters that talk to AWS, nowhere else
BOTO_ALLOWED = ("chalicelib.store.", "chalicelib.payments.", "chalicelib.publish.", "chalicelib.config",
                "chalicelib.installation", "chalicelib.messages.", "chalicelib.aws_clients")



def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _type_checking_only(tree: ast.AST) -> set[int]:
    """ids of import nodes under `if TYPE_CHECKING:` — never run, so never a cycle."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    return skipped


def _imports(name: str, path: Path, modules: dict[str, Path]):
    """(imported module, names taken from it) for every import the module can run."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _type_checking_only(tree)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, ()
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                if submodule in modules:          # `from . import results` imports the module results
                    yield submodule, ()
                else:
                    yield target, (alias.name,)


@functools.cache
def _graph():
    modules = _modules()
    edges: dict[str, set[str]] = {m: set() for m in modules}
    taken: list[tuple[str, str, str]] = []
    external: list[tuple[str, str]] = []
    for name, path in modules.items():
        for target, names in _imports(name, path, modules):
            if target in modules and target != name:
                edges[name].add(target)
                taken += [(name, target, n) for n in names]
            elif target.split(".")[0] in ("boto3", "botocore"):
                external.append((name, target))
    return edges, taken, external


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_a_cycle_and_only_cycles():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert _cycles(edges) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles():
    edges, _, _ = _graph()
    assert len(edges) > 100, "the walk found the package's modules"
    cycles = _cycles(edges)
    assert cycles == [], "\n".join(" ↔ ".join(c) for c in cycles)


def test_nothing_takes_a_services_private_names():
    _, taken, _ = _graph()
    private = sorted(f"{who} takes {name} from {where}" for who, where, name in taken
                     if where.startswith(PACKAGE + ".services.") and name.startswith("_") and not name.startswith("__"))
    assert private == [], "\n".join(private)


def test_boto3_only_in_the_store_and_the_adapters():
    _, _, external = _graph()
    outside = sorted({who for who, _ in external if not who.startswith(BOTO_ALLOWED) and who not in BOTO_ALLOWED})
    assert outside == [], outside
