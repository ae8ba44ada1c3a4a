#!/usr/bin/env python3
"""Checks of the committed table (src/table/cuda-api.tsv), run by the
tests/table/*.sh scripts of make check.

  covers  --include DIR --table FILE
      every variant the toolkit's headers declare is a row of the table, with
      the same name and the same parameter kinds;
  oracle  --include DIR --table FILE --oracle DIR
      the naming rule, run on the toolkit's headers, gives exactly the names
      the real driver exports (tests/oracle) among those the headers declare,
      and every named row of the toolkit and of the table that the driver
      knows is what its cuGetProcAddress returned for (base, version, flags);
  same    --table FILE --other FILE
      two tables hold the same facts (the source line aside);
  stubs   --tsv FILE --disasm FILE --arch x86_64|aarch64
      in `objdump -dr` of the stubs, every export is one load and one
      indirect jump through its own slot (cushim_slot + 8 * row), padding
      aside: x86-64 `jmp *cushim_slot+8i(%rip)`, aarch64 adrp, add, ldar, br
      (each behind the landing pad of a CET or BTI build); in a linked
      aarch64 library (no relocations left), adrp's page and add's low bits
      make cushim_slot + 8 * row, its address from the `objdump -t` part.
"""
import argparse
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import cudaapi  # noqa: E402

failures = []


def fail(msg):
    failures.append(msg)
    sys.stderr.write("FAIL: %s\n" % msg)


def key(r):
    return (r["base"], r["version"], r["flavour"])


def label(r):
    return r["name"] or "%s@%d%s" % (r["base"], r["version"], r["flavour"])


def covers(a):
    api = cudaapi.Api([a.include], a.cpp)
    table = cudaapi.Table(a.table)
    rows = {key(r): r for r in table.rows}
    for r in api.rows:
        t = rows.get(key(r))
        if not t:
            fail("the toolkit (CUDA %d) declares %s (%s, %d, %s), which the table (CUDA %d) lacks: run make "
                 "update-table" % (api.version, label(r), r["base"], r["version"], r["flavour"] or "legacy",
                                   table.version))
            continue
        if t["name"] != r["name"]:
            fail("%s: the toolkit names it %s, the table %s" % (key(r), r["name"], t["name"]))
        kinds = [k for _, k, _ in api.kinds(r)]
        if kinds != [k for _, k, _ in t["kinds"]]:
            fail("%s: the toolkit passes %s, the table %s" % (label(r), kinds, [k for _, k, _ in t["kinds"]]))
    print("covers: the CUDA %d.%d toolkit declares %d variants; the table (CUDA %d.%d) has %d, all of them" % (
        api.version // 1000, api.version % 1000 // 10, len(api.rows), table.version // 1000,
        table.version % 1000 // 10, len(table.rows)) if not failures else "covers: %d failure(s)" % len(failures))


def read_oracle(d):
    exports = {n.strip() for n in open(os.path.join(d, "libcuda-580.159.04-exports.txt"))
               if n.startswith("cu") and not n.startswith("cudbg")}
    answers = {}  # (symbol, flags) -> [(from, result, status, returns)]
    with open(os.path.join(d, "cuGetProcAddress-driver-580.159.04.tsv")) as f:
        f.readline()
        for line in f:
            sym, flags, ver, rc, st, ret = line.rstrip("\n").split("\t")
            answers.setdefault((sym, int(flags)), []).append((int(ver), int(rc), int(st), ret))
    return exports, answers


def oracle_answer(answers, base, version, flags):
    best = None
    for frm, rc, st, ret in answers.get((base, flags), []):
        if frm <= version and (best is None or frm > best[0]):
            best = (frm, rc, st, ret)
    return best


# declared, but not provided by the real driver on x86-64 (tests/oracle/README.md)
NOT_PROVIDED = {"cuEventCreateFromEGLSync"}


def oracle(a):
    api = cudaapi.Api([a.include], a.cpp)
    table = cudaapi.Table(a.table)
    exports, answers = read_oracle(a.oracle)
    named = {r["name"] for r in api.rows if r["name"]}
    both = exports & api.declared
    extra = named - exports - NOT_PROVIDED
    if extra:
        fail("the rule names %s, which the real driver does not export" % ", ".join(sorted(extra)))
    if both - named:
        fail("the real driver exports %s, declared by the headers, which the rule does not name" %
             ", ".join(sorted(both - named)))
    checked = 0
    for source, rows in (("toolkit", api.rows), ("table", table.rows)):
        for r in rows:
            if not r["name"] or r["version"] > 13000 or (r["base"], 1) not in answers or r["name"] in NOT_PROVIDED:
                continue
            got = oracle_answer(answers, r["base"], r["version"], 2 if r["flavour"] else 1)
            if not got or got[1:] != (0, 0, r["name"]):
                fail("%s (%s): the driver answers (%s, %d, %s) with %s" % (
                    r["name"], source, r["base"], r["version"], "per-thread" if r["flavour"] else "legacy", got))
            checked += 1
    named_table = {r["name"] for r in table.rows if r["name"]}
    if not failures:
        print("oracle: %d names of the CUDA %d.%d headers are the %d the driver exports of those declared; "
              "%d rows (toolkit and table) are what its cuGetProcAddress returns; the table adds %d names "
              "beyond 13.0" % (len(named), api.version // 1000, api.version % 1000 // 10, len(both), checked,
                               len(named_table - exports - NOT_PROVIDED)))


def same(a):
    t, o = cudaapi.Table(a.table), cudaapi.Table(a.other)
    for what in ("version", "rows", "enums", "enum_names"):
        if getattr(t, what) != getattr(o, what):
            fail("%s: %s differs from %s" % (what, a.table, a.other))
    if not failures:
        print("same: %s and %s hold the same %d rows (CUDA %d)" % (a.table, a.other, len(t.rows), t.version))


PADDING = re.compile(r"^(nop\w*|cs nop\w*|data16.*|xchg\s+%ax,%ax|int3|udf.*|\.word.*|\(bad\))\b")
STUB_CODE = {
    "x86_64": [r"jmp\s+\*0x[0-9a-f]+\(%rip\)\s+# [0-9a-f]+ <cushim_slot(?:\+0x(?P<o0>[0-9a-f]+))?>"],
    "aarch64": [r"adrp\s+x16, .*@R_AARCH64_ADR_PREL_PG_HI21\s+cushim_slot(?:\+0x(?P<o0>[0-9a-f]+))?$",
                r"add\s+x16, x16, #0x0@R_AARCH64_ADD_ABS_LO12_NC\s+cushim_slot(?:\+0x(?P<o1>[0-9a-f]+))?$",
                r"ldar\s+x16, \[x16\]$", r"br\s+x16$"],
}
# a linked library's aarch64 stub: the page and the low bits of the address
LINKED_AARCH64 = [r"adrp\s+x16, (?P<page>[0-9a-f]+)(?: <[^>]*>)?$", r"add\s+x16, x16, #0x(?P<lo>[0-9a-f]+)$",
                  r"ldar\s+x16, \[x16\]$", r"br\s+x16$"]
LANDING = {"x86_64": r"endbr64$", "aarch64": r"bti\s+c$"}


def symbol_address(path, name):
    """NAME's address in the symbol table (objdump -t) of the file, or None."""
    for line in open(path):
        m = re.match(r"^([0-9a-f]{8,16}) .*\s%s$" % re.escape(name), line.rstrip())
        if m:
            return int(m.group(1), 16)
    return None


def slot_offset(code, body, slot):
    """The offset from cushim_slot that BODY loads through, or None where BODY
    is not CODE (or a linked stub whose address is not in a slot)."""
    ms = [c.match(x) for c, x in zip(code, body)]
    if len(body) != len(code) or not all(ms):
        return None
    g = {k: v for m in ms for k, v in m.groupdict().items()}
    if "page" in g:
        page, lo = int(g["page"], 16), int(g["lo"], 16)
        ok = slot is not None and page & 0xfff == 0 and lo < 0x1000
        return page + lo - slot if ok else None
    offs = {int(v, 16) if v else 0 for k, v in g.items() if k.startswith("o")}
    return offs.pop() if len(offs) == 1 else None


def disasm_bodies(path):
    """{symbol: [instruction text, relocations appended with '@']}."""
    bodies, cur = {}, None
    for line in open(path):
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:$", line.strip())
        if m:
            cur = bodies.setdefault(m.group(1), [])
            continue
        if cur is None:
            continue
        r = re.match(r"^\s*[0-9a-f]+: (R_\w+)\s+(.*)$", line)
        if r and cur:
            cur[-1] += "@%s\t%s" % (r.group(1), r.group(2).strip())
            continue
        i = re.match(r"^\s*[0-9a-f]+:\s+(?:(?:[0-9a-f]{2} )+\s*|[0-9a-f]{8}\s+)?(.*)$", line)
        if i and i.group(1).strip():
            cur.append(" ".join(i.group(1).split("\t")).strip())
    return bodies


def stubs(a):
    rows = [l.split("\t") for l in open(a.tsv) if not l.startswith("#")]
    bodies = disasm_bodies(a.disasm)
    code = [re.compile(c) for c in STUB_CODE[a.arch]]
    linked = [re.compile(c) for c in LINKED_AARCH64]
    slot = symbol_address(a.disasm, "cushim_slot")
    n = 0
    for idx, row in enumerate(rows):
        if row[6] != "yes":
            continue
        body = [x for x in bodies.get(row[0], []) if not PADDING.match(x)]
        if body and re.match(LANDING[a.arch], body[0]):
            body = body[1:]
        relocated = a.arch != "aarch64" or any("@R_" in x for x in body)
        if slot_offset(code if relocated else linked, body, slot) != 8 * idx:
            fail("%s (row %d) is not one load and one jump through cushim_slot+%#x: %s" % (row[0], idx, 8 * idx, body))
        n += 1
    if not failures:
        print("stubs (%s): all %d exports are one load and one indirect jump through their slot" % (a.arch, n))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["covers", "oracle", "same", "stubs"])
    ap.add_argument("--tsv")
    ap.add_argument("--disasm")
    ap.add_argument("--arch")
    ap.add_argument("--include")
    ap.add_argument("--table")
    ap.add_argument("--other")
    ap.add_argument("--oracle")
    ap.add_argument("--cpp", default=os.environ.get("CPP", "cc -E"))
    a = ap.parse_args()
    try:
        {"covers": covers, "oracle": oracle, "same": same, "stubs": stubs}[a.mode](a)
    except cudaapi.Error as e:
        fail(str(e))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
