"""The import rules of the spine (issue 8), checked on the source with
``ast``, so adding a forbidden import makes this file fail:

- ``repl/`` (``clayx_repl``) imports only the library's public faces
  (:data:`REPL_PUBLIC`), anywhere in a file (inside functions too), never
  ``clayx.analysis``, ``clayx.frontend`` or a helper module such as
  ``clayx.directives.common``;
- no import cycle among the modules of ``clayx`` (imports at module level;
  issue 8 cites the former ``clayx → codegen → codegen.c → session →
  clayx``);
- no private name imported across modules (``from x import _y`` where ``x``
  is another module).

The checker is tried first on small synthetic module graphs, so a checker
that finds nothing cannot pass unnoticed.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: What ``repl/`` may import from the library.  ``clayx.run`` (timing the
#: original against the current code, ``:run``/``--run``) is public: the
#: prompt and the command line drive it as a user would.  ``clayx.view`` is
#: the display face of a session (labels, β-tree, schedule diff, dependence
#: rows, refusal locations, embedded scripts, reading files).  ``clayx.tune``
#: (``--tune``) and ``clayx.gpu`` (``--emit cuda``) are public faces like
#: ``clayx.run``: one entry point each for the command line.
REPL_PUBLIC = frozenset({
    "clayx", "clayx.session", "clayx.errors", "clayx.script", "clayx.verify",
    "clayx.model", "clayx.directives", "clayx.directives.registry", "clayx.codegen",
    "clayx.run", "clayx.view", "clayx.tune", "clayx.gpu",
})


# --- the checker ------------------------------------------------------------------------

def module_sources(root: Path, package: str) -> dict[str, tuple[str, bool]]:
    """``{module name: (source, is_package)}`` for every ``.py`` file under
    ``root`` (the directory of ``package``)."""
    out = {}
    for p in sorted(root.rglob("*.py")):
        rel = p.relative_to(root).with_suffix("")
        parts = [package, *rel.parts]
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        out[".".join(parts)] = (p.read_text(), is_pkg)
    return out


def _resolve(module: str, is_pkg: bool, level: int, target: str | None) -> str:
    if level == 0:
        return target or ""
    base = module.split(".")
    if not is_pkg:
        base = base[:-1]
    base = base[:len(base) - (level - 1)] if level > 1 else base
    return ".".join(base + ([target] if target else []))


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING"
            or isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imports(module: str, source: str, is_pkg: bool, known: set[str], *,
            top_level_only: bool) -> list[tuple[str, tuple[str, ...], int]]:
    """The imports of a module: ``(imported module, names, line)``.  ``from
    M import n`` gives ``M.n`` when that is a known module (no names), else
    ``M`` with the names.  ``top_level_only``: imports at module level
    (not inside functions or classes; ``if``/``try`` blocks count)."""
    tree = ast.parse(source)
    nodes = []
    if top_level_only:
        todo = list(tree.body)
        while todo:
            n = todo.pop(0)
            if isinstance(n, (ast.Import, ast.ImportFrom)):
                nodes.append(n)
            elif isinstance(n, ast.If) and _type_checking(n.test):
                todo.extend(n.orelse)           # typing-only imports never run
            elif isinstance(n, (ast.If, ast.Try)):
                todo.extend(ast.iter_child_nodes(n))
            elif isinstance(n, (ast.ExceptHandler,)):
                todo.extend(n.body)
    else:
        nodes = [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]
    out = []
    for n in nodes:
        if isinstance(n, ast.Import):
            out += [(a.name, (), n.lineno) for a in n.names]
            continue
        base = _resolve(module, is_pkg, n.level, n.module)
        plain = []
        for a in n.names:
            sub = f"{base}.{a.name}"
            if sub in known:
                out.append((sub, (), n.lineno))
            else:
                plain.append(a.name)
        if plain:
            out.append((base, tuple(plain), n.lineno))
    return out


def graph(sources: dict[str, tuple[str, bool]], prefix: str) -> dict[str, set[str]]:
    """Module-level import edges among the modules whose name starts with
    ``prefix`` (a module importing itself, its package's ``__init__`` for a
    submodule of it, does not count)."""
    known = set(sources)
    g: dict[str, set[str]] = {m: set() for m in sources if m.startswith(prefix)}
    for m in g:
        src, is_pkg = sources[m]
        for target, _names, _line in imports(m, src, is_pkg, known, top_level_only=True):
            if target in g and target != m:
                g[m].add(target)
    return g


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module
    (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return out


def private_imports(sources: dict[str, tuple[str, bool]]) -> list[str]:
    """``module:line: from x import _y`` for every private name (one
    underscore, not a dunder) imported from another module."""
    known = set(sources)
    bad = []
    for m, (src, is_pkg) in sources.items():
        for target, names, line in imports(m, src, is_pkg, known, top_level_only=False):
            for n in names:
                if n.startswith("_") and not n.startswith("__") and target != m:
                    bad.append(f"{m}:{line}: from {target} import {n}")
            leaf = target.rsplit(".", 1)[-1]
            if target in known and leaf.startswith("_") \
                    and not leaf.startswith("__") and target.rsplit(".", 1)[0] != \
                    (m if is_pkg else m.rsplit(".", 1)[0]):
                bad.append(f"{m}:{line}: imports the private module {target}")
    return bad


def forbidden(sources: dict[str, tuple[str, bool]], prefix: str, library: str,
              allowed: frozenset[str], library_modules=()) -> list[str]:
    """``module:line: target`` for every import, anywhere in a module under
    ``prefix``, of a ``library`` module outside ``allowed``
    (``library_modules``: the library's module names, so that ``from lib
    import analysis`` is known as the module ``lib.analysis``)."""
    known = set(sources) | set(allowed) | set(library_modules)
    bad = []
    for m, (src, is_pkg) in sources.items():
        if not m.startswith(prefix):
            continue
        for target, _names, line in imports(m, src, is_pkg, known, top_level_only=False):
            if (target == library or target.startswith(library + ".")) \
                    and target not in allowed:
                bad.append(f"{m}:{line}: {target}")
    return bad


def _library_sources() -> dict[str, tuple[str, bool]]:
    return module_sources(ROOT / "clayx", "clayx")


def _repl_sources() -> dict[str, tuple[str, bool]]:
    return module_sources(ROOT / "repl", "clayx_repl")


# --- the checker on synthetic graphs ------------------------------------------------------

def _synthetic(files: dict[str, str]) -> dict[str, tuple[str, bool]]:
    return {name.removesuffix(".__init__"): (src, name.endswith("__init__"))
            for name, src in files.items()}


def test_checker_finds_the_cycle_issue_8_cites():
    src = _synthetic({
        "pkg.__init__": "from .session import Session\n",
        "pkg.session": "from .codegen import generate\n",
        "pkg.codegen.__init__": "from .c import generate\n",
        "pkg.codegen.c": "from ..session import load\n",
        "pkg.errors": "",
    })
    assert graph(src, "pkg")["pkg.codegen"] == {"pkg.codegen.c"}
    assert cycles(graph(src, "pkg")) == [["pkg.codegen", "pkg.codegen.c", "pkg.session"]]
    # the same import inside a function, or for type checking only, is no cycle
    src["pkg.codegen.c"] = ("def f():\n    from ..session import load\n", False)
    assert cycles(graph(src, "pkg")) == []
    src["pkg.codegen.c"] = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                            "    from ..session import load\n", False)
    assert cycles(graph(src, "pkg")) == []
    # `import pkg` at module level of a submodule that pkg imports is one
    src["pkg.codegen.c"] = ("import pkg\n", False)
    assert cycles(graph(src, "pkg")) == [["pkg", "pkg.codegen", "pkg.codegen.c",
                                          "pkg.session"]]


def test_checker_finds_private_and_forbidden_imports():
    src = _synthetic({
        "pkg.__init__": "",
        "pkg.a": "def _helper(): pass\n",
        "pkg.b": "from .a import _helper, ok\nfrom .a import __version__\n",
        "pkg.c": "def f():\n    from pkg.a import _helper\n",
        "pkg.d": "from . import _w\n",
        "pkg._w": "",
        "pkg.sub.__init__": "",
        "pkg.sub.e": "from .._w import x\n",
    })
    assert private_imports(src) == ["pkg.b:1: from pkg.a import _helper",
                                    "pkg.c:2: from pkg.a import _helper",
                                    "pkg.sub.e:1: imports the private module pkg._w"]
    ui = _synthetic({"ui.__init__": "",
                     "ui.app": "import lib\nfrom lib.session import S\n"
                               "def f():\n    from lib.analysis import deps\n"
                               "    from lib import frontend, load\n"
                               "    import lib.directives.common\n"})
    assert forbidden(ui, "ui", "lib", frozenset({"lib", "lib.session"}),
                     {"lib.frontend", "lib.directives.common"}) == [
        "ui.app:4: lib.analysis", "ui.app:5: lib.frontend", "ui.app:6: lib.directives.common"]


# --- the rules on the code ------------------------------------------------------------------

def test_the_checker_reads_the_real_code():
    lib = _library_sources()
    assert {"clayx", "clayx.session", "clayx.codegen.c", "clayx.view"} <= set(lib)
    g = graph(lib, "clayx")
    assert "clayx.session" in g["clayx"] and "clayx.model" in g["clayx.codegen.c"]
    repl = _repl_sources()
    assert {"clayx_repl.app", "clayx_repl.cli", "clayx_repl.render"} <= set(repl)


def test_repl_imports_only_the_public_faces():
    bad = forbidden(_repl_sources(), "clayx_repl", "clayx", REPL_PUBLIC, _library_sources())
    assert bad == [], "repl/ imports library internals:\n" + "\n".join(bad)


def test_no_import_cycle_among_clayx_modules():
    found = cycles(graph(_library_sources(), "clayx"))
    assert found == [], "import cycles: " + "; ".join(" ↔ ".join(c) for c in found)


def test_no_private_name_imported_across_modules():
    bad = private_imports({**_library_sources(), **_repl_sources()})
    assert bad == [], "private imports across modules:\n" + "\n".join(bad)
