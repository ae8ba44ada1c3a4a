"""What a CUDA include folder says about the driver API, as facts.

Shared by tools/mktable.py (which writes the committed table) and
tools/gensyms.py (which builds cushim's generated sources from that table and
the configured toolkit).  The headers are read through the C preprocessor, as
the driver itself is built (__CUDA_API_VERSION_INTERNAL), with a folder of
stand-in system headers so that no system header is needed:

  - the functions cuda.h (and cudaProfiler.h, cudaGL.h, cudaEGL.h,
    cudaVDPAU.h) declare: the only names an export may have;
  - the PFN_<base>_v<version>[_ptds|_ptsz] typedefs of cuda*Typedefs.h: one
    ABI variant each, with its version and stream flavour;
  - the typedefs, structures and enums they use: each parameter's kind (how it
    is passed and how the tracer prints it), by-value structures' size and
    alignment, and the enums' names and values.

An exported name is paired with a variant by order and checked by prototype
(typedefs resolved): a declared name gets the oldest variant of its flavour
whose prototype is its own.  A variant left over has no name of its own
(13.5's cuGraphAddNode at 13040 beside cuGraphAddNode_v2): it is reachable
only through cuGetProcAddress with that version, and is kept as a
lookup-only row.  Nothing here names a CUDA version.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

# (typedef header, the header declaring its functions), in table order.
GROUPS = [
    ("cudaTypedefs.h", "cuda.h"),
    ("cudaProfilerTypedefs.h", "cudaProfiler.h"),
    ("cudaGLTypedefs.h", "cudaGL.h"),
    ("cudaEGLTypedefs.h", "cudaEGL.h"),
    ("cudaVDPAUTypedefs.h", "cudaVDPAU.h"),
]
FLAVOURS = ("", "_ptds", "_ptsz")
FLAVOUR_NAMES = {"": "legacy", "_ptds": "ptds", "_ptsz": "ptsz"}

# The C library types cuda.h and the interop headers use, LP64 (Linux on
# x86-64 and aarch64): stand-ins, so that no system header is read.
STUB_HEADERS = {
    "stddef.h": "typedef unsigned long size_t;\n",
    "stdlib.h": "#include <stddef.h>\n",
    "stdint.h": "".join("typedef %s %s;\n" % p for p in [
        ("signed char", "int8_t"), ("short", "int16_t"), ("int", "int32_t"), ("long", "int64_t"),
        ("unsigned char", "uint8_t"), ("unsigned short", "uint16_t"), ("unsigned int", "uint32_t"),
        ("unsigned long", "uint64_t"), ("long", "intptr_t"), ("unsigned long", "uintptr_t")]),
    "GL/gl.h": "typedef unsigned int GLuint;\ntypedef unsigned int GLenum;\n",
    "EGL/egl.h": "#include <stdint.h>\ntypedef int32_t EGLint;\ntypedef void *EGLImageKHR;\n"
                 "typedef void *EGLStreamKHR;\ntypedef void *EGLSyncKHR;\n",
    "EGL/eglext.h": "",
    "vdpau/vdpau.h": "#include <stdint.h>\ntypedef uint32_t VdpDevice;\ntypedef uint32_t VdpVideoSurface;\n"
                     "typedef uint32_t VdpOutputSurface;\ntypedef uint32_t VdpFuncId;\n"
                     "typedef enum { VDP_STATUS_OK = 0 } VdpStatus;\n"
                     "typedef VdpStatus VdpGetProcAddress(VdpDevice device, VdpFuncId function_id, "
                     "void **function_pointer);\n",
}

# Integer types the tracer prints in hex: addresses and opaque handles.
HEX_INTS = re.compile(r"^(CUdeviceptr|CUtexObject|CUsurfObject|CUmemGenericAllocationHandle)(_v\d+)?$")

BASE_TYPES = {  # tokens (sorted) -> (class, size, signed)
    ("void",): ("void", 0, 0),
    ("char",): ("int", 1, 1), ("char", "signed"): ("int", 1, 1), ("char", "unsigned"): ("int", 1, 0),
    ("short",): ("int", 2, 1), ("int", "short"): ("int", 2, 1), ("short", "signed"): ("int", 2, 1),
    ("short", "unsigned"): ("int", 2, 0), ("int", "short", "unsigned"): ("int", 2, 0),
    ("int",): ("int", 4, 1), ("signed",): ("int", 4, 1), ("int", "signed"): ("int", 4, 1),
    ("unsigned",): ("int", 4, 0), ("int", "unsigned"): ("int", 4, 0),
    ("long",): ("int", 8, 1), ("int", "long"): ("int", 8, 1), ("long", "signed"): ("int", 8, 1),
    ("long", "unsigned"): ("int", 8, 0), ("int", "long", "unsigned"): ("int", 8, 0),
    ("long", "long"): ("int", 8, 1), ("long", "long", "signed"): ("int", 8, 1),
    ("long", "long", "unsigned"): ("int", 8, 0), ("int", "long", "long", "unsigned"): ("int", 8, 0),
    ("_Bool",): ("int", 1, 0), ("float",): ("float", 4, 1), ("double",): ("float", 8, 1),
}
QUALIFIERS = {"const", "volatile", "restrict", "__restrict", "extern", "static", "inline", "__inline"}


class Error(Exception):
    pass


def die(msg):
    sys.stderr.write("%s: %s\n" % (os.path.splitext(os.path.basename(sys.argv[0]))[0], msg))
    sys.exit(1)


# ---------------------------------------------------------------- the preprocessor

def preprocess(incdirs, headers, internal, cpp):
    """The headers, preprocessed, as [(file, text)] chunks in order."""
    stub = tempfile.mkdtemp(prefix="cudaapi.")
    try:
        for name, text in STUB_HEADERS.items():
            os.makedirs(os.path.dirname(os.path.join(stub, name)), exist_ok=True)
            with open(os.path.join(stub, name), "w") as f:
                f.write(text)
        src = os.path.join(stub, "tu.c")
        with open(src, "w") as f:
            f.write("".join("#include <%s>\n" % h for h in headers))
        cmd = cpp.split() + ["-nostdinc", "-x", "c", "-std=gnu11"]
        cmd += ["-D__CUDA_API_VERSION_INTERNAL"] if internal else []
        for d in incdirs:
            cmd += ["-I", d]
        cmd += ["-I", stub, src]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        if p.returncode != 0:
            raise Error("the C preprocessor (%s) failed on %s:\n%s" % (cpp, ", ".join(headers), p.stderr.strip()))
    finally:
        shutil.rmtree(stub, ignore_errors=True)
    chunks, cur, lines = [], "", []
    for line in p.stdout.split("\n"):
        m = re.match(r'#\s*\d+\s+"([^"]*)"', line)
        if m:
            if lines:
                chunks.append((cur, "\n".join(lines)))
            cur, lines = os.path.basename(m.group(1)), []
        elif not line.startswith("#"):
            lines.append(line)
    if lines:
        chunks.append((cur, "\n".join(lines)))
    return chunks


def statements(chunks):
    """Top-level statements (up to ';' outside braces) with their file."""
    out, buf, depth, owner = [], [], 0, None
    for fname, text in chunks:
        for ch in text:
            if owner is None and not ch.isspace():
                owner = fname
            buf.append(ch)
            if ch in "{(":
                depth += 1
            elif ch in "})":
                depth -= 1
            elif ch == ";" and depth == 0:
                out.append((owner, " ".join("".join(buf).split())))
                buf, owner = [], None
    return out


def split_top(text, sep=","):
    out, depth, cur = [], 0, []
    for ch in text:
        if ch == sep and depth == 0:
            out.append("".join(cur).strip())
            cur = []
            continue
        depth += ch in "([{"
        depth -= ch in ")]}"
        cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def matching(text, i):
    """Index just past the bracket that closes the one at text[i]."""
    pairs = {"(": ")", "{": "}", "[": "]"}
    depth = 0
    for k in range(i, len(text)):
        if text[k] in pairs:
            depth += 1
        elif text[k] in pairs.values():
            depth -= 1
            if depth == 0:
                return k + 1
    raise Error("unbalanced brackets in: %s" % text[:120])


def c_int(expr, known=None):
    """The value of a constant integer expression of the headers."""
    e = re.sub(r"(?<=[0-9a-fA-F])[uUlL]+\b", "", expr)
    e = re.sub(r"\(\s*(?:unsigned\s+)?(?:int|long|long long|short|char)\s*\)", "", e)
    known = known or {}
    e = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: "(%d)" % known[m.group(0)] if m.group(0) in known else m.group(0), e)
    if not re.fullmatch(r"[\s0-9a-fA-FxX()+\-*/%<>|&^~]*", e):
        raise Error("cannot evaluate %r" % expr)
    return int(eval(e.replace("/", "//"), {"__builtins__": {}}))


# ---------------------------------------------------------------- types

class Types:
    """The typedefs, structures and enums of the preprocessed headers."""

    def __init__(self):
        self.typedefs = {}   # name -> (spec, stars, array, fn): what it is an alias of
        self.bodies = {}     # "struct X" / "union X" / "@typedefname" -> (keyword, body)
        self.enums = []      # [names, [(NAME, value)]]
        self.enum_of = {}    # any name of an enum type -> index in enums
        self.constants = {}  # every enumerator seen: enums may use another enum's

    # -- reading
    def add(self, stmt):
        if not stmt.startswith("typedef "):
            self.add_tagged(stmt)
            return
        text = stmt[len("typedef "):].rstrip(";").strip()
        m = re.match(r"(struct|union|enum)\s*(\w+)?\s*\{", text)
        if m:
            end = matching(text, m.end() - 1)
            kw, tag, body = m.group(1), m.group(2), text[m.end():end - 1]
            decls = split_top(text[end:])
            first = declarator_name(decls[0])
            if kw == "enum":
                self.add_enum([tag or first] + [declarator_name(d) for d in decls if declarator_name(d) != tag],
                              body)
                spec = "enum " + (tag or first)
            else:
                spec = "%s %s" % (kw, tag) if tag else "@" + first
                self.bodies[spec] = (kw, body)
            for d in decls:
                self.add_declarator(spec, d)
            return
        fm = re.match(r"(.*?)\(\s*(\**)\s*(\w+)\s*\)\s*\((.*)\)$", text)
        if fm:  # a function pointer
            self.typedefs[fm.group(3)] = (fm.group(1).strip(), len(fm.group(2)), None, fm.group(4))
            return
        fm = re.match(r"(.*?)\b(\w+)\s*\((.*)\)$", text)
        if fm:  # a function type
            self.typedefs[fm.group(2)] = (fm.group(1).strip(), 0, None, fm.group(3))
            return
        spec, decls = split_spec(text)
        for d in decls:
            self.add_declarator(spec, d)

    def add_tagged(self, stmt):
        m = re.match(r"(struct|union|enum)\s+(\w+)\s*\{", stmt)
        if m:
            body = stmt[m.end():matching(stmt, m.end() - 1) - 1]
            if m.group(1) == "enum":
                self.add_enum([m.group(2)], body)
            else:
                self.bodies["%s %s" % (m.group(1), m.group(2))] = (m.group(1), body)

    def add_declarator(self, spec, d):
        m = re.match(r"(\**)\s*(\w+)\s*((?:\[[^\]]*\]\s*)*)$", d.strip())
        if not m:
            raise Error("cannot read the typedef declarator %r" % d)
        self.typedefs[m.group(2)] = (spec, len(m.group(1)), m.group(3) or None, None)

    def add_enum(self, names, body):
        entries, nxt = [], 0
        for item in split_top(body):
            m = re.match(r"(\w+)\s*(?:=\s*(.+))?$", item.strip())
            if not m:
                continue
            v = c_int(m.group(2), self.constants) if m.group(2) else nxt
            self.constants[m.group(1)] = v
            entries.append((m.group(1), v))
            nxt = v + 1
        if not entries:
            return
        for n in names:
            if n in self.enum_of:
                return  # the first of #if/#else twins
        self.enum_of.update((n, len(self.enums)) for n in names)
        self.enums.append([list(names), entries])

    def finish(self):
        """Aliases of enum types ('typedef CUfoo_enum CUfoo') join the enum's names."""
        for name, (spec, stars, arr, fn) in self.typedefs.items():
            if stars or arr or fn:
                continue
            base = spec.replace("enum ", "").strip()
            if base in self.enum_of and name not in self.enum_of:
                self.enum_of[name] = self.enum_of[base]
                self.enums[self.enum_of[base]][0].append(name)
        for names, entries in self.enums:
            for n, v in entries:
                if not -2 ** 31 <= v < 2 ** 32:
                    raise Error("enum %s: %s = %d does not fit in 32 bits" % (names[-1], n, v))

    # -- resolving
    def resolve(self, spec, depth=0):
        """What a type specifier (no pointer) is: ('int', size, signed),
        ('float', size), ('void',), ('ptr',), ('fn',), ('enum', id),
        ('struct', ident) or ('array', what, count)."""
        if depth > 32:
            raise Error("typedef loop at %r" % spec)
        toks = [t for t in spec.split() if t not in QUALIFIERS]
        if toks and toks[0] == "enum":
            name = toks[-1].lstrip("@")
            if name in self.enum_of:
                return ("enum", self.enum_of[name])
            raise Error("unknown enum %r" % spec)
        if toks and toks[0] in ("struct", "union"):
            return ("struct", " ".join(toks))
        if len(toks) == 1 and toks[0].startswith("@"):
            return ("struct", toks[0])
        key = tuple(sorted(toks))
        if key in BASE_TYPES:
            return BASE_TYPES[key][:2] + ((BASE_TYPES[key][2],) if BASE_TYPES[key][0] == "int" else ())
        if len(toks) == 1 and toks[0] in self.typedefs:
            inner, stars, arr, fn = self.typedefs[toks[0]]
            if fn:
                return ("ptr",) if stars else ("fn",)
            if stars:
                return ("ptr",)
            what = self.resolve(inner, depth + 1)
            if arr:
                n = 1
                for a in re.findall(r"\[([^\]]*)\]", arr):
                    n *= c_int(a)
                return ("array", what, n)
            return what
        if len(toks) == 1 and toks[0] in self.enum_of:
            return ("enum", self.enum_of[toks[0]])
        raise Error("unknown type %r" % spec)

    def canonical(self, ptype):
        """A parameter's type, typedefs resolved, qualifiers dropped: for
        comparing two prototypes."""
        spec, stars = strip_stars(ptype)
        toks = [t for t in spec.split() if t not in QUALIFIERS]
        while len(toks) == 1 and toks[0] in self.typedefs:
            inner, s, arr, fn = self.typedefs[toks[0]]
            if fn or arr:
                return "%s%s" % (toks[0] if not fn else "fn:" + canonical_fn(self, toks[0]), "*" * stars)
            stars += s
            toks = [t for t in inner.split() if t not in QUALIFIERS]
        key = tuple(sorted(toks))
        if key in BASE_TYPES:
            c = BASE_TYPES[key]
            toks = [c[0] + str(c[1]) + ("s" if c[2] and c[0] == "int" else "u" if c[0] == "int" else "")]
        return " ".join(toks) + "*" * stars

    # -- layout of structures passed by value
    def layout(self, what):
        """(size, alignment, holds a floating-point member) of a resolved type."""
        kind = what[0]
        if kind in ("int", "float"):
            return what[1], what[1], kind == "float"
        if kind in ("ptr", "fn"):
            return 8, 8, False
        if kind == "enum":
            return 4, 4, False
        if kind == "array":
            s, a, fl = self.layout(what[1])
            return s * what[2], a, fl
        if kind == "struct":
            if what[1] not in self.bodies:
                raise Error("%s is passed by value but never defined" % what[1])
            kw, body = self.bodies[what[1]]
            return self.layout_body(kw, body)
        raise Error("no layout for %r" % (what,))

    def layout_body(self, kw, body):
        size, align, fl = 0, 1, False
        for member in split_top(body, ";"):
            if ":" in member and "::" not in member:
                raise Error("bit-field in a structure passed by value: %r" % member)
            for s, a, f in self.member_layouts(member):
                align, fl = max(align, a), fl or f
                if kw == "union":
                    size = max(size, s)
                else:
                    size = (size + a - 1) // a * a + s
        return (size + align - 1) // align * align, align, fl

    def member_layouts(self, member):
        m = re.match(r"(struct|union)\s*(\w+)?\s*\{", member)
        if m:
            end = matching(member, m.end() - 1)
            inner = self.layout_body(m.group(1), member[m.end():end - 1])
            decls = split_top(member[end:]) or [""]
            return [self.sized(inner, d) for d in decls]
        spec, decls = split_spec(member)
        out = []
        for d in decls:
            dm = re.match(r"(\**)\s*(\w+)\s*((?:\[[^\]]*\])*)$", d.strip())
            if not dm:
                raise Error("cannot read the member %r" % member)
            base = (8, 8, False) if dm.group(1) else self.layout(self.resolve(spec))
            out.append(self.sized(base, dm.group(3)))
        return out

    @staticmethod
    def sized(base, arr):
        n = 1
        for a in re.findall(r"\[([^\]]*)\]", arr or ""):
            n *= c_int(a)
        return base[0] * n, base[1], base[2]


def canonical_fn(types, name):
    """A function-pointer typedef's identity: the first name it has."""
    spec, stars, arr, fn = types.typedefs[name]
    for n, v in types.typedefs.items():
        if v == (spec, stars, arr, fn):
            return n
    return name


def strip_stars(ptype):
    stars = ptype.count("*")
    return ptype.replace("*", " ").strip(), stars


def declarator_name(d):
    m = re.search(r"(\w+)\s*(?:\[[^\]]*\]\s*)*$", d.strip())
    if not m:
        raise Error("no name in the declarator %r" % d)
    return m.group(1)


def split_spec(text):
    """'unsigned int *a, b[2]' -> ('unsigned int', ['*a', 'b[2]'])."""
    parts = split_top(text.strip())
    m = re.match(r"(.*?)\s*((?:\*\s*)*\w+\s*(?:\[[^\]]*\]\s*)*)$", parts[0]) if parts else None
    if not m or not m.group(1):
        raise Error("cannot read %r" % text)
    return m.group(1).strip(), [m.group(2)] + parts[1:]


def split_param(p, i):
    """'const CUgraphNode *dependencies' -> ('const CUgraphNode *', 'dependencies')."""
    p = " ".join(p.replace("*", " * ").split())
    if "(" in p or "[" in p:
        raise Error("cannot read the parameter %r" % p)
    toks = p.split()
    if len(toks) > 1 and re.fullmatch(r"\w+", toks[-1]) and toks[-1] not in QUALIFIERS and \
            tuple(sorted(t for t in toks if t not in QUALIFIERS)) not in BASE_TYPES and \
            toks[-2] not in ("struct", "union", "enum"):
        ty, name = " ".join(toks[:-1]), toks[-1]
    else:
        ty, name = p, "arg%d" % i
    return ty.replace(" *", "*").replace("*", " *").replace("  ", " ").strip().replace("* *", "**"), name


def params_of(text):
    ps = split_top(text)
    if ps in ([], ["void"]):
        return []
    return [split_param(p, i) for i, p in enumerate(ps)]


# ---------------------------------------------------------------- kinds

def kind_of(types, ptype):
    """How a parameter travels and prints: ptr, str, handle, i8..i64, u8..u64,
    x32/x64 (integers printed in hex), f32/f64, enum, or struct/SIZE/ALIGN."""
    spec, stars = strip_stars(ptype)
    toks = [t for t in spec.split() if t not in QUALIFIERS]
    if stars == 1 and toks == ["char"] and "const" in spec.split():
        return "str"
    if stars:
        return "ptr"
    what = types.resolve(spec)
    if what[0] in ("ptr", "fn"):
        return "handle"
    if what[0] == "int":
        if HEX_INTS.match(toks[-1]) and not what[2]:
            return "x%d" % (8 * what[1])
        return "%s%d" % ("i" if what[2] else "u", 8 * what[1])
    if what[0] == "float":
        return "f%d" % (8 * what[1])
    if what[0] == "enum":
        return "enum"
    if what[0] == "struct":
        size, align, fl = types.layout(what)
        if fl:
            raise Error("%s is passed by value and holds floating-point members: cushim cannot yet forward it "
                        "generically (teach tools/cudaapi.py its classification)" % ptype)
        return "struct/%d/%d" % (size, align)
    raise Error("cannot pass %r by value" % ptype)


# ---------------------------------------------------------------- one include folder

PFN_RE = re.compile(r"typedef\s+CUresult\s*\(\s*\*\s*PFN_(\w+)\s*\)\s*\((.*)\)\s*;$")
DECL_RE = re.compile(r"^(?:extern\s+)?CUresult\s+(cu\w+)\s*\((.*)\)\s*;$")


class Api:
    """Everything one include folder says."""

    def __init__(self, incdirs, cpp="cc -E", log=None):
        self.incdirs = incdirs
        self.log = log or (lambda msg: None)
        self.version = None
        self.rows = []       # dicts: name (None: lookup-only), base, version, flavour, hdr, params
        self.types = Types()
        self.public = Types()
        self.files = []
        self.decl_types = set()  # every type name the headers define (for the build)
        self.declared = set()    # every function name the headers declare
        self.read(cpp)

    def find(self, name):
        for d in self.incdirs:
            if os.path.exists(os.path.join(d, name)):
                return os.path.join(d, name)
        return None

    def read(self, cpp):
        cuda_h = self.find("cuda.h")
        if not cuda_h or not self.find("cudaTypedefs.h"):
            raise Error("no cuda.h and cudaTypedefs.h in %s: not a CUDA include folder" % ", ".join(self.incdirs))
        m = re.search(r"#define\s+CUDA_VERSION\s+(\d+)", open(cuda_h, encoding="utf-8", errors="replace").read())
        if not m:
            raise Error("no CUDA_VERSION in %s" % cuda_h)
        self.version = int(m.group(1))
        for tdh, declh in GROUPS:
            if not self.find(tdh):
                continue
            if not self.find(declh):
                self.log("%s without %s: its functions are left out" % (tdh, declh))
                continue
            self.files.append(tdh)
            self.read_group(cpp, tdh, declh)
        public = [d for _, d in GROUPS if self.find(d)]
        for stmt in statements(preprocess(self.incdirs, public, False, cpp)):
            self.public.add(stmt[1])
        self.public.finish()
        self.decl_types = set(self.types.typedefs) | set(self.types.enum_of) | \
            {k.split()[-1] for k in self.types.bodies if not k.startswith("@")}

    def read_group(self, cpp, tdh, declh):
        decls, pfns = {}, []
        headers = ["cuda.h"] + ([declh] if declh != "cuda.h" else []) + [tdh]
        for fname, stmt in statements(preprocess(self.incdirs, headers, True, cpp)):
            if stmt.startswith("typedef"):
                m = PFN_RE.match(stmt)
                if m:
                    pfns.append((m.group(1), m.group(2)))
                    continue
                self.types.add(stmt)
                continue
            m = DECL_RE.match(stmt)
            if m and fname == declh:
                decls[m.group(1)] = params_of(m.group(2))
            elif re.match(r"(struct|union|enum)\s+\w+\s*\{", stmt):
                self.types.add(stmt)
        self.types.finish()
        self.declared.update(decls)
        self.rows.extend(self.name_group(tdh, decls, pfns))

    def name_group(self, tdh, decls, pfns):
        variants = {}
        for full, ptext in pfns:
            m = re.match(r"(\w+?)(?:_v(\d+))?(_ptds|_ptsz)?$", full)
            variants.setdefault((m.group(1), m.group(3) or ""), []).append({
                "base": m.group(1), "flavour": m.group(3) or "", "hdr": tdh, "params": params_of(ptext),
                # some 12.4 typedefs lack the _v<version> of a function's only
                # variant: the toolkit's own version, the latest it can be
                "version": int(m.group(2)) if m.group(2) else self.version, "unversioned": not m.group(2)})
        rows = []
        for (base, fl), vs in sorted(variants.items()):
            if any(not v["unversioned"] for v in vs):
                vs = [v for v in vs if not v["unversioned"]]  # an alias of a versioned one
            for v in vs:
                v["guessed"] = v.pop("unversioned")
            rows.extend(self.pair(base, fl, sorted(vs, key=lambda v: v["version"]), decls))
        self.check_flavours(rows)
        return rows

    def proto(self, params):
        return [self.types.canonical(t) for t, _ in params]

    def pair(self, base, fl, typedefs, decls):
        """Give each typedef of one flavour its declared name, in order, by
        prototype; the ones left have no exported name."""
        names = []
        for n in decls:
            m = re.fullmatch(re.escape(base) + r"(?:_v(\d+))?" + re.escape(fl), n)
            if m:
                names.append((int(m.group(1) or 1), n))
        names.sort()
        protos = [self.proto(v["params"]) for v in typedefs]
        if len(typedefs) >= len(names):
            k = 0
            for _, n in names:  # the oldest typedef of the name's prototype
                while k < len(typedefs) and protos[k] != self.proto(decls[n]):
                    k += 1
                if k == len(typedefs):
                    raise Error("%s is declared, but no PFN_%s typedef after the previous name has its "
                                "prototype" % (n, base))
                typedefs[k]["name"] = n
                k += 1
        else:
            k = len(typedefs) - 1
            for _, n in reversed(names):  # older names lost their typedefs
                if k >= 0 and protos[k] == self.proto(decls[n]):
                    typedefs[k]["name"] = n
                    k -= 1
                else:
                    self.log("%s is declared but has no typedef: not in the table" % n)
            if k >= 0:
                raise Error("PFN_%s_v%d%s matches no declared name" % (base, typedefs[k]["version"], fl))
        for v in typedefs:
            v.setdefault("name", None)
            if v["name"] is None:
                self.log("%s_v%d%s has no exported name: lookup-only" % (base, v["version"], fl))
        return typedefs

    def check_flavours(self, rows):
        """A per-thread variant's name is its legacy sibling's plus the flavour."""
        legacy = {(r["base"], r["version"]): r["name"] for r in rows if not r["flavour"]}
        for r in rows:
            sib = legacy.get((r["base"], r["version"]))
            if r["flavour"] and r["name"] and sib and r["name"] != sib + r["flavour"]:
                raise Error("%s and %s are the same version but not the same name" % (r["name"], sib))

    # -- facts
    def kinds(self, row):
        return [(name, kind_of(self.types, ty), ty) for ty, name in row["params"]]


# ---------------------------------------------------------------- the committed table

TABLE_HEADER = """\
# cushim's table of the CUDA driver API: facts read from NVIDIA's headers by
# tools/mktable.py (exported names, versions, stream flavours, parameter names,
# kinds and types, enum values), never the headers' text.  Regenerate it with
# `make update-table` (doc/TABLE.md); do not edit it by hand.
#
# cuda    CUDA_VERSION  where the headers came from
# fn      name (- : no exported name, reachable only through cuGetProcAddress)
#         base  version  flavour  typedef header  parameters (name:kind:type, ...)
# enum    type  ENUMERATOR  value          enumname  type  other names of the type
"""


def enum_facts(api):
    """CUresult and every enum a parameter passes by value, as the public
    headers define them: [(names, [(NAME, value)])]."""
    wanted = {"CUresult"}
    for r in api.rows:
        for _, kind, ty in api.kinds(r):
            if kind == "enum":
                what = api.types.resolve(strip_stars(ty)[0])
                wanted.update(api.types.enums[what[1]][0])
    out = []
    for names, entries in api.public.enums:
        if wanted & set(names):
            out.append((names, entries))
    return out


def write_table(api, path, source):
    rows = sorted(api.rows, key=lambda r: (r["base"], r["flavour"], r["version"]))
    with open(path + ".tmp", "w") as o:
        o.write(TABLE_HEADER)
        o.write("cuda\t%d\t%s\n" % (api.version, source))
        for r in rows:
            ps = ", ".join("%s:%s:%s" % k for k in api.kinds(r)) or "-"
            o.write("fn\t%s\t%s\t%d\t%s\t%s\t%s\n" % (r["name"] or "-", r["base"], r["version"],
                                                    FLAVOUR_NAMES[r["flavour"]], r["hdr"], ps))
        for names, entries in enum_facts(api):
            key = names[-1] if "CUresult" not in names else "CUresult"
            others = [n for n in names if n != key]
            if others:
                o.write("enumname\t%s\t%s\n" % (key, " ".join(others)))
            for n, v in entries:
                o.write("enum\t%s\t%s\t%d\n" % (key, n, v))
    os.replace(path + ".tmp", path)


class Table:
    """The committed table, read back."""

    def __init__(self, path):
        self.version, self.source, self.rows, self.enums = None, "", [], {}
        self.enum_names = {}
        flav = {v: k for k, v in FLAVOUR_NAMES.items()}
        with open(path) as f:
            for n, line in enumerate(f, 1):
                if line.startswith("#") or not line.strip():
                    continue
                col = line.rstrip("\n").split("\t")
                try:
                    if col[0] == "cuda":
                        self.version, self.source = int(col[1]), col[2]
                    elif col[0] == "fn":
                        self.rows.append({
                            "name": None if col[1] == "-" else col[1], "base": col[2], "version": int(col[3]),
                            "flavour": flav[col[4]], "hdr": col[5],
                            "kinds": [] if col[6] == "-" else [tuple(p.split(":", 2)) for p in col[6].split(", ")]})
                    elif col[0] == "enum":
                        self.enums.setdefault(col[1], []).append((col[2], int(col[3])))
                    elif col[0] == "enumname":
                        self.enum_names[col[1]] = col[2].split()
                    else:
                        raise ValueError(col[0])
                except (IndexError, ValueError, KeyError) as e:
                    raise Error("%s:%d: not a table line (%s)" % (path, n, e))
        if self.version is None:
            raise Error("%s: no 'cuda' line: not cushim's table" % path)
