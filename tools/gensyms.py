#!/usr/bin/env python3
"""Generate cushim's symbol table from the committed table and the toolkit.

The rows are the union of the committed table (src/table/cuda-api.tsv, the
newest CUDA cushim knows, whatever is installed) and what the configured
toolkit's headers declare (a newer toolkit adds rows; tools/cudaapi.py reads
both the same way).  A row the toolkit declares keeps the toolkit's own
prototype; any other gets one of ABI-equivalent C types: the table's type
where the toolkit defines it (same size and alignment for a structure passed
by value), else the generic type of its kind (void *, fixed-width integers,
int for an enum, a structure of integer words of the same size and alignment).

  cushim-syms.h    X-macro table, one CUSHIM_SYM(...) row per variant, with
                   the argument descriptors the tracer decodes;
  cushim-stubs.S   the stubs (one load and one indirect jump each, on x86-64
                   and aarch64), the slots they jump through, and the
                   first-call trampoline: the assembly of src/shim/stubs.S.in
                   and its stubs-ARCH.S.in, the table's rows filled in;
  cushim-enums.h   the enums (values, names, and CUresult's documentation);
  cushim-syms.tsv  the same rows as text, for the documentation and tools.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cudaapi  # noqa: E402

FLAVOURS = {"": "CUSHIM_LEGACY", "_ptds": "CUSHIM_PTDS", "_ptsz": "CUSHIM_PTSZ"}
GENERIC = {"ptr": "void *", "str": "const char *", "handle": "void *", "f32": "float", "f64": "double",
           "enum": "int", "x32": "uint32_t", "x64": "uint64_t"}
CLASS = {"ptr": "CUSHIM_A_PTR", "str": "CUSHIM_A_STR", "handle": "CUSHIM_A_HEX", "x32": "CUSHIM_A_HEX",
         "x64": "CUSHIM_A_HEX", "f32": "CUSHIM_A_FLOAT", "f64": "CUSHIM_A_FLOAT", "enum": "CUSHIM_A_ENUM"}
C_WORDS = {"const", "volatile", "unsigned", "signed", "int", "char", "short", "long", "float", "double", "void",
           "struct", "enum", "union", "size_t"}


def version_text(v):
    return "%d.%d" % (v // 1000, v % 1000 // 10)


def row_name(r):
    """A lookup-only variant's label (never exported): base_v<version>[flavour]."""
    return r["name"] or "%s_v%d%s" % (r["base"], r["version"], r["flavour"])


# ---------------------------------------------------------------- the union

def union(local, table):
    """Every variant either knows, keyed by (base, version, flavour); the
    newer CUDA's name wins; the toolkit's prototype wherever it has one."""
    rows = {}
    for r in table.rows:
        rows[(r["base"], r["version"], r["flavour"])] = dict(r, local=None)
    newer_local = local.version > table.version
    named = {(r["base"], r["flavour"], r["name"]): k for k, r in rows.items() if r["name"]}
    for r in local.rows:
        key = (r["base"], r["version"], r["flavour"])
        if r.get("guessed") and key not in rows and (r["base"], r["flavour"], r["name"]) in named:
            key = named[(r["base"], r["flavour"], r["name"])]  # the table knows its real version
            r = dict(r, version=key[1])
        t = rows.get(key)
        if t and r["name"] != t["name"] and r["name"] and t["name"]:
            raise cudaapi.Error("the toolkit (CUDA %s) names %s what the table (CUDA %s) names %s" % (
                version_text(local.version), r["name"], version_text(table.version), t["name"]))
        name = r["name"] if (newer_local or not t) else t["name"]
        kinds = local.kinds(r)
        if t and [k for _, k, _ in kinds] != [k for _, k, _ in t["kinds"]]:
            raise cudaapi.Error("the toolkit and the table pass %s's parameters differently: %s, %s" % (
                row_name(t), [k for _, k, _ in kinds], [k for _, k, _ in t["kinds"]]))
        rows[key] = dict(r, name=name, kinds=kinds, local=r)
    out = sorted(rows.values(), key=row_name)
    names = [row_name(r) for r in out]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise cudaapi.Error("two variants map to one name: %s" % ", ".join(sorted(dup)))
    return out


# ---------------------------------------------------------------- prototypes

class Protos:
    """The C prototype of every row, and the generic types it needs."""

    def __init__(self, local):
        self.local = local
        self.generic = {}     # "cushim_struct_S_A" -> (size, align)
        self.checks = {}      # local struct type -> (size, align): checked by the compiler

    def c_type(self, kind, ty):
        if kind.startswith("struct/"):
            size, align = (int(x) for x in kind.split("/")[1:])
            if self.known(ty):
                have = self.local.types.layout(self.local.types.resolve(cudaapi.strip_stars(ty)[0]))
                if have[:2] == (size, align):
                    self.checks[ty] = (size, align)
                    return ty
            name = "cushim_struct_%d_%d" % (size, align)
            self.generic[name] = (size, align)
            return name
        if self.known(ty):
            return ty
        if kind in GENERIC:
            return GENERIC[kind]
        return "%sint%s_t" % ("u" if kind[0] == "u" else "", kind[1:])

    def known(self, ty):
        return all(w in C_WORDS or w in self.local.decl_types for w in re.findall(r"\w+", ty))

    def params(self, r):
        """[(C type, name, kind, written type)] of a row."""
        if r["local"]:
            for _, k, ty in r["kinds"]:
                if k.startswith("struct/"):
                    self.checks[ty] = tuple(int(x) for x in k.split("/")[1:])
            return [(ty, n, k, ty) for (ty, n), (_, k, _) in zip(r["local"]["params"], r["kinds"])]
        return [(self.c_type(k, ty), n, k, ty) for n, k, ty in r["kinds"]]


# ---------------------------------------------------------------- enums

def merged_enums(local, table, raw_cuda_h):
    """The toolkit's enums, completed with the table's values, then the
    table's other enums: [(names, [(NAME, value, doc)])]."""
    docs = result_docs(raw_cuda_h)
    enums = [(list(n), [(a, v, docs.get(a, "") if "CUresult" in n else "") for a, v in e])
             for n, e in local.public.enums]
    where = {n: i for i, (names, _) in enumerate(enums) for n in names}
    for key, entries in table.enums.items():
        names = [key] + table.enum_names.get(key, [])
        hit = [where[n] for n in names if n in where]
        if hit:
            have = {a for a, _, _ in enums[hit[0]][1]}
            enums[hit[0]][1].extend((a, v, "") for a, v in entries if a not in have)
            enums[hit[0]][0].extend(n for n in names if n not in where)
        else:
            enums.append((names, [(a, v, "") for a, v in entries]))
        for n in names:
            where.setdefault(n, hit[0] if hit else len(enums) - 1)
    return enums


def result_docs(text):
    """The first sentence of each CUresult code's documentation."""
    m = re.search(r"typedef\s+enum\s+cudaError_enum\s*\{(.*?)\}\s*CUresult\s*;", text, re.S)
    docs = {}
    for dm in re.finditer(r"/\*\*((?:(?!\*/).)*)\*/\s*(CUDA_\w+)", m.group(1) if m else "", re.S):
        d = " ".join(re.sub(r"^\s*\*+", "", dm.group(1), flags=re.M).replace("::", "").split())
        d = re.sub(r"\\\w+\s*", "", d)
        docs[dm.group(2)] = re.split(r"(?<=\.)\s", d, 1)[0].strip()
    return docs


def c_escape(s):
    return s.replace("\\", "\\\\").replace('"', '\\"')


# ---------------------------------------------------------------- output

def write_syms(o, rows, protos, enum_ids, banner, local, table):
    o.write(banner)
    body = []
    for i, r in enumerate(rows):
        ps = protos.params(r)
        params = "(" + (", ".join(t + ("" if t.endswith("*") else " ") + "a%d" % k
                                  for k, (t, _, _, _) in enumerate(ps)) or "void") + ")"
        args = "(" + ", ".join("a%d" % k for k in range(len(ps))) + ")"
        descs, u64s = [], []
        for k, (t, n, kind, ty) in enumerate(ps):
            if kind.startswith("struct/"):  # passed by value: the tracer shows its bytes
                u64s.append("CUSHIM_U64(&a%d)" % k)
                descs.append('{"%s", CUSHIM_A_STRUCT, sizeof(%s)}' % (n, t))
                continue
            if kind == "enum":
                eid = enum_ids.get(ty.replace("enum ", "").replace("const ", "").strip(), -1)
                cls = "CUSHIM_A_ENUM" if eid >= 0 else "CUSHIM_A_INT"
            else:
                eid, cls = -1, CLASS.get(kind, "CUSHIM_A_INT" if kind[0] == "i" else "CUSHIM_A_UINT")
            u64s.append(("CUSHIM_F64(a%d)" if cls == "CUSHIM_A_FLOAT" else "CUSHIM_U64(a%d)") % k)
            descs.append('{"%s", %s, %d}' % (n, cls, eid))
        body.append('CUSHIM_SYM(%d, %s, %s, %d, %s, "%s", %s, %s, (%s), %d, (%s))\n' % (
            i, row_name(r), r["base"], r["version"], FLAVOURS[r["flavour"]], r["hdr"], params, args,
            ", ".join(u64s), len(ps), ", ".join(descs)))
    o.write("#ifndef CUSHIM_SYMS_COUNT\n#define CUSHIM_SYMS_COUNT\n")
    o.write("#define CUSHIM_NSYMS %d /* rows: the exports and the lookup-only variants */\n" % len(rows))
    o.write("#define CUSHIM_NEXPORTS %d\n" % sum(1 for r in rows if r["name"]))
    o.write("#define CUSHIM_TOOLKIT_VERSION %d /* the configured toolkit's headers */\n" % local.version)
    o.write("#define CUSHIM_TABLE_VERSION %d /* the committed table (%s) */\n" % (table.version, table.source))
    o.write("#define CUSHIM_NEWEST_VERSION %d\n" % max(local.version, table.version))
    for name, (size, align) in sorted(protos.generic.items()):
        o.write("typedef struct { uint%d_t w[%d]; } %s; /* a structure of integers passed by value */\n"
                % (8 * align, size // align, name))
    o.write("#endif\n#ifdef CUSHIM_SYM\n/* CUSHIM_SYM(index, name, base name, version, flavour, typedef header,\n"
            " *            (parameters), (arguments), (arguments as uint64), nargs,\n"
            " *            ({name, class, enum}...)) */\n")
    o.write("".join(body))
    o.write("#endif\n")
    o.write("#ifdef CUSHIM_ROW /* CUSHIM_ROW(index, name, base name, version, flavour, lookup-only) */\n")
    o.write("".join("CUSHIM_ROW(%d, %s, %s, %d, %s, %d)\n" % (i, row_name(r), r["base"], r["version"],
                                                               FLAVOURS[r["flavour"]], 0 if r["name"] else 1)
                    for i, r in enumerate(rows)))
    o.write("#endif\n")
    lists = [("CUSHIM_LOOKUP_ONLY", "variants with no exported name: reached through cuGetProcAddress only",
              [i for i, r in enumerate(rows) if not r["name"]]),
             ("CUSHIM_UNDECLARED", "rows the configured toolkit's headers do not declare (the table's)",
              [i for i, r in enumerate(rows) if not r["local"]]),
             ("CUSHIM_DECLARED", "the exports the configured toolkit's headers declare",
              [i for i, r in enumerate(rows) if r["local"] and r["local"]["name"]])]
    for macro, what, idx in lists:
        o.write("#ifdef %s /* %s(index, name): %s */\n" % (macro, macro, what))
        o.write("".join("%s(%d, %s)\n" % (macro, i, row_name(rows[i])) for i in idx))
        o.write("#endif\n")
    o.write("#ifdef CUSHIM_STRUCT_CHECK /* the table's size and alignment of a structure the toolkit defines */\n")
    o.write("".join("CUSHIM_STRUCT_CHECK(%s, %d, %d)\n" % (t, s, a) for t, (s, a) in sorted(protos.checks.items())))
    o.write("#endif\n")


def write_enums(o, enums, banner):
    o.write(banner)
    o.write("#define CUSHIM_NENUMS %d\n" % len(enums))
    o.write("/* CUSHIM_ENUM(index, \"type name\", ({value, \"NAME\", \"doc\"}...)); the ids are\n"
            " * defined once, the rows only where the includer defines CUSHIM_ENUM. */\n"
            "#ifndef CUSHIM_ENUM_IDS\n#define CUSHIM_ENUM_IDS\n")
    for i, (names, _) in enumerate(enums):
        o.write("".join("#define CUSHIM_ENUM_ID_%s %d\n" % (n, i) for n in names))
    o.write("#endif\n#ifdef CUSHIM_ENUM\n")
    for i, (names, entries) in enumerate(enums):
        o.write('CUSHIM_ENUM(%d, "%s", (%s))\n' % (i, names[-1] if "CUresult" not in names else "CUresult", ", ".join(
            '{%d, "%s", "%s"}' % (v, n, c_escape(d)) for n, v, d in entries)))
    o.write("#endif\n")


def write_tsv(o, rows):
    o.write("# name\tbase\tversion\tflavour\theader\tprototype\texported\tdeclared by\n")
    for r in rows:
        proto = ", ".join("%s %s" % (ty, n) for n, _, ty in r["kinds"]) or "void"
        o.write("%s\t%s\t%d\t%s\t%s\tCUresult %s(%s)\t%s\t%s\n" % (
            row_name(r), r["base"], r["version"], cudaapi.FLAVOUR_NAMES[r["flavour"]], r["hdr"], row_name(r), proto,
            "yes" if r["name"] else "lookup-only", "toolkit" if r["local"] else "table"))


ROW_FIELDS = ("@NAME@", "@ROW@", "@EXPORTED@")


def template_lines(path):
    """The stubs' template (src/shim/stubs.S.in, whose head describes its
    syntax): its lines, its own comments (@#) dropped and each @include
    replaced by the lines of the file it names."""
    lines = []
    try:
        text = open(path, encoding="utf-8").read()
    except OSError as e:
        raise cudaapi.Error("the stubs' template: %s" % e)
    for k, line in enumerate(text.splitlines(keepends=True), 1):
        m = re.match(r"@include (\S+)\s*$", line)
        if m:
            lines.extend(template_lines(os.path.join(os.path.dirname(path), m.group(1))))
        elif line.startswith("@") and not line.startswith("@#"):
            raise cudaapi.Error("%s:%d: not a line of the template's: %s" % (path, k, line.strip()))
        elif not line.startswith("@#"):
            bad = set(re.findall(r"@\w+@", line)) - set(ROW_FIELDS)
            if bad:
                raise cudaapi.Error("%s:%d: no placeholder %s" % (path, k, ", ".join(sorted(bad))))
            lines.append(line)
    return lines


def write_stubs(o, rows, banner, template):
    """The template as written, each line with a row's placeholder once per row."""
    o.write(banner)
    for line in template:
        if not any(f in line for f in ROW_FIELDS):
            o.write(line)
            continue
        o.write("".join(line.replace("@NAME@", row_name(r)).replace("@ROW@", str(i))
                        .replace("@EXPORTED@", "1" if r["name"] else "0") for i, r in enumerate(rows)))


def output(path, writer, *args):
    with open(path + ".tmp", "w") as o:
        writer(o, *args)
    os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--include", required=True, help="the configured toolkit's include folder")
    ap.add_argument("--table", required=True, help="the committed table (src/table/cuda-api.tsv)")
    ap.add_argument("--outdir", required=True)
    ap.add_argument("--cpp", default=os.environ.get("CPP", "cc -E"))
    ap.add_argument("--stubs", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "shim",
                                                    "stubs.S.in"), help="the stubs' template (src/shim/stubs.S.in)")
    a = ap.parse_args()
    try:
        local = cudaapi.Api([a.include], a.cpp)
        table = cudaapi.Table(a.table)
        rows = union(local, table)
        protos = Protos(local)
        for r in rows:
            protos.params(r)
        raw = open(local.find("cuda.h"), encoding="utf-8", errors="replace").read()
        enums = merged_enums(local, table, raw)
        template = template_lines(a.stubs)
    except cudaapi.Error as e:
        cudaapi.die(str(e))
    enum_ids = {n: i for i, (names, _) in enumerate(enums) for n in names}
    banner = ("/* Generated by tools/gensyms.py from %s (CUDA %s: %s) and %s (CUDA %s).\n"
              " * Do not edit; change the generator or regenerate the table. */\n" % (
                  a.include, version_text(local.version), ", ".join(local.files), a.table,
                  version_text(table.version)))
    os.makedirs(a.outdir, exist_ok=True)
    out = lambda name: os.path.join(a.outdir, name)  # noqa: E731
    output(out("cushim-syms.h"), write_syms, rows, protos, enum_ids, banner, local, table)
    output(out("cushim-enums.h"), write_enums, enums, banner)
    output(out("cushim-syms.tsv"), write_tsv, rows)
    output(out("cushim-stubs.S"), write_stubs, rows, banner, template)


if __name__ == "__main__":
    main()
