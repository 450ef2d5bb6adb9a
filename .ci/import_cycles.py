#!/usr/bin/env python3
"""Fails when a crate's modules import each other in a circle.

For every crate of the workspace (a folder with `Cargo.toml` and `src/`), each source file is
one module. An edge goes from module A to module B when A names B through `crate::`, `super::`
or `self::` paths (a name re-exported at the crate root counts as the module that defines it).
A module declared with `#[path = "file.rs"] mod name;` is reached by `name`. Edges from a
module into its own sub-modules are not counted: a parent declaring and
re-exporting its children is how Rust modules nest, not a circle. Each folder module is also
checked as one node (itself and everything under it), level by level: `stage/` using a sibling
that takes a type from `stage/mod.rs` is a circle between `stage` and that sibling, which the
file-by-file graph alone cannot see. Test code (files named
`tests.rs`, and everything after a top-level `#[cfg(test)]`) is left out, since tests may
reach anything.

Usage: python3 .ci/import_cycles.py [CRATE_DIR...]   (default: every crate under the repo)
Exit status 1, with each circle printed, when any crate has one.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PATH_RE = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)")
USE_GROUP_RE = re.compile(r"\buse\s+(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)*)::\{([^;]*)\};", re.S)
REEXPORT_RE = re.compile(r"^\s*pub(?:\([^)]*\))?\s+use\s+([A-Za-z_][A-Za-z0-9_:]*)::(\{[^;]*\}|[A-Za-z_][A-Za-z0-9_]*);", re.M | re.S)


def module_files(src):
    """Maps module paths (tuples) to file paths for one crate's `src/`."""
    modules = {}
    for folder, _, files in os.walk(src):
        for name in files:
            if not name.endswith(".rs") or name == "tests.rs":
                continue
            rel = os.path.relpath(os.path.join(folder, name), src)[:-3].split(os.sep)
            if rel[-1] in ("lib", "main", "mod"):
                rel = rel[:-1]
            if rel and rel[0] == "bin":
                continue
            modules[tuple(rel)] = os.path.join(folder, name)
    return modules


def strip_tests_and_comments(text):
    cut = re.search(r"^#\[cfg\(test\)\]", text, re.M)
    if cut:
        text = text[: cut.start()]
    text = re.sub(r"//[^\n]*", "", text)
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text)


def resolve(modules, start, segments):
    """The longest known module reached by `segments` from module `start`."""
    best = None
    path = list(start)
    for i, seg in enumerate(segments):
        path = path + [seg]
        if tuple(path) in modules:
            best = tuple(path)
    return best


def base_of(kind, here, is_mod_file):
    if kind == "crate":
        return ()
    # `super` in `a/b.rs` (module a::b) is `a`; in `a/b/mod.rs` it is also `a`.
    parent = here[:-1]
    return parent if kind == "super" else here


PATH_MOD_RE = re.compile(r'#\[path\s*=\s*"([^"]+)"\]\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_][A-Za-z0-9_]*)\s*;')


def path_aliases(modules):
    """Modules declared under another name with `#[path = "file.rs"] mod name;`: the name they
    are reached by, to the module of their file."""
    by_file = {os.path.normpath(f): m for m, f in modules.items()}
    aliases = {}
    for module, file in modules.items():
        for match in PATH_MOD_RE.finditer(open(file, encoding="utf-8").read()):
            target = by_file.get(os.path.normpath(os.path.join(os.path.dirname(file), match.group(1))))
            if target is not None:
                aliases[module + (match.group(2),)] = target
    return aliases


def crate_edges(crate_dir):
    src = os.path.join(crate_dir, "src")
    modules = module_files(src)
    texts = {m: strip_tests_and_comments(open(f, encoding="utf-8").read()) for m, f in modules.items()}
    aliases = path_aliases(modules)
    for alias, target in aliases.items():
        modules.setdefault(alias, modules[target])
    canonical = lambda module: aliases.get(module, module)

    # Names re-exported at the crate root, to the module that defines them.
    root_reexports = {}
    for match in REEXPORT_RE.finditer(texts.get((), "")):
        prefix, names = match.group(1), match.group(2)
        segs = [s for s in prefix.split("::") if s not in ("crate", "self")]
        target = resolve(modules, (), segs)
        if target is None:
            continue
        target = canonical(target)
        for name in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", names):
            root_reexports[name] = target

    edges = {}
    for here, text in texts.items():
        targets = set()
        refs = [(m.group(1), m.group(2).split("::")[1:]) for m in PATH_RE.finditer(text)]
        for group in USE_GROUP_RE.finditer(text):
            kind, prefix = group.group(1), group.group(2).split("::")[1:]
            for item in re.findall(r"[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*", group.group(3)):
                refs.append((kind, prefix + item.split("::")))
        for kind, segs in refs:
            base = base_of(kind, here, False)
            target = resolve(modules, base, segs)
            if target is None and kind == "crate" and segs and segs[0] in root_reexports:
                target = root_reexports[segs[0]]
            if target is not None:
                target = canonical(target)
            if target is None or target == here or target[: len(here)] == here:
                continue
            targets.add(target)
        edges[here] = targets
    return edges


def cycles(edges):
    """Every elementary circle, found by Tarjan's strongly connected components."""
    index, low, stack, on_stack, result = {}, {}, [], set(), []
    counter = [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in edges.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                result.append(sorted(component))

    sys.setrecursionlimit(10000)
    for node in sorted(edges):
        if node not in index:
            visit(node)
    return result


def folded(edges, depth):
    """The graph with every module cut to its first `depth` segments: a folder module and all
    it holds become one node. Edges inside one node, or from a node to one it holds, drop out."""
    result = {}
    for source, targets in edges.items():
        here = source[:depth]
        out = result.setdefault(here, set())
        for target in targets:
            there = target[:depth]
            if there == here or there[: len(here)] == here or here[: len(there)] == there:
                continue
            out.add(there)
    return result


def all_cycles(edges):
    """Circles between files, then between folder modules at each depth (deduplicated)."""
    found, seen = [], set()
    depth = max((len(m) for m in edges), default=0)
    for graph in [edges] + [folded(edges, d) for d in range(1, depth)]:
        for component in cycles(graph):
            key = tuple(component)
            if key not in seen:
                seen.add(key)
                found.append((graph, component))
    return found


def name(module):
    return "::".join(module) or "crate"


def main():
    dirs = sys.argv[1:] or sorted(
        os.path.join(ROOT, d)
        for d in os.listdir(ROOT)
        if os.path.isfile(os.path.join(ROOT, d, "Cargo.toml")) and os.path.isdir(os.path.join(ROOT, d, "src"))
    ) + [ROOT]
    failed = False
    for crate_dir in dirs:
        for edges, component in all_cycles(crate_edges(crate_dir)):
            failed = True
            members = set(component)
            print(f"{os.path.relpath(crate_dir, ROOT) or '.'}: modules importing each other in a circle:")
            for module in component:
                inside = sorted(name(t) for t in edges[module] if t in members)
                print(f"  {name(module)} -> {', '.join(inside)}")
    if failed:
        sys.exit(1)
    print(f"no import circles in {len(dirs)} crates")


if __name__ == "__main__":
    main()
