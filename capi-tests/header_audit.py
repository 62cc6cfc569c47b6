#!/usr/bin/env python3
"""Our installed headers against the reference c-blosc2's, as a compiler sees them.

usage: header_audit.py REF_INCLUDE OUR_INCLUDE

A program sees a different header depending on what it defines before including it, so each
check runs in every configuration of the conditional regions the headers have for clients:
C and C++ (`__cplusplus`: extern "C" blocks), with and without BLOSC_H (c-blosc 1.x's blosc.h
came first: the names it already has must not be declared again) and with and without
BLOSC1_COMPAT (the c-blosc 1.x aliases). In each of these 8 configurations:

  macros        `cc -E -dM` of a file including blosc2.h and b2nd.h: the same macro names;
                object-like macros with the same replacement text (whitespace aside);
                function-like macros with the same parameters (their bodies are our own)
  declarations  castxml's view of the same file: every function (return type, parameter
                types, linkage: a C++ mangled name means a missing extern "C", static/inline,
                attributes such as deprecated, with its note),
                variable (type, initializer), typedef, struct/union (size, alignment, fields
                with types and offsets) and enumeration (each enumerator's value, and which
                enumerators share an enum) declared in the headers' directory
  compiles      the file compiles with -Wall -Wextra -Werror against ours when it does against
                the reference; once as it is (with -DBLOSC_H in the BLOSC_H configurations), and
                once behind a generated blosc.h that declares what c-blosc 1.x's blosc.h has in
                common with blosc2.h (the enumerators and macros the reference leaves out under
                BLOSC_H, with their values) and defines BLOSC_H, as PyTables includes them

The headers' other conditional regions are compared on their macros (C): the Windows, MinGW,
MSVC, Cygwin, macOS, other-Unix and no-known-platform branches (with empty stand-ins for the
platform headers they include) and the options BLOSC_SHARED_LIBRARY, BLOSC_TESTING,
BLOSC_STRICT_ALIGN, AVX2, AVX512, no SSE2, not GNU C.

And once: the version lines that build scripts read as text. PyTables' setup.py takes the
number after `#define BLOSC2_VERSION_MAJOR|MINOR|RELEASE` on the line that also holds "major",
"minor" or "tweaks" respectively; each of the three defines must be a single line holding its
word, reading the same numbers as the reference's, and BLOSC2_VERSION_STRING must be defined
on a line of its own as `#define BLOSC2_VERSION_STRING "X.Y.Z"`.

Prints each difference; the last line is "header_audit: N checks, M failures". Exit status 1
when a check failed, 2 when a tool is missing (cc, c++, castxml).
"""
import itertools
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

CC = os.environ.get("CC", "cc")
CXX = os.environ.get("CXX", "c++")
# Every public header (the blosc2/ ones are added from the reference's directory in main())
HEADERS = ["blosc2.h", "b2nd.h"]
# The words after which PyTables' setup.py reads each version number (see the module doc).
VERSION_WORDS = {"MAJOR": "major", "MINOR": "minor", "RELEASE": "tweaks"}

checks = 0
failures = 0


def check(ok, what, details=()):
    global checks, failures
    checks += 1
    if not ok:
        failures += 1
        print(f"FAIL {what}")
        for line in list(details)[:40]:
            print(f"    {line}")
    return ok


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def probe(work, lang, prelude, body=""):
    """Writes WORK/probe.c (.cpp): PRELUDE, then includes HEADERS, then BODY."""
    src = os.path.join(work, "probe." + ("c" if lang == "c" else "cpp"))
    with open(src, "w") as f:
        f.write(prelude)
        f.writelines(f"#include <{h}>\n" for h in HEADERS)
        f.write(body)
    return src


# ------------------------------------------------------------------------------------ macros
def macros(inc, work, lang, defines, prelude=""):
    """{name: (params or None, body)} of `-E -dM` of a file including HEADERS."""
    src = probe(work, lang, prelude)
    r = run([CC if lang == "c" else CXX, "-E", "-dM", *defines, "-I", work, "-I", inc, src])
    if r.returncode != 0:
        raise RuntimeError(f"{CC} -E -dM failed on {inc}:\n{r.stderr[-3000:]}")
    out = {}
    for line in r.stdout.splitlines():
        m = re.match(r"#define ([A-Za-z_][A-Za-z0-9_]*)(\([^)]*\))? ?(.*)$", line)
        if m:
            params = m.group(2).replace(" ", "") if m.group(2) else None
            out[m.group(1)] = (params, " ".join(m.group(3).split()))
    return out


def compare_macros(ref, ours, config):
    diffs = []
    for name in sorted(set(ref) | set(ours)):
        if name not in ours:
            diffs.append(f"only in the reference: #define {name}{ref[name][0] or ''} {ref[name][1]}")
        elif name not in ref:
            diffs.append(f"only in ours: #define {name}{ours[name][0] or ''} {ours[name][1]}")
        elif ref[name][0] != ours[name][0]:
            diffs.append(f"{name}: parameters {ref[name][0]} (reference) vs {ours[name][0]} (ours)")
        elif ref[name][0] is None and ref[name][1] != ours[name][1]:
            diffs.append(f"{name}: '{ref[name][1]}' (reference) vs '{ours[name][1]}' (ours)")
    check(not diffs, f"{config}: macros ({len(ref)} in the reference, {len(ours)} in ours)", diffs)


# ------------------------------------------------------------------------------ declarations
class Decls:
    """The declarations that castxml finds in the files of one include directory."""

    def __init__(self, inc, work, lang, defines, prelude=""):
        src = probe(work, lang, prelude)
        xml = os.path.join(work, "decls.xml")
        r = run(["castxml", "--castxml-output=1", *defines, "-I", work, "-I", inc, "-o", xml,
                 src])
        if r.returncode != 0:
            raise RuntimeError(f"castxml failed on {inc}:\n{r.stderr[-3000:]}")
        root = ET.parse(xml).getroot()
        self.by_id = {e.get("id"): e for e in root}
        inc_real = os.path.realpath(inc) + os.sep
        self.files = {e.get("id") for e in root.iter("File")
                      if os.path.realpath(e.get("name")).startswith(inc_real)}
        self.items = set()
        for e in root:
            if e.get("file") in self.files:
                self.items.update(self.describe(e))

    def ty(self, tid, depth=0):
        e = self.by_id[tid]
        tag = e.tag
        if tag == "FundamentalType":
            return e.get("name")
        if tag == "PointerType":
            return self.ty(e.get("type"), depth) + "*"
        if tag == "CvQualifiedType":
            q = "".join(f" {k}" for k in ("const", "volatile", "restrict") if e.get(k) == "1")
            return self.ty(e.get("type"), depth) + q
        if tag == "ElaboratedType":
            return self.ty(e.get("type"), depth)
        if tag == "Typedef":
            # `typedef struct tag name;`: `name *` and `struct tag *` are one type, however the
            # header spells it; typedefs of other types keep their names (int32_t stays int32_t)
            target = self.by_id[e.get("type")]
            while target.tag == "ElaboratedType":
                target = self.by_id[target.get("type")]
            if target.tag in ("Struct", "Union", "Enumeration") and target.get("name"):
                return self.ty(target.get("id"), depth)
            return e.get("name")
        if tag == "ArrayType":
            n = "" if e.get("max") in (None, "", "-1") else str(int(e.get("max").rstrip("u")) + 1)
            return f"{self.ty(e.get('type'), depth)}[{n}]"
        if tag == "FunctionType":
            return f"{self.ty(e.get('returns'), depth)}({self.args(e, depth)})"
        if tag in ("Struct", "Union", "Enumeration"):
            kw = {"Struct": "struct", "Union": "union", "Enumeration": "enum"}[tag]
            if e.get("name"):
                return f"{kw} {e.get('name')}"
            if depth > 3:
                return f"{kw} {{...}}"
            return f"{kw} {{{self.body(e, depth + 1)}}}"
        return f"<{tag} {e.get('kind', '')}>"

    def args(self, e, depth=0):
        parts = [self.ty(a.get("type"), depth) for a in e if a.tag == "Argument"]
        if any(a.tag == "Ellipsis" for a in e):
            parts.append("...")
        return ", ".join(parts)

    def body(self, e, depth=0):
        if e.tag == "Enumeration":
            return ", ".join(f"{v.get('name')}={v.get('init')}" for v in e if v.tag == "EnumValue")
        fields = [self.by_id[m] for m in (e.get("members") or "").split()]
        return "; ".join(f"{f.get('name')}: {self.ty(f.get('type'), depth)} @{f.get('offset')}"
                         + (f":{f.get('bits')}" if f.get("bits") else "")
                         for f in fields if f.tag == "Field")

    def describe(self, e):
        tag, name = e.tag, e.get("name")
        flags = "".join(f" {k}" for k in ("static", "inline", "extern") if e.get(k) == "1")
        if e.get("attributes"):
            flags += f" attributes({e.get('attributes')})"
        if e.get("deprecation") is not None:
            flags += f" deprecated({e.get('deprecation')!r})"
        if e.get("mangled"):  # castxml gives C++-linkage functions their mangled name only
            flags += " C++-linkage"
        if tag == "Function":
            yield f"function {name}({self.args(e)}) -> {self.ty(e.get('returns'))}{flags}"
        elif tag == "Variable":
            yield f"variable {name}: {self.ty(e.get('type'))}{flags} = {e.get('init')}"
        elif tag == "Typedef":
            yield f"typedef {name} = {self.ty(e.get('type'))}"
        elif tag in ("Struct", "Union"):
            kind = tag.lower()
            if e.get("incomplete") == "1":
                yield f"{kind} {name or '(anonymous)'} (incomplete)"
            else:
                yield (f"{kind} {name or '(anonymous)'} size {e.get('size')} align "
                       f"{e.get('align')} {{{self.body(e)}}}")
        elif tag == "Enumeration":
            values = [v for v in e if v.tag == "EnumValue"]
            # an anonymous enum is known by its first enumerator
            label = name or (f"(anonymous, from {values[0].get('name')})" if values else "(empty)")
            for v in values:
                yield f"enumerator {v.get('name')} = {v.get('init')} in enum {label}"
            if not values:
                yield f"enum {label} with no enumerators"


def compare_decls(ref, ours, config):
    only_ref = sorted(ref.items - ours.items)
    only_ours = sorted(ours.items - ref.items)
    check(not only_ref and not only_ours,
          f"{config}: declarations ({len(ref.items)} in the reference, {len(ours.items)} in ours)",
          [f"reference: {d}" for d in only_ref] + [f"ours:      {d}" for d in only_ours])


# ---------------------------------------------------------------------------------- compiles
def compiles(inc, work, lang, defines, prelude):
    """Whether a program that includes HEADERS after PRELUDE compiles with -Wall -Wextra -Werror
    (and the compiler's messages)."""
    src = probe(work, lang, prelude, "int main(void) { return BLOSC2_VERSION_MAJOR - 3; }\n")
    r = run([CC if lang == "c" else CXX, "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
             *defines, "-I", work, "-I", inc, src])
    return r.returncode == 0, r.stderr


BLOSC1_INCLUDE = '#include "blosc.h"\n'


def write_blosc1_header(ref_inc, work, lang):
    """WORK/blosc.h: what c-blosc 1.x's blosc.h shares with blosc2.h, as the reference shows it:
    the enumerators and macros that it leaves out when BLOSC_H is defined, with their values.
    Returns their numbers."""
    tmp = os.path.join(work, "gen")
    os.makedirs(tmp, exist_ok=True)
    plain = Decls(ref_inc, tmp, lang, [])
    values = {}
    for d in plain.items:
        m = re.match(r"enumerator (\w+) = (-?\d+) in", d)
        if m:
            values[m.group(1)] = m.group(2)

    # The reference does not compile with BLOSC_H and nothing else (its *_DEFAULTS use the
    # names left out), so its enumerators under BLOSC_H come from the preprocessed text.
    def enumerators(defines):
        r = run([CC if lang == "c" else CXX, "-E", "-P", *defines, "-I", ref_inc,
                 probe(tmp, lang, "")])
        if r.returncode != 0:
            raise RuntimeError(f"{CC} -E failed on {ref_inc}:\n{r.stderr[-3000:]}")
        names = set()
        for body in re.findall(r"\benum\b[^{;]*\{([^}]*)\}", r.stdout):
            names.update(m.group(1) for m in re.finditer(r"(?:^|,)\s*(\w+)", body))
        return names

    gone = enumerators([]) - enumerators(["-DBLOSC_H"])
    enums = sorted(((n, values[n]) for n in gone), key=lambda nv: (int(nv[1]), nv[0]))
    m_plain = macros(ref_inc, tmp, lang, [])
    m_guarded = macros(ref_inc, tmp, lang, ["-DBLOSC_H"])
    gone_macros = sorted(n for n in m_plain if n not in m_guarded and n != "BLOSC_H")
    lines = ["/* generated by header_audit.py: c-blosc 1.x's names that blosc2.h also has */",
             "#ifndef BLOSC_H", "#define BLOSC_H"]
    lines += ["enum {"] + [f"  {n} = {v}," for n, v in enums] + ["};"]
    lines += [f"#define {n}{m_plain[n][0] or ''} {m_plain[n][1]}" for n in gone_macros]
    lines += ["#endif"]
    with open(os.path.join(work, "blosc.h"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return len(enums), len(gone_macros)


# ------------------------------------------------------------------ other conditional regions
# The headers' other branches are compared on their macros only (C): the platform branches, read
# here with empty stand-ins for the platform headers they include (found after the system's own,
# so glibc's malloc.h still wins), and the options a build or a program may define.
STAND_INS = ["windows.h", "process.h", "mach/clock.h", "mach/mach.h"]
NOT_LINUX = ["-U__linux__", "-U__linux", "-Ulinux", "-U__gnu_linux__"]
NOT_UNIX = NOT_LINUX + ["-U__unix__", "-U__unix", "-Uunix"]
MACRO_CONFIGS = {
    "Windows": ["-D_WIN32"],
    "MinGW": ["-D_WIN32", "-D__MINGW32__"],
    "MSVC": ["-D_WIN32", "-D_MSC_VER=1930", "-U__GNUC__", "-U__clang__"],
    "MSVC shared": ["-D_WIN32", "-D_MSC_VER=1930", "-U__GNUC__", "-U__clang__",
                    "-DBLOSC_SHARED_LIBRARY"],
    "Cygwin shared": ["-D__CYGWIN__", "-DBLOSC_SHARED_LIBRARY"],
    "macOS": NOT_UNIX + ["-D__APPLE__", "-D__MACH__"],
    "other Unix": NOT_LINUX,
    "BLOSC_SHARED_LIBRARY": ["-DBLOSC_SHARED_LIBRARY"],
    "BLOSC_TESTING": ["-DBLOSC_TESTING"],
    "BLOSC_STRICT_ALIGN": ["-DBLOSC_STRICT_ALIGN"],
    "AVX2": ["-D__AVX2__"],
    "AVX512": ["-D__AVX512F__", "-D__AVX512BW__"],
    "no SSE2": ["-U__SSE2__"],
    "not GNU C": ["-U__GNUC__", "-U__clang__"],
    "no known platform": NOT_UNIX,
}


def audit_other_regions(ref_inc, our_inc, work):
    stand_ins = os.path.join(work, "stand-ins")
    for h in STAND_INS:
        os.makedirs(os.path.dirname(os.path.join(stand_ins, h)), exist_ok=True)
        open(os.path.join(stand_ins, h), "w").close()
    for label, defines in MACRO_CONFIGS.items():
        got = {}
        for side, inc in (("ref", ref_inc), ("ours", our_inc)):
            d = os.path.join(work, f"{side}-other")
            os.makedirs(d, exist_ok=True)
            try:
                got[side] = macros(inc, d, "c", ["-idirafter", stand_ins, *defines])
            except RuntimeError as e:
                got[side] = "fails: " + str(e).splitlines()[-1][:200]
        if isinstance(got["ref"], dict) and isinstance(got["ours"], dict):
            compare_macros(got["ref"], got["ours"], f"C {label} ({' '.join(defines)})")
        else:
            check(isinstance(got["ref"], str) and isinstance(got["ours"], str),
                  f"C {label}: the preprocessor fails on both or on neither",
                  [f"reference: {'ok' if isinstance(got['ref'], dict) else got['ref']}",
                   f"ours: {'ok' if isinstance(got['ours'], dict) else got['ours']}"])


# ------------------------------------------------------------------------------- version text
def version_lines(inc):
    """PyTables' reading of blosc2.h: {MAJOR|MINOR|RELEASE: number} from the lines holding the
    define's name and its word, and the defining lines of each name."""
    text = open(os.path.join(inc, "blosc2.h")).read().splitlines()
    found, defining = {}, {}
    for line in text:
        for part, word in VERSION_WORDS.items():
            if f"BLOSC2_VERSION_{part}" in line and word in line:
                found[part] = line.split()[2]
        m = re.match(r"\s*#\s*define\s+(BLOSC2_VERSION_\w+)\b", line)
        if m:
            defining.setdefault(m.group(1), []).append(line)
    return found, defining


def audit_version_text(ref_inc, our_inc):
    ref_found, _ = version_lines(ref_inc)
    ours_found, ours_def = version_lines(our_inc)
    check(len(ref_found) == 3 and ours_found == ref_found,
          f"version as PyTables' setup.py reads it: reference {ref_found}, ours {ours_found}")
    for part, word in VERSION_WORDS.items():
        name = f"BLOSC2_VERSION_{part}"
        lines = ours_def.get(name, [])
        check(len(lines) == 1 and word in lines[0] and not lines[0].rstrip().endswith("\\"),
              f"ours defines {name} on one line holding '{word}'", lines)
    ref_string = [l for l in open(os.path.join(ref_inc, "blosc2.h"))
                  if re.match(r'#define BLOSC2_VERSION_STRING +"', l)]
    ours_string = ours_def.get("BLOSC2_VERSION_STRING", [])
    want = re.search(r'"[^"]*"', ref_string[0]).group(0) if ref_string else None
    check(len(ours_string) == 1 and want is not None
          and re.match(r'#define BLOSC2_VERSION_STRING +' + re.escape(want), ours_string[0]),
          f"ours: #define BLOSC2_VERSION_STRING {want} on a line of its own", ours_string)


# ------------------------------------------------------------------------------------- main
def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    ref_inc, our_inc = (os.path.abspath(p) for p in sys.argv[1:])
    for tool in (CC, CXX, "castxml"):
        if shutil.which(tool) is None:
            print(f"header_audit: '{tool}' not found (Debian: apt-get install castxml g++)")
            return 2
    HEADERS.extend(sorted(f"blosc2/{f}" for f in os.listdir(os.path.join(ref_inc, "blosc2"))
                          if f.endswith(".h")))
    audit_version_text(ref_inc, our_inc)
    with tempfile.TemporaryDirectory(prefix="header_audit.") as work:
        blosc1 = {}  # lang: the directory of the generated blosc.h
        for lang, blosc_h, compat in itertools.product(("c", "c++"), (False, True), (False, True)):
            defines = ["-DBLOSC1_COMPAT"] if compat else []
            config = " ".join([lang.upper()] + (["blosc.h first"] if blosc_h else []) + defines)
            prelude = ""
            sides = {}
            for side, inc in (("ref", ref_inc), ("ours", our_inc)):
                d = os.path.join(work, f"{side}-{lang}-{int(blosc_h)}{int(compat)}")
                os.makedirs(d, exist_ok=True)
                if blosc_h:
                    # A program that includes c-blosc 1.x's blosc.h first (it defines BLOSC_H),
                    # as PyTables does. (BLOSC_H alone does not do: the reference's *_DEFAULTS
                    # use the names that blosc.h would have declared.)
                    if lang not in blosc1:
                        blosc1[lang] = os.path.join(work, f"blosc1-{lang}")
                        os.makedirs(blosc1[lang])
                        n_enum, n_macro = write_blosc1_header(ref_inc, blosc1[lang], lang)
                        check(n_enum > 0 and n_macro > 0,
                              f"{lang.upper()}: the generated blosc.h holds {n_enum} enumerators "
                              f"and {n_macro} macros")
                    shutil.copy(os.path.join(blosc1[lang], "blosc.h"), d)
                    prelude = BLOSC1_INCLUDE
                try:
                    sides[side] = (d, macros(inc, d, lang, defines, prelude),
                                   Decls(inc, d, lang, defines, prelude),
                                   compiles(inc, d, lang, defines, prelude))
                except RuntimeError as e:
                    check(False, f"{config}: {side}'s headers cannot be read", str(e).splitlines())
            if len(sides) != 2:
                continue
            compare_macros(sides["ref"][1], sides["ours"][1], config)
            compare_decls(sides["ref"][2], sides["ours"][2], config)
            ref_ok, ours_ok = sides["ref"][3][0], sides["ours"][3][0]
            check(ref_ok and ours_ok,
                  f"{config}: compiles with -Wall -Wextra -Werror (reference: "
                  f"{'yes' if ref_ok else 'no'}, ours: {'yes' if ours_ok else 'no'})",
                  (sides["ours"][3][1] + sides["ref"][3][1]).splitlines())
        audit_other_regions(ref_inc, our_inc, work)
    print(f"header_audit: {checks} checks, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
