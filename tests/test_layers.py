"""Imports flow one way (DESIGN.md §1): cards → rules → core → env adapters → agents → train.py.

Every import statement of the project — module level or inside a function — is read with
``ast`` and resolved to a module; an import of a higher layer fails the test. ``rules/`` and
``core/`` import nothing from gymnasium, pettingzoo or torch; ``shengji_env`` never imports
torch or ``agents``; the environment package has no import cycle.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = ["cards", "rules", "core", "env", "agents", "train"]


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def project_files():
    files = sorted((ROOT / "shengji_env").rglob("*.py")) + sorted((ROOT / "agents").rglob("*.py"))
    return files + [ROOT / "train.py"]


def layer(module: str) -> int | None:
    """Layer index of a project module, None for other packages."""
    parts = module.split(".")
    if parts[0] == "train":
        return LAYERS.index("train")
    if parts[0] == "agents":
        return LAYERS.index("agents")
    if parts[0] != "shengji_env":
        return None
    if len(parts) == 1:
        return LAYERS.index("env")  # the package's __init__ re-exports the environments
    return LAYERS.index(parts[1]) if parts[1] in ("cards", "rules", "core") else LAYERS.index("env")


def is_package(module: str) -> bool:
    return (ROOT / Path(*module.split(".")) / "__init__.py").exists()


def imports(path: Path):
    """``(line, imported module)`` for every import in ``path`` (relative ones resolved)."""
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            for alias in node.names:  # `from pkg import submodule` imports the submodule
                sub = f"{target}.{alias.name}"
                yield node.lineno, sub if is_package(target) and (
                    (ROOT / Path(*sub.split("."))).with_suffix(".py").exists()
                    or is_package(sub)) else target


EDGES = [(module_name(p), line, target) for p in project_files() for line, target in imports(p)]


@pytest.mark.parametrize("path", project_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_upward_import(path):
    me = module_name(path)
    mine = layer(me)
    for line, target in imports(path):
        theirs = layer(target)
        if theirs is not None:
            assert theirs <= mine, (f"{path.relative_to(ROOT)}:{line} imports {target} "
                                    f"({LAYERS[theirs]}) from layer {LAYERS[mine]}")


@pytest.mark.parametrize("path", [p for p in project_files() if p.parts[-2] in ("rules", "core")
                                  or p.name == "cards.py"], ids=lambda p: str(p.relative_to(ROOT)))
def test_rules_and_core_use_no_framework(path):
    for line, target in imports(path):
        assert target.split(".")[0] not in ("gymnasium", "pettingzoo", "torch"), \
            f"{path.relative_to(ROOT)}:{line} imports {target}"


def test_environment_package_never_imports_torch_or_agents():
    for me, line, target in EDGES:
        if me.startswith("shengji_env"):
            assert target.split(".")[0] not in ("torch", "agents"), f"{me}:{line} imports {target}"


def test_environment_package_has_no_import_cycle():
    graph: dict[str, set[str]] = {}
    for me, _, target in EDGES:
        if me.startswith("shengji_env") and target.startswith("shengji_env") and target != me:
            graph.setdefault(me, set()).add(target)
    # the package __init__ files re-export their children; an edge into a package is an edge
    # into its __init__, which is allowed to import its own children
    state: dict[str, int] = {}

    def visit(node, path):
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if node.startswith(nxt + "."):  # a child importing its parent package's name
                continue
            if state.get(nxt) == 1:
                raise AssertionError("import cycle: " + " -> ".join(path + [nxt]))
            if nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])


def test_the_layer_test_catches_an_upward_import(tmp_path):
    """The resolver is not vacuous: a rules module importing core is an upward import."""
    assert layer("shengji_env.core.engine") > layer("shengji_env.rules.play")
    assert layer("agents.arena") > layer("shengji_env.aec") > layer("shengji_env.core.state")
    assert {t for _, t in imports(ROOT / "shengji_env" / "core" / "engine.py")} >= {
        "shengji_env.core.hand", "shengji_env.rules.actions"}
