#!/usr/bin/env python3
"""Check that a design document names only files and code items that exist.

Usage: check-doc-citations.py [DOC.md ...]   (default: docs/ARCHITECTURE.md)
Run from anywhere; paths are taken relative to the repository (this script's parent folder).

What is checked, in each document:
  1. Paths: every `src/...`, `tests/...`, `capi-tests/...`, `docs/...`, `bench/...`,
     `scripts/...`, `fuzz/...`, `cmake/...`, `examples/...`, `include/...`, `link/...`,
     `cbindgen/...` or `.ci/...` it mentions, anywhere in the text, exists (`{a,b}` is
     expanded, `*` is a glob that must match something; `<name>` placeholders are skipped).
  2. Code items: every span in backticks that reads as a Rust or C path (`name`,
     `module::Type::method`, `Type::field`, `name()`, `Array<..>`) names something defined:
       - `a::b::Name`: `a::b` is a module of the crate (matched by its last segments, so
         `decompress::x` is `chunk::decompress::x`), and `Name` is defined in it (a fn, type,
         const, static, macro, inline module, struct field or enum variant), or `Name::m` is a
         type defined or implemented in it and `m` a method, field, variant or associated item
         of that type;
       - `Type::m` without a module: `m` is a member of some `Type` of the crate;
       - a bare `name`: defined anywhere in the crate, its tests, build.rs or bench, or (C
         names) declared in the headers or the C sources of the repository;
       - `prefix_*`: some name of the C headers or the crate starts with `prefix_`.
     Names of other projects (the C codec libraries, std, c-blosc2's internals) are listed in
     EXTERNAL below with the reason; a new one must be added there on purpose.
  3. The layout block (the code block under "## Layout"): each entry's first column exists;
     every file src/*.rs has an entry; and an entry for a folder of src/ (except src/capi/,
     described in its own section) names every file and subfolder in it (`name.rs`, `name/`;
     mod.rs may be omitted), and only those.

The Rust "parser" is line-based and relies on rustfmt's layout (a block that opens at column c
with `impl`/`struct`/`enum`/`trait`/`mod` closes at the first later line that is c spaces and
`}`). Prints one line per problem; exit status 1 if any, 0 otherwise. Dependency-free.
"""

import glob
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Names the documents may cite that live in other projects, with where they live.
EXTERNAL = {
    # the C codec libraries, compiled in by the -sys crates
    "LZ4_decompress_safe": "lz4",
    "ZSTD_compressCCtx": "zstd",
    "ZSTD_decompressDCtx": "zstd",
    "ZSTD_RowFindBestMatch_noDict_4_4": "zstd",
    "HIST_count_parallel_wksp": "zstd",
    "DYNAMIC_BMI2": "zstd's build switch",
    # Rust's standard library and cargo
    "Arc": "std",
    "try_write": "std's RwLock",
    "OnceLock": "std",
    "CARGO_PKG_NAME": "cargo's environment for build scripts",
    "unsafe": "the Rust keyword",
    # c-blosc2's internals and its plugin ABI
    "update_shape": "c-blosc2's b2nd.c",
    "info": "the symbol a c-blosc2 dynamic plugin exports",
    # C library and shell
    "getenv": "libc",
    "python3": "the interpreter",
}

PATH_ROOTS = (
    "src|tests|capi-tests|docs|bench|scripts|fuzz|cmake|examples|include|link|cbindgen|\\.ci"
)
PATH_RE = re.compile(r"(?<![\w./-])(?:" + PATH_ROOTS + r")/[A-Za-z0-9_.{},*/<>-]*")
IDENT_PATH_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*$")
WORD_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def expand_braces(text):
    m = re.search(r"\{([^{}]*)\}", text)
    if not m:
        return [text]
    out = []
    for alt in m.group(1).split(","):
        out.extend(expand_braces(text[: m.start()] + alt + text[m.end() :]))
    return out


# ---------------------------------------------------------------------------------------------
# The crate's items, from its .rs files.


class Index:
    def __init__(self):
        self.defs = {}  # name -> set of module paths (tuples) defining it at any level
        self.members = {}  # type or trait name -> set of member names
        self.type_modules = {}  # type name -> set of module paths defining or implementing it
        self.modules = set()  # module paths (tuples), files and inline modules
        self.c_words = set()  # words of the C headers and C sources
        self.cmake_text = ""  # the CMake package templates (their targets are `A::b`)

    def add_def(self, name, module):
        self.defs.setdefault(name, set()).add(module)

    def add_member(self, owner, name):
        self.members.setdefault(owner, set()).add(name)


def module_of(rel):
    parts = rel[:-3].split("/")
    if parts[0] == "src":
        parts = parts[1:]
        if parts in (["lib"], ["main"]):
            return ()
    if parts and parts[-1] == "mod":
        parts = parts[:-1]
    return tuple(parts)


def strip_generics(text):
    out, depth = [], 0
    for c in text:
        if c == "<":
            depth += 1
        elif c == ">":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(c)
    return "".join(out)


def impl_type(header):
    """`impl<T> Trait<X> for path::Type<T> where ...` -> ("Type", "Trait") (trait may be None)."""
    h = header.strip()
    h = re.sub(r"^(pub(\([^)]*\))?\s+)?(unsafe\s+)?impl\s*", "", h)
    h = strip_generics(h)
    h = h.split(" where ")[0].split("{")[0].strip()
    trait = None
    if " for " in h:
        trait, h = h.split(" for ", 1)
        trait = trait.strip().split("::")[-1].lstrip("!")
    h = h.strip().lstrip("&").replace("mut ", "").replace("dyn ", "").strip()
    name = h.split("::")[-1].strip()
    return (name or None), trait


ITEM_RE = re.compile(
    r"^\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?(?:default\s+)?(?:const\s+)?(?:async\s+)?"
    r"(?:unsafe\s+)?(?:extern\s+\"[^\"]*\"\s+)?"
    r"(fn|struct|enum|trait|type|union|const|static|mod|macro_rules!)\s+(?:mut\s+)?([A-Za-z_][A-Za-z0-9_]*)"
)
FIELD_RE = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*:(?!:)")
VARIANT_RE = re.compile(r"^\s*([A-Z][A-Za-z0-9_]*)\s*(?:[,({=]|$)")
OPEN_RE = re.compile(
    r"^(\s*)(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+)?(impl|struct|enum|trait|union|mod)\b"
)


USE_RE = re.compile(r"^\s*pub(?:\([^)]*\))?\s+use\s+(.*)")


def reexported(tree):
    """The names a `use` tree brings in: `a::{b, c as d}` -> b, d; `a::B` -> B."""
    tree = tree.split(";")[0]
    names = []
    for part in re.split(r"[{},]", tree):
        part = part.strip()
        if not part or part.endswith("::") or part == "*":
            continue
        if " as " in part:
            names.append(part.split(" as ")[1].strip())
        else:
            names.append(part.split("::")[-1].strip())
    return [n for n in names if n and n not in ("self", "*")]


def index_rust(index, rel):
    module = module_of(rel)
    index.modules.add(module)
    with open(os.path.join(REPO, rel), encoding="utf-8") as f:
        lines = f.read().split("\n")
    stack = []  # (indent, kind, name, module)
    i = 0
    while i < len(lines):
        line = lines[i]
        code = line.split("//")[0] if not line.lstrip().startswith("//") else ""
        if stack and line.rstrip() in (" " * stack[-1][0] + "}", " " * stack[-1][0] + "};"):
            stack.pop()
            i += 1
            continue
        cur_mod = stack[-1][3] if stack else module
        kind = stack[-1][1] if stack else None
        owner = stack[-1][2] if stack else None
        m = ITEM_RE.match(code)
        if m:
            what, name = m.group(1), m.group(2)
            index.add_def(name, cur_mod)
            if what in ("struct", "enum", "trait", "type", "union"):
                index.type_modules.setdefault(name, set()).add(cur_mod)
            if kind in ("impl", "trait") and owner:
                index.add_member(owner, name)
        elif kind == "struct" and owner:
            fm = FIELD_RE.match(code)
            if fm:
                index.add_member(owner, fm.group(1))
                index.add_def(fm.group(1), cur_mod)
        elif kind == "enum" and owner:
            vm = VARIANT_RE.match(code)
            if vm:
                index.add_member(owner, vm.group(1))
                index.add_def(vm.group(1), cur_mod)
        um = USE_RE.match(code)
        if um:  # a re-export defines its names in this module
            body = code
            while ";" not in body and i + 1 < len(lines):
                i += 1
                body += " " + lines[i].split("//")[0]
            for name in reexported(um.group(1) + body[um.end() :]):
                index.add_def(name, cur_mod)
            i += 1
            continue
        om = OPEN_RE.match(code)
        if om:
            indent, what = len(om.group(1)), om.group(2)
            header = code
            j = i
            while "{" not in header and ";" not in header and j + 1 < len(lines):
                j += 1
                header += " " + lines[j].split("//")[0]
            if "{" in header and not header.rstrip().endswith("}"):
                if what == "impl":
                    name, _trait = impl_type(header)
                    if name:
                        index.type_modules.setdefault(name, set()).add(cur_mod)
                    stack.append((indent, "impl", name, cur_mod))
                else:
                    nm = re.search(r"\b" + what + r"\s+([A-Za-z_][A-Za-z0-9_]*)", header)
                    name = nm.group(1) if nm else None
                    sub = cur_mod + (name,) if what == "mod" and name else cur_mod
                    if what == "mod" and name:
                        index.modules.add(sub)
                    stack.append((indent, what, name, sub))
                i = j
        i += 1


def build_index():
    index = Index()
    rust_roots = ["src", "tests", "bench", "fuzz"]
    for root in rust_roots:
        for dirpath, _, files in os.walk(os.path.join(REPO, root)):
            for fn in files:
                path = os.path.join(dirpath, fn)
                rel = os.path.relpath(path, REPO)
                if fn.endswith(".rs"):
                    index_rust(index, rel)
                elif fn.endswith((".c", ".h", ".cpp", ".sh", ".py")):
                    with open(path, encoding="utf-8", errors="replace") as f:
                        index.c_words.update(WORD_RE.findall(f.read()))
    index_rust(index, "build.rs")
    for root in ["include", "cbindgen", "capi-tests", "examples", "scripts", "cmake"]:
        for dirpath, _, files in os.walk(os.path.join(REPO, root)):
            for fn in files:
                if fn.endswith((".h", ".c", ".cpp", ".sh", ".py", ".in", ".txt")):
                    with open(os.path.join(dirpath, fn), encoding="utf-8", errors="replace") as f:
                        index.c_words.update(WORD_RE.findall(f.read()))
    for extra in ["Makefile", "build.rs", ".ci/run"]:
        with open(os.path.join(REPO, extra), encoding="utf-8") as f:
            index.c_words.update(WORD_RE.findall(f.read()))
    for path in glob.glob(os.path.join(REPO, "cmake", "*")):
        with open(path, encoding="utf-8", errors="replace") as f:
            index.cmake_text += f.read()
    return index


# ---------------------------------------------------------------------------------------------
# Resolving one cited name.


def modules_ending_with(index, segs):
    n = len(segs)
    return {m for m in index.modules if len(m) >= n and m[-n:] == tuple(segs)}


def defined_in(index, name, modules):
    return bool(index.defs.get(name, set()) & modules)


def member_ok(index, typ, member):
    return member in index.members.get(typ, set())


def resolve(index, cited):
    if cited.startswith("_"):  # a suffix in prose: `blosc2_meta_get`/`_exists`
        return any(w.endswith(cited) for w in index.c_words | set(index.defs))
    if "::" in cited and cited in index.cmake_text:
        return True
    segs = cited.split("::")
    if segs[0] == "crate":
        segs = segs[1:]
    if len(segs) == 1:
        name = segs[0]
        return name in index.defs or name in index.c_words
    # the longest leading run of segments naming a module
    for k in range(len(segs) - 1, 0, -1):
        mods = modules_ending_with(index, segs[:k])
        if not mods:
            continue
        rest = segs[k:]
        if len(rest) == 1:
            return defined_in(index, rest[0], mods)
        typ = rest[0]
        in_mod = bool(index.type_modules.get(typ, set()) & mods) or defined_in(index, typ, mods)
        return in_mod and all(member_ok(index, a, b) for a, b in zip(rest, rest[1:]))
    # Type::member[::...] with no module
    return all(member_ok(index, a, b) for a, b in zip(segs, segs[1:]))


def code_spans(text):
    # fenced blocks are prose here too (the layout block), so take every `...` span
    return re.findall(r"`([^`\n]+)`", text)


def check_citations(index, text):
    problems = []
    seen = set()
    for span in code_spans(text):
        s = span.strip()
        if s.endswith("()"):
            s = s[:-2]
        s = strip_generics(s).strip()
        if s.endswith("_*") and IDENT_PATH_RE.match(s[:-1] + "x"):
            prefix = s[:-1]
            if not any(w.startswith(prefix) for w in index.c_words | set(index.defs)):
                problems.append(f"nothing is named {s}")
            continue
        if not IDENT_PATH_RE.match(s) or s in seen:
            continue
        seen.add(s)
        if s in EXTERNAL:
            continue
        if not resolve(index, s):
            problems.append(f"`{span}`: no such item")
    return problems


def check_paths(text):
    problems = []
    for raw in sorted(set(PATH_RE.findall(text))):
        p = raw.rstrip(".,:;)")
        if "<" in p or ">" in p:
            continue
        for q in expand_braces(p):
            full = os.path.join(REPO, q)
            if "*" in q:
                if not glob.glob(full):
                    problems.append(f"{q}: matches nothing")
            elif not os.path.exists(full):
                problems.append(f"{q}: no such file or folder")
    return problems


def layout_entries(text):
    m = re.search(r"^## Layout.*?\n```\n(.*?)\n```", text, re.S | re.M)
    if not m:
        return None
    entries = []
    for line in m.group(1).split("\n"):
        if line and not line[0].isspace():
            head = line.split()[0]
            entries.append([head, line[len(head) :]])
        elif entries:
            entries[-1][1] += " " + line.strip()
    return entries


def check_layout(text):
    entries = layout_entries(text)
    if entries is None:
        return []
    problems = []
    heads = {head for head, _ in entries}
    for fn in sorted(os.listdir(os.path.join(REPO, "src"))):
        if fn.endswith(".rs") and "src/" + fn not in heads:
            problems.append(f"layout: src/{fn} has no entry")
    for head, desc in entries:
        targets = glob.glob(os.path.join(REPO, head)) if "*" in head else [os.path.join(REPO, head)]
        if not targets or not all(os.path.exists(t) for t in targets):
            problems.append(f"layout: {head}: no such file or folder")
            continue
        if not (head.startswith("src/") and head.endswith("/")) or head == "src/capi/":
            continue
        folder = os.path.join(REPO, head)
        present = set()
        for fn in os.listdir(folder):
            if fn.endswith(".rs") and fn != "mod.rs":
                present.add(fn)
            elif os.path.isdir(os.path.join(folder, fn)):
                present.add(fn + "/")
        named = set(re.findall(r"(?<![\w/.])([a-z0-9_]+\.rs)\b", desc))
        named |= {d + "/" for d in re.findall(r"(?<![\w/.])([a-z0-9_]+)/(?![\w.])", desc)}
        named.discard("mod.rs")
        for fn in sorted(present - named):
            problems.append(f"layout: {head}{fn} exists but its entry does not name it")
        for fn in sorted(named - present):
            problems.append(f"layout: {head} entry names {fn}, which is not in the folder")
    return problems


def main(argv):
    docs = argv[1:] or ["docs/ARCHITECTURE.md"]
    index = build_index()
    failed = False
    for doc in docs:
        path = doc if os.path.isabs(doc) else os.path.join(REPO, doc)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        problems = check_paths(text) + check_layout(text) + check_citations(index, text)
        for p in problems:
            print(f"{doc}: {p}")
        failed |= bool(problems)
        print(f"{doc}: {'FAILED' if problems else 'ok'} ({len(problems)} problems)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
