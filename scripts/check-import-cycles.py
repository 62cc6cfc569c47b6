#!/usr/bin/env python3
"""Report import cycles between the files of one folder of a Rust crate.

For every folder under the crate root (default: src), each file of the folder and each of its
subfolders is a node; an edge A -> B means some file of A names a module of B through a path
starting with `crate::`, `super::` or `self::` (in a `use` tree or inline, e.g.
`crate::capi::tuner::hook_for(..)`). A cycle is a strongly connected component of two or more
nodes. The folder's own mod.rs (or lib.rs) is left out: it declares the others, and its
re-exports are not dependencies of the folder's logic.

Comments, strings and (unless --include-tests) `#[cfg(test)]` items and files named
`tests.rs`/`*_tests.rs` are ignored: test code may use anything.

Usage: check-import-cycles.py [--include-tests] [--edges] [ROOT or FOLDER ...]
Exit status 1 when a cycle is found, 0 otherwise. Dependency-free (python3 only).
"""

import os
import sys

# ---------------------------------------------------------------------------------------------
# Tokenizer: identifiers, `::`, single punctuation; skips comments, strings, chars, lifetimes.


def tokenize(text):
    toks = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif c == "r" and i + 1 < n and text[i + 1] in '#"':
            # raw string r"..." / r#"..."#
            j = i + 1
            hashes = 0
            while j < n and text[j] == "#":
                hashes, j = hashes + 1, j + 1
            if j < n and text[j] == '"':
                end = text.find('"' + "#" * hashes, j + 1)
                i = n if end < 0 else end + 1 + hashes
            else:
                toks.append("r")
                i += 1
        elif c == "b" and i + 1 < n and text[i + 1] in "'\"":
            i += 1  # byte string / byte char: the quote is handled next round
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        elif c == "'":
            # char literal or lifetime
            if i + 2 < n and text[i + 1] == "\\":
                j = text.find("'", i + 2)
                i = n if j < 0 else j + 1
            elif i + 2 < n and text[i + 2] == "'":
                i += 3
            else:
                i += 1
                while i < n and (text[i].isalnum() or text[i] == "_"):
                    i += 1
        elif c.isalpha() or c == "_":
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            toks.append(text[i:j])
            i = j
        elif text.startswith("::", i):
            toks.append("::")
            i += 2
        else:
            toks.append(c)
            i += 1
    return toks


# ---------------------------------------------------------------------------------------------
# Path extraction with inline-module tracking


def parse_use_tree(toks, i, prefix, out):
    """Parse a use tree at toks[i]; append flattened paths to out; return index after it."""
    path = list(prefix)
    while i < len(toks):
        t = toks[i]
        if t == "{":
            i += 1
            while i < len(toks) and toks[i] != "}":
                i = parse_use_tree(toks, i, path, out)
                if i < len(toks) and toks[i] == ",":
                    i += 1
            out.append(path)
            return i + 1
        if t == "*":
            out.append(path)
            return i + 1
        if t == "::":
            i += 1
            continue
        if t == "as":
            out.append(path)
            return i + 2
        if t in (",", "}", ";"):
            out.append(path)
            return i
        path = path + [t]
        i += 1
    out.append(path)
    return i


def extract_paths(toks, include_tests):
    """Yield (inline_module_path, path) for every crate/super/self path in the token list."""
    refs = []
    depth = 0
    mods = []  # (name, depth at which its body closes, is_test)
    pending_test = False
    i = 0
    while i < len(toks):
        t = toks[i]
        in_test = any(m[2] for m in mods)
        if t == "#" and i + 1 < len(toks) and toks[i + 1] == "[":
            # attribute: note #[cfg(test)]
            j, d = i + 1, 0
            while j < len(toks):
                if toks[j] == "[":
                    d += 1
                elif toks[j] == "]":
                    d -= 1
                    if d == 0:
                        break
                j += 1
            attr = toks[i + 2 : j]
            if attr[:4] == ["cfg", "(", "test", ")"]:
                pending_test = True
            i = j + 1
            continue
        if t == "mod" and i + 2 < len(toks) and toks[i + 2] == "{":
            depth += 1
            mods.append((toks[i + 1], depth, pending_test))
            pending_test = False
            i += 3
            continue
        if t == "{":
            depth += 1
        elif t == "}":
            if mods and mods[-1][1] == depth:
                mods.pop()
            depth -= 1
        elif t == ";":
            pending_test = False
        if pending_test and t not in ("pub", "(", ")", "crate", "mod", "fn", "use"):
            pass
        skip = in_test and not include_tests
        if t == "use":
            out = []
            j = parse_use_tree(toks, i + 1, [], out)
            test_item = pending_test and not include_tests
            if not skip and not test_item:
                for p in out:
                    refs.append(([m[0] for m in mods], p))
            pending_test = False
            i = j
            continue
        if t in ("crate", "super", "self") and i + 1 < len(toks) and toks[i + 1] == "::":
            if i > 0 and toks[i - 1] == "::":
                i += 1
                continue
            path = [t]
            j = i + 1
            while j + 1 < len(toks) and toks[j] == "::" and (
                toks[j + 1][0].isalpha() or toks[j + 1][0] == "_"
            ):
                path.append(toks[j + 1])
                j += 2
            if not skip and not pending_test:
                refs.append(([m[0] for m in mods], path))
            i = j
            continue
        i += 1
    return refs


# ---------------------------------------------------------------------------------------------
# Module tree


class Crate:
    def __init__(self, root):
        self.root = root  # directory holding lib.rs / main.rs
        self.files = {}  # module path tuple -> file

    def module_of_file(self, path):
        rel = os.path.relpath(path, self.root)
        parts = rel[:-3].split(os.sep)
        if parts[-1] == "mod":
            parts = parts[:-1]
        if parts in (["lib"], ["main"]):
            parts = []
        return tuple(parts)

    def scan(self):
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames.sort()
            for f in sorted(filenames):
                if f.endswith(".rs"):
                    p = os.path.join(dirpath, f)
                    self.files[self.module_of_file(p)] = p

    def resolve(self, path):
        """Longest prefix of an absolute module path that is a file module."""
        for k in range(len(path), 0, -1):
            if tuple(path[:k]) in self.files:
                return tuple(path[:k])
        return None


def absolute(file_mod, inline, path):
    base = list(file_mod) + list(inline)
    if path[0] == "crate":
        return path[1:]
    cur = base
    k = 0
    while k < len(path) and path[k] in ("super", "self"):
        if path[k] == "super":
            cur = cur[:-1]
        k += 1
    return cur + path[k:]


def is_test_file(path):
    name = os.path.basename(path)
    return name == "tests.rs" or name.endswith("_tests.rs")


def sccs(nodes, edges):
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                strong(w)
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
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            strong(v)
    return out


def find_crate_root(start):
    d = os.path.abspath(start)
    while True:
        if os.path.exists(os.path.join(d, "lib.rs")) or os.path.exists(os.path.join(d, "main.rs")):
            return d
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def main(argv):
    include_tests = "--include-tests" in argv
    show_edges = "--edges" in argv
    targets = [a for a in argv if not a.startswith("--")] or ["src"]
    found = False
    for target in targets:
        root = find_crate_root(target)
        if root is None:
            print(f"{target}: no lib.rs/main.rs above it", file=sys.stderr)
            return 2
        crate = Crate(root)
        crate.scan()
        # edges between absolute module paths (file modules)
        mod_edges = {}
        for mod, path in crate.files.items():
            if is_test_file(path) and not include_tests:
                continue
            with open(path, encoding="utf-8") as fh:
                toks = tokenize(fh.read())
            for inline, p in extract_paths(toks, include_tests):
                if not p or p[0] not in ("crate", "super", "self"):
                    continue
                target_mod = crate.resolve(absolute(mod, inline, p))
                if target_mod is not None and target_mod != mod:
                    mod_edges.setdefault(mod, set()).add(target_mod)
        # folders to report
        folder_mods = sorted(
            {m[:-1] for m in crate.files if m} | {()},
        )
        want = os.path.abspath(target)
        for folder in folder_mods:
            fdir = os.path.join(root, *folder)
            if os.path.commonpath([fdir, want]) != want and fdir != want:
                continue
            if not os.path.isdir(fdir):
                continue
            depth = len(folder)
            nodes = set()
            edges = {}
            for src_mod, dsts in mod_edges.items():
                if len(src_mod) <= depth or tuple(src_mod[:depth]) != folder:
                    continue
                a = src_mod[depth]
                for dst in dsts:
                    if len(dst) <= depth or tuple(dst[:depth]) != folder:
                        continue
                    b = dst[depth]
                    if a != b:
                        nodes.update((a, b))
                        edges.setdefault(a, set()).add(b)
            name = os.path.relpath(fdir, os.path.dirname(root)) if folder else os.path.basename(root)
            cycles = [c for c in sccs(nodes, edges) if len(c) > 1]
            if show_edges:
                for a in sorted(edges):
                    print(f"{name}: {a} -> {', '.join(sorted(edges[a]))}")
            for comp in cycles:
                found = True
                detail = "; ".join(
                    f"{a} -> {b}" for a in comp for b in sorted(edges.get(a, ())) if b in comp
                )
                print(f"{name}: cycle {{{', '.join(comp)}}}: {detail}")
            if not cycles:
                print(f"{name}: no cycles")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
