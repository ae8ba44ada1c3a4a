#!/usr/bin/env python3
"""The file-level dependency graph of a build's objects, and its cycles.

For each object of the libcushim_* convenience libraries and of the command
(cushim), the symbols it leaves undefined are resolved, through `nm`, to the
object that defines them; each object is mapped back to its source file.  A
file depends on the files that define what it uses.  The strongly connected
components of more than one file are the cycles: they are printed, and the
exit status is 1 when one of them is not allowed.

Allowed, built in: the generated stubs (cushim-stubs.S) and the slots they
read.  Each stub jumps through its slot (cushim_slot, in the .S), loads it
through cushim_slot_acquire in a ThreadSanitizer build, and the slot starts
at a first-call entry that runs the resolver (cushim_resolve), which fills
the slots: by design the stubs name what fills them, and what fills them
names the stubs.  So the stubs' own references are no edges here (--edges
lists them, marked), and the stubs sit on no cycle.  No other cycle is
allowed but for --allow A,B: a cycle whose files all lie in the group (file
names as printed, or their basenames), to look at one while breaking it.

--headers: one header per module instead: each function a header of src/
declares is defined by the C file of the header's own name (boot.h's by
boot.c), where there is one; a header without one (slots.h, cushim.h) is
shared and not judged.  --floors: the folders of src/ and the arrows between
them, each with its number of file edges, those against the order common,
shim, diag, cli marked (exit 1 where there is one).

usage: depgraph.py [--nm NM] [--allow A,B ...] [--edges] [--headers] [--floors] [--srcdir DIR] BUILDDIR
exit: 0 no cycle but allowed ones (--headers: every header one module's),
1 a cycle not allowed (a header that declares another module's function),
2 usage or nm unusable.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys

# The generated stubs: what they name are no edges (see the docstring).
STUBS = ("cushim-stubs.S",)
# An object of a library or of the command: <target>-<stem>.o, where target
# is automake's canonical name of the library or program, or <stem>.o where
# the source needs no flags of its target (the generated cushim-stubs.S).
# Another target's objects (a test's own copy of a source) are left out.
OBJ_RE = re.compile(r"^(?:(libcushim_\w+?_la|cushim)-)?(.+)\.o$")
OTHER_TARGET_RE = re.compile(r"^(?!libcushim_|cushim-)\w+-")
SOURCE_EXTS = (".c", ".S", ".s")
DEFINED = set("TDBRCVWGSiu")  # global definitions (upper case), unique, indirect
# Undefined; a weak reference (w) is no dependency: the code that makes it
# works where nothing defines the name (the shim's hook for the
# diagnostics' observers, src/shim/observers.c), so it is no edge.
UNDEFINED = set("U")


def find_objects(builddir):
    """{(reldir, object name): path}, the PIC copy (.libs) where there is one."""
    found = {}
    top = os.path.join(builddir, "src")
    for root, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if d not in ("sub-src",)]
        rel = os.path.relpath(root, builddir)
        pic = os.path.basename(root) == ".libs"
        if pic:
            rel = os.path.dirname(rel)
        for f in files:
            if OTHER_TARGET_RE.match(f) and not os.path.exists(os.path.join(root, f[:-2] + ".S")):
                continue
            if OBJ_RE.match(f) and (pic or (rel, f) not in found):
                found[(rel, f)] = os.path.join(root, f)
    return found


def source_of(rel, obj, srcdir, builddir):
    """The source an object was made from: its whole name first, then its
    name less the target's (src/cushim-stubs.S, src/shim/boot.c)."""
    for stem in (obj[:-2], OBJ_RE.match(obj).group(2)):
        for top in (srcdir, builddir):
            for ext in SOURCE_EXTS:
                if os.path.exists(os.path.join(top, rel, stem + ext)):
                    return os.path.normpath(os.path.join(rel, stem + ext))
    return None


def symbols(nm, path):
    """(defined, undefined) global symbol names of one object."""
    out = subprocess.run(nm + ["-P", path], check=True, capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind in UNDEFINED:
            undefined.add(name)
        elif kind in DEFINED:
            defined.add(name)
    return defined, undefined


# What each target links with: the command has the command's objects and
# common's alone, so a name it leaves undefined is never resolved to the
# library's (exec.c's execvp, which shadows the C library's there).
COMMAND = {"libcushim_cli_la", "cushim", "libcushim_common_la"}
LINKS = {"libcushim_cli_la": COMMAND, "cushim": COMMAND, "libcushim_common_la": {"libcushim_common_la"}}


def build_graph(nm, builddir, srcdir):
    objs = find_objects(builddir)
    files = {}  # source file -> (defined, undefined), united over its objects
    target = {}  # source file -> the target its object belongs to (None: the stubs)
    for (rel, obj), path in sorted(objs.items()):
        src = source_of(rel, obj, srcdir, builddir)
        if src is None:  # left by an older layout of the tree: not linked now
            print("depgraph: %s: no source, left out" % path, file=sys.stderr)
            continue
        d, u = symbols(nm, path)
        pd, pu = files.setdefault(src, (set(), set()))
        pd |= d
        pu |= u
        target.setdefault(src, OBJ_RE.match(obj).group(1))
    owners = {}
    for src, (d, _) in sorted(files.items()):
        for s in d:
            owners.setdefault(s, []).append(src)
    owner = {s: w[0] for s, w in owners.items()}

    def resolve(src, s):
        links = LINKS.get(target.get(src))
        for w in owners.get(s, ()):
            if links is None or target.get(w) in links:
                return w
        return None
    graph = {src: set() for src in files}
    why, cut = {}, set()
    for src, (_, u) in files.items():
        for s in u:
            dst = resolve(src, s)
            if dst and dst != src:
                why.setdefault((src, dst), set()).add(s)
                if os.path.basename(src) in STUBS:
                    cut.add((src, dst))
                else:
                    graph[src].add(dst)
    return graph, why, cut, owner


def sccs(graph):
    """Tarjan's strongly connected components, iteratively."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(sorted(comp))
    return out


def allowed(comp, groups):
    for g in groups:
        if all(f in g or os.path.basename(f) in g for f in comp):
            return True
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("builddir")
    ap.add_argument("--srcdir", help="the source tree (default: the builddir's, from its Makefile)")
    ap.add_argument("--nm", default=os.environ.get("NM", "nm"), help="the nm to run (default $NM or nm)")
    ap.add_argument("--allow", action="append", default=[], help="A,B: a cycle among these files is allowed")
    ap.add_argument("--edges", action="store_true", help="print every edge and the symbol that makes it")
    ap.add_argument("--headers", action="store_true", help="check that each header declares its own module's")
    ap.add_argument("--floors", action="store_true", help="print the folders and the arrows between them")
    a = ap.parse_args()
    srcdir = a.srcdir or top_srcdir(a.builddir)
    nm = shlex.split(a.nm)
    groups = [set(x.split(",")) for x in a.allow]
    try:
        graph, why, cut, owner = build_graph(nm, a.builddir, srcdir)
    except (OSError, subprocess.CalledProcessError) as e:
        print("depgraph: nm is not usable here (%s)" % e, file=sys.stderr)
        return 2
    if not graph:
        print("depgraph: no objects of libcushim_* or cushim under %s/src: build it first" % a.builddir,
              file=sys.stderr)
        return 2
    if a.headers:
        bad = check_headers(srcdir, owner)
        for b in bad:
            print("HEADER " + b)
        print("depgraph: %d declarations of another module's function" % len(bad))
        return 1 if bad else 0
    if a.floors:
        return 1 if print_floors(why, cut) else 0
    if a.edges:
        for src, dst in sorted(set(why)):
            print("%s -> %s (%s)%s" % (src, dst, ", ".join(sorted(why[(src, dst)])),
                                        " [the stubs: allowed]" if (src, dst) in cut else ""))
    bad = 0
    comps = [c for c in sccs(graph) if len(c) > 1]
    for comp in sorted(comps, key=lambda c: (-len(c), c)):
        ok = allowed(comp, groups)
        bad += not ok
        print("%s cycle of %d files:" % ("allowed" if ok else "CYCLE", len(comp)))
        for f in comp:
            inner = sorted(d for d in graph[f] if d in comp)
            print("  %s -> %s" % (f, ", ".join("%s (%s)" % (d, min(why[(f, d)])) for d in inner)))
    print("depgraph: %d files, %d cycles, %d not allowed" % (len(graph), len(comps), bad))
    return 1 if bad else 0


# A function declared in a header: a name, its parameters, then ';' (an
# attribute between them), not a function pointer's "(*name)".
DECL_RE = re.compile(r"\b([A-Za-z_]\w*)\s*\([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*\)\s*(?:CUSHIM_\w+\s*)?;")


def declared(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = re.sub(r"/\*.*?\*/", " ", f.read(), flags=re.S)
    text = re.sub(r"^\s*#.*$", " ", text, flags=re.M)
    return set(DECL_RE.findall(text)) - {"__attribute__", "sizeof", "_Static_assert", "typeof", "__typeof__"}


def check_headers(srcdir, owner):
    """Each header's functions, defined by its own C file: the mismatches."""
    bad = []
    for root, _, names in os.walk(os.path.join(srcdir, "src")):
        for h in sorted(n for n in names if n.endswith(".h")):
            c = os.path.normpath(os.path.relpath(os.path.join(root, h[:-2] + ".c"), srcdir))
            if not os.path.exists(os.path.join(srcdir, c)):
                continue
            for fn in sorted(declared(os.path.join(root, h))):
                where = owner.get(fn)
                if where and where != c:
                    bad.append("%s declares %s, which %s defines" % (os.path.relpath(os.path.join(root, h), srcdir),
                                                                        fn, where))
    return bad


FLOORS = ("common", "shim", "diag", "cli")


def print_floors(why, cut):
    """The folders and the file edges between them."""
    def floor(f):
        return os.path.dirname(f)[len("src/"):] if f.startswith("src/") else None
    files, arrows = {}, {}
    for (a, b), _ in why.items():
        fa, fb = floor(a), floor(b)
        if fa is None or fb is None or (a, b) in cut:
            continue
        files.setdefault(fa, set()).add(a)
        files.setdefault(fb, set()).add(b)
        if fa != fb:
            arrows[(fa, fb)] = arrows.get((fa, fb), 0) + 1

    def rank(f):
        top = f.split("/")[0]
        return FLOORS.index(top) if top in FLOORS else -1
    for f in sorted(files, key=lambda f: (rank(f), f)):
        print("floor %s: %d files" % (f or ".", len(files[f])))
    against = 0
    for (a, b), n in sorted(arrows.items(), key=lambda x: (rank(x[0][0]), x[0])):
        up = rank(a) >= 0 and rank(b) > rank(a)
        against += up
        print("arrow %s -> %s: %d%s" % (a or ".", b or ".", n, "  (AGAINST the order)" if up else ""))
    print("depgraph: %d arrows against the order %s" % (against, " < ".join(FLOORS)))
    return against


def top_srcdir(builddir):
    try:
        with open(os.path.join(builddir, "Makefile")) as f:
            for line in f:
                m = re.match(r"^abs_top_srcdir\s*=\s*(.*)$", line)
                if m:
                    return m.group(1).strip()
    except OSError:
        pass
    return builddir


if __name__ == "__main__":
    sys.exit(main())
