#!/usr/bin/env python3
"""Generate cushim's symbol table from a CUDA toolkit's headers.

The toolkit's cuda*Typedefs.h declare one PFN_<base>_v<version>[_ptds|_ptsz]
typedef per ABI variant of every driver function, with its full prototype on
one line.  This script turns them into the one table the rest of cushim is
built from:

  cushim-syms.h   X-macro table, one CUSHIM_SYM(...) row per exported name,
                  with the argument descriptors the tracer decodes;
  cushim-enums.h  every enum of cuda.h (values, names, and for CUresult the
                  first sentence of its documentation);
  cushim-syms.tsv the same rows as text, for the documentation and tools.

The exported (ABI) name of a variant is derived from the header order: the
oldest legacy variant is <base>, the next <base>_v2, and so on (anchored on
cuda.h's '#define <base> <base>_vN' only where that N is above the count of
typedefs, i.e. older variants were dropped); a per-thread variant
takes the name of the newest legacy variant at or before its version plus
_ptds or _ptsz.  Nothing here names a CUDA version.
"""
import argparse
import os
import re
import sys

TYPEDEF_HEADERS = [  # (file, the header declaring its functions, needed)
    ("cudaTypedefs.h", "cuda.h", True),
    ("cudaProfilerTypedefs.h", "cudaProfiler.h", False),
    ("cudaGLTypedefs.h", "cudaGL.h", False),
    ("cudaEGLTypedefs.h", "cudaEGL.h", False),
    ("cudaVDPAUTypedefs.h", "cudaVDPAU.h", False),
]

PFN_RE = re.compile(
    r"typedef\s+(?P<ret>[\w\s\*]+?)\s*\(\s*CUDAAPI\s*\*\s*PFN_(?P<base>\w+?)(?:_v(?P<ver>\d+))?"
    r"(?P<fl>_ptds|_ptsz)?\s*\)\s*\((?P<params>.*)\)\s*;")
FLAVOURS = {"": "CUSHIM_LEGACY", "_ptds": "CUSHIM_PTDS", "_ptsz": "CUSHIM_PTSZ"}


def die(msg):
    sys.stderr.write("gensyms: %s\n" % msg)
    sys.exit(1)


def active_lines(path):
    """Yield the lines of a header outside '#ifdef _WIN32' branches."""
    stack = []  # each entry: True where that branch is Windows-only
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            s = line.strip()
            m = re.match(r"#\s*(if|ifdef|ifndef|elif|else|endif)\b(.*)", s)
            if m:
                kw, rest = m.group(1), m.group(2)
                win = "_WIN32" in rest or "_WIN64" in rest
                if kw in ("if", "ifdef"):
                    stack.append(win)
                elif kw == "ifndef":
                    stack.append(False)
                elif kw in ("elif", "else") and stack:
                    stack[-1] = False
                elif kw == "endif" and stack:
                    stack.pop()
                continue
            if not any(stack):
                yield line


def split_params(text):
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += ch in "([" 
        depth -= ch in ")]"
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


KEYWORDS = {"const", "volatile", "unsigned", "signed", "int", "char", "short", "long",
            "float", "double", "void", "struct", "enum", "union", "size_t"}


def parse_param(p, i):
    """Return (type, original name) of one parameter."""
    if "(" in p or "[" in p:
        die("cannot parse parameter %r" % p)
    m = re.match(r"(.*?)(\w+)\s*$", p)
    toks = re.findall(r"\w+|\*", p)
    if m and len(toks) > 1 and m.group(2) not in KEYWORDS and m.group(1).split()[-1:] not in (["struct"], ["enum"]):
        ty, name = m.group(1).strip(), m.group(2)
    else:
        ty, name = p.strip(), "arg%d" % i
    ty = re.sub(r"\s*\*\s*", "*", ty)
    ty = re.sub(r"\*(?=\w)", "* ", ty).replace("*", " *").replace("  ", " ").strip()
    ty = re.sub(r"\s+\*", " *", ty).replace("* *", "**")
    return ty, name


def read_typedefs(incdir, cuda_version):
    """Every PFN_ typedef.  A few headers (12.4) forgot the _v<version> of a
    function's only variant: that one is taken to be the toolkit's own version,
    the latest it can be, so that cushim never asks an older driver for it."""
    variants = {}  # base -> list of dict
    files = []
    for fname, decls, needed in TYPEDEF_HEADERS:
        path = os.path.join(incdir, fname)
        if not os.path.exists(path) or not os.path.exists(os.path.join(incdir, decls)):
            if needed:
                die("%s not found: is %s a CUDA toolkit's include folder?" % (path, incdir))
            continue  # without its declarations (and types) the stubs could not compile
        files.append(fname)
        for line in active_lines(path):
            if "PFN_" not in line or "typedef" not in line:
                continue
            m = PFN_RE.search(line)
            if not m:
                continue  # the unversioned '#define PFN_x PFN_x_vN' aliases
            ret = " ".join(m.group("ret").split())
            if ret != "CUresult":
                die("PFN_%s_v%s returns %s, not CUresult" % (m.group("base"), m.group("ver"), ret))
            params = split_params(m.group("params"))
            if params in ([], ["void"]):
                params = []
            variants.setdefault(m.group("base"), []).append({
                "base": m.group("base"), "ver": int(m.group("ver") or cuda_version), "fl": m.group("fl") or "",
                "unversioned": m.group("ver") is None,
                "params": [parse_param(p, i) for i, p in enumerate(params)], "header": fname})
    for base, vs in variants.items():
        if any(v["unversioned"] for v in vs) and len(vs) > 1:
            vs[:] = [v for v in vs if not v["unversioned"]]  # an alias of a versioned one
    return variants, files


def read_cuda_h(incdir):
    path = os.path.join(incdir, "cuda.h")
    if not os.path.exists(path):
        die("%s not found" % path)
    text = open(path, encoding="utf-8", errors="replace").read()
    m = re.search(r"#define\s+CUDA_VERSION\s+(\d+)", text)
    if not m:
        die("no CUDA_VERSION in %s" % path)
    latest = {}
    for dm in re.finditer(r"#define\s+(cu\w+)\s+(?:__CUDA_API_PT(?:DS|SZ)\()?(\w+?)_v(\d+)\)?\s*$",
                          text, re.M):
        if dm.group(2) == dm.group(1):
            latest[dm.group(1)] = int(dm.group(3))
    return int(m.group(1)), latest, text


def name_variants(variants, latest):
    rows = []
    for base, vs in variants.items():
        legacy = sorted((v for v in vs if not v["fl"]), key=lambda v: v["ver"])
        n = len(legacy)
        # Ordinals count from the oldest (base, _v2, _v3...).  cuda.h's
        # '#define base base_vN' names the default variant, not always the
        # newest (12.4 maps cuCtxCreate to _v2 beside _v3); only an N above
        # the count means older variants are gone from the typedefs, and
        # then the names are anchored on it.
        top = max(latest.get(base, n), n)
        for i, v in enumerate(legacy):
            k = top - (n - 1 - i)
            v["name"] = base if k == 1 else "%s_v%d" % (base, k)
        for v in vs:
            if v["fl"]:
                prior = [u for u in legacy if u["ver"] <= v["ver"]]
                v["name"] = (prior[-1]["name"] if prior else base) + v["fl"]
        rows.extend(vs)
    names = [r["name"] for r in rows]
    dup = {x for x in names if names.count(x) > 1}
    if dup:
        die("two variants map to one name: %s" % ", ".join(sorted(dup)))
    return sorted(rows, key=lambda r: r["name"])


def c_escape(s):
    return s.replace("\\", "\\\\").replace('"', '\\"')


def read_enums(text):
    """Every 'typedef enum X { ... } Y;' of the headers: (names, entries)."""
    enums = []
    known = {}
    seen = set()
    for m in re.finditer(r"typedef\s+enum\s+(\w+)?\s*\{(.*?)\}\s*(\w+)\s*;", text, re.S):
        tag, body, tname = m.group(1), m.group(2), m.group(3)
        entries, nextval = [], 0
        for em in re.finditer(r"(/\*\*(?:(?!\*/).)*\*/\s*)?(\b[A-Z][A-Z0-9_]*\b)\s*(?:=\s*([^,/]+?))?\s*(,|$|/)",
                              body, re.S):
            doc, ename, val = em.group(1), em.group(2), em.group(3)
            if val is not None:
                expr = val.strip()
                for k, v in known.items():
                    expr = re.sub(r"\b%s\b" % k, str(v), expr)
                expr = re.sub(r"(?<=\d)[uUlL]+\b", "", expr)
                try:
                    value = int(eval(expr, {"__builtins__": {}}))
                except Exception:
                    continue
            else:
                value = nextval
            nextval = value + 1
            known[ename] = value
            desc = ""
            if doc:
                d = re.sub(r"^\s*/?\*+/?", "", doc, flags=re.M)
                d = " ".join(d.replace("::", "").split()).strip()
                d = re.sub(r"\\\w+\s*", "", d)
                desc = re.split(r"(?<=\.)\s", d, 1)[0].strip()
            entries.append((ename, value, desc))
        names = [n for n in (tag, tname) if n]
        if entries and not any(n in seen for n in names):  # first of #if/#else twins
            enums.append((names, entries))
            seen.update(names)
    byname = {n: i for i, (names, _) in enumerate(enums) for n in names}
    for am in re.finditer(r"typedef\s+(?:enum\s+)?(\w+)\s+(\w+)\s*;", text):
        if am.group(1) in byname and am.group(2) not in byname:
            enums[byname[am.group(1)]][0].append(am.group(2))
            byname[am.group(2)] = byname[am.group(1)]
    return enums


def read_structs(text):
    """Names of the struct and union types passed by value."""
    names = set()
    for m in re.finditer(r"typedef\s+(?:struct|union)\s*\w*\s*\{", text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        tail = text[i:text.index(";", i)]
        names.update(t for t in re.findall(r"\w+", tail) if "*" not in t)
    changed = True
    while changed:
        changed = False
        for am in re.finditer(r"typedef\s+(\w+)\s+(\w+)\s*;", text):
            if am.group(1) in names and am.group(2) not in names:
                names.add(am.group(2))
                changed = True
    return names


CLASSES = [  # how the tracer prints an argument, by its type
    (r"^const char \*$", "CUSHIM_A_STR"),
    (r"\*", "CUSHIM_A_PTR"),
    (r"^(CUdeviceptr|CUdeviceptr_v\d|CUdeviceptr_v2)$", "CUSHIM_A_HEX"),
    (r"^(CU(context|module|function|library|kernel|stream|event|array|mipmappedArray|texref|surfref|"
     r"graph|graphNode|graphExec|graphicsResource|linkState|memoryPool|userObject|"
     r"externalMemory|externalSemaphore|greenCtx|devResourceDesc|logsCallbackHandle|"
     r"graphDeviceNode|coredumpCallbackHandle|asyncCallbackHandle|hostFn|streamCallback|"
     r"occupancyB2DSize|logsCallback|asyncCallback|coredumpCallback)|"
     r"CUtexObject(_v\d)?|CUsurfObject(_v\d)?|CUmemGenericAllocationHandle(_v\d)?|"
     r"EGL\w+KHR|VdpGetProcAddress|CUeglStreamConnection)$", "CUSHIM_A_HEX"),
    (r"^(float|double)$", "CUSHIM_A_FLOAT"),
    (r"^(int|short|long|long long|signed \w+|CUdevice|CUdevice_v\d|EGLint)$", "CUSHIM_A_INT"),
    (r"^(unsigned|unsigned int|unsigned short|unsigned char|unsigned long|unsigned long long|size_t|"
     r"cuuint32_t|cuuint64_t|GLuint|GLenum|VdpDevice|VdpVideoSurface|VdpOutputSurface|"
     r"CUmemGenericAllocationHandle|CUgraphConditionalHandle)$", "CUSHIM_A_UINT"),
]


def classify(ty, enum_ids, structs):
    base = ty.replace("enum ", "").replace("const ", "").strip()
    if base in enum_ids:
        return "CUSHIM_A_ENUM", enum_ids[base]
    if base in structs:
        return "CUSHIM_A_STRUCT", -1
    for rx, cls in CLASSES:
        if re.search(rx, ty):
            return cls, -1
    die("cannot classify parameter type %r for the tracer" % ty)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--include", required=True, help="the CUDA toolkit's include folder")
    ap.add_argument("--outdir", required=True)
    a = ap.parse_args()
    cuda_version, latest, cuda_h = read_cuda_h(a.include)
    variants, files = read_typedefs(a.include, cuda_version)
    rows = name_variants(variants, latest)
    texts = cuda_h
    for extra in ("cudaProfiler.h", "cudaGL.h", "cudaEGL.h", "cudaVDPAU.h"):
        path = os.path.join(a.include, extra)
        if os.path.exists(path):
            texts += open(path, encoding="utf-8", errors="replace").read()
    enums = read_enums(texts)
    structs = read_structs(texts)
    enum_ids = {}
    for i, (names, _) in enumerate(enums):
        for n in names:
            enum_ids[n] = i
    banner = ("/* Automatically generated by tools/gensyms.py from %s (CUDA_VERSION %d):\n"
              " * %s.  Do not edit; change the generator. */\n" % (a.include, cuda_version, ", ".join(files)))
    os.makedirs(a.outdir, exist_ok=True)

    with open(os.path.join(a.outdir, "cushim-syms.h.tmp"), "w") as o:
        o.write(banner)
        o.write("#ifndef CUSHIM_SYMS_COUNT\n#define CUSHIM_SYMS_COUNT\n"
                "#define CUSHIM_NSYMS %d\n#define CUSHIM_TOOLKIT_VERSION %d\n#endif\n"
                "#ifdef CUSHIM_SYM\n" % (len(rows), cuda_version))
        o.write("/* CUSHIM_SYM(index, exported name, base name, version, flavour, header,\n"
                " *            (parameters), (arguments), (arguments as uint64), nargs,\n"
                " *            ({name, class, enum}...)) */\n")
        for i, r in enumerate(rows):
            ps = r["params"]
            params = "(" + (", ".join("%s a%d" % (t, k) if not t.endswith("*") else "%sa%d" % (t, k)
                                      for k, (t, _) in enumerate(ps)) or "void") + ")"
            args = "(" + ", ".join("a%d" % k for k in range(len(ps))) + ")"
            descs, u64s = [], []
            for k, (t, n) in enumerate(ps):
                cls, eid = classify(t, enum_ids, structs)
                if cls == "CUSHIM_A_STRUCT":  # passed by value: the tracer shows its bytes
                    u64s.append("CUSHIM_U64(&a%d)" % k)
                    descs.append('{"%s", %s, sizeof(%s)}' % (n, cls, t))
                elif cls == "CUSHIM_A_FLOAT":  # the tracer gets the bits of a double
                    u64s.append("CUSHIM_F64(a%d)" % k)
                    descs.append('{"%s", %s, %d}' % (n, cls, eid))
                else:
                    u64s.append("CUSHIM_U64(a%d)" % k)
                    descs.append('{"%s", %s, %d}' % (n, cls, eid))
            u64 = "(" + ", ".join(u64s) + ")"
            o.write('CUSHIM_SYM(%d, %s, %s, %d, %s, "%s", %s, %s, %s, %d, (%s))\n' % (
                i, r["name"], r["base"], r["ver"], FLAVOURS[r["fl"]], r["header"], params, args, u64,
                len(ps), ", ".join(descs)))
        o.write("#endif\n")
    os.replace(os.path.join(a.outdir, "cushim-syms.h.tmp"), os.path.join(a.outdir, "cushim-syms.h"))

    with open(os.path.join(a.outdir, "cushim-enums.h.tmp"), "w") as o:
        o.write(banner)
        o.write("#define CUSHIM_NENUMS %d\n" % len(enums))
        o.write("/* CUSHIM_ENUM(index, \"type name\", ({value, \"NAME\", \"doc\"}...)); the ids are\n"
                " * defined once, the rows only where the includer defines CUSHIM_ENUM. */\n"
                "#ifndef CUSHIM_ENUM_IDS\n#define CUSHIM_ENUM_IDS\n")
        for i, (names, entries) in enumerate(enums):
            o.write("".join("#define CUSHIM_ENUM_ID_%s %d\n" % (n, i) for n in names))
        o.write("#endif\n#ifdef CUSHIM_ENUM\n")
        for i, (names, entries) in enumerate(enums):
            o.write('CUSHIM_ENUM(%d, "%s", (%s))\n' % (i, names[-1], ", ".join(
                '{%d, "%s", "%s"}' % (v, n, c_escape(d)) for n, v, d in entries)))
        o.write("#endif\n")
    os.replace(os.path.join(a.outdir, "cushim-enums.h.tmp"), os.path.join(a.outdir, "cushim-enums.h"))

    with open(os.path.join(a.outdir, "cushim-syms.tsv.tmp"), "w") as o:
        o.write("# name\tbase\tversion\tflavour\theader\tprototype\n")
        for r in rows:
            proto = ", ".join("%s %s" % (t, n) for t, n in r["params"]) or "void"
            o.write("%s\t%s\t%d\t%s\t%s\tCUresult %s(%s)\n" % (
                r["name"], r["base"], r["ver"], {"": "legacy", "_ptds": "ptds", "_ptsz": "ptsz"}[r["fl"]],
                r["header"], r["name"], proto))
    os.replace(os.path.join(a.outdir, "cushim-syms.tsv.tmp"), os.path.join(a.outdir, "cushim-syms.tsv"))


if __name__ == "__main__":
    main()
