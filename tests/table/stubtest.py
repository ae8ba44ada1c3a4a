#!/usr/bin/env python3
"""The stubs' object code against the table, run by tests/table/template.sh.

  stubtest.py --tsv FILE --dump FILE --arch x86_64|aarch64 [--landing] [--tsan]

FILE is `objdump -t -r -dr --no-show-raw-insn` of cushim-stubs.S assembled
alone (relocations unresolved).  In it:

  - every row of the table has its stub, a function named as the row, global
    exactly when the row is an export;
  - each stub is one load and one indirect jump through its own slot,
    cushim_slot + 8 * row (x86-64 `jmp *cushim_slot+8i(%rip)`; aarch64 adrp,
    add, ldar, br x16); under ThreadSanitizer (--tsan) the row in the scratch
    register (r11d, w17) and a jump to cushim_tsan_jump;
  - cushim_stub[row] is the row's stub; cushim_slot[row] is the row's
    first-call entry: the row in the scratch register and a jump to
    cushim_first_call;
  - with --landing, every stub and every entry starts with the landing pad
    (endbr64, bti c);
  - each trampoline (cushim_first_call, and cushim_tsan_jump under --tsan)
    opens a 16-byte aligned frame, saves every argument register of the
    procedure call standard once, passes the row as the first argument to
    its callee (cushim_resolve, cushim_slot_acquire), restores each register
    from where it saved it, closes the frame and jumps to what the callee
    returned.
"""
import argparse
import re
import sys

failures = []

PADDING = re.compile(r"^(nop\w*|cs nop\w*|data16.*|xchg %ax,%ax|int3|udf.*|\.word.*|\(bad\))\b")
LANDING = {"x86_64": "endbr64", "aarch64": "bti c"}
ROW_MOVE = {"x86_64": r"mov \$0x([0-9a-f]+),%r11d$", "aarch64": r"mov w17, #0x([0-9a-f]+)$"}
JUMP = {"x86_64": r"jmp [0-9a-f]+ <([^>]+)>$", "aarch64": r"b [0-9a-f]+ <([^>]+)>$"}
SLOT_LOAD = {
    "x86_64": [(r"jmp \*0x0\(%rip\)", "R_X86_64_PC32", -4)],
    "aarch64": [(r"adrp x16, [0-9a-f]+ <[^>]*>", "R_AARCH64_ADR_PREL_PG_HI21", 0),
                (r"add x16, x16, #0x0", "R_AARCH64_ADD_ABS_LO12_NC", 0), (r"ldar x16, \[x16\]", None, 0),
                (r"br x16", None, 0)],
}
# The argument registers, and each trampoline's frame, row, call and jump.
ARGS = {
    "x86_64": ["%rdi", "%rsi", "%rdx", "%rcx", "%r8", "%r9", "%rax", "%r10"] + ["%%xmm%d" % k for k in range(8)],
    "aarch64": ["x%d" % k for k in range(9)] + ["q%d" % k for k in range(8)],
}
SIZE = {"x86_64": lambda r: 16 if "xmm" in r else 8, "aarch64": lambda r: 16 if r[0] == "q" else 8}
FRAME = {
    "x86_64": ([r"push %rbp$", r"mov %rsp,%rbp$", r"sub \$0x(?P<frame>[0-9a-f]+),%rsp$"],
               [r"mov %r11d,%edi$", r"call [0-9a-f]+ <[^>]*>$", r"mov %rax,%r11$"],
               [r"leave$", r"jmp \*%r11$"]),
    "aarch64": ([r"stp x29, x30, \[sp, #-(?P<frame>\d+)\]!$", r"mov x29, sp$"],
                [r"mov w0, w17$", r"bl [0-9a-f]+ <[^>]*>$", r"mov x16, x0$"],
                [r"ldp x29, x30, \[sp\], #(?P<frame>\d+)$", r"br x16$"]),
}
STORE = {"x86_64": r"(?:mov|movaps) (%\w+),(?:0x([0-9a-f]+))?\(%rsp\)$",
         "aarch64": r"(?:stp|str) (\w+)(?:, (\w+))?, \[sp, #(\d+)\]$"}
LOAD = {"x86_64": r"(?:mov|movaps) (?:0x([0-9a-f]+))?\(%rsp\),(%\w+)$",
        "aarch64": r"(?:ldp|ldr) (\w+)(?:, (\w+))?, \[sp, #(\d+)\]$"}


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


class Insn:
    def __init__(self, addr, text):
        self.addr, self.text, self.relocs = addr, text, []


def target(value):
    """A relocation's symbol and addend: 'sym', 'sym+0x10', 'sym-0x4'."""
    m = re.match(r"^(\S+?)(?:([+-])0x([0-9a-f]+))?$", value.strip())
    return m.group(1), (int(m.group(3), 16) * (-1 if m.group(2) == "-" else 1) if m.group(3) else 0)


class Dump:
    """What objdump says of the object: its symbols {name: (address,
    section, binding, size)}, each code section's instructions, and each
    section's relocations {offset: (type, symbol, addend)}."""

    def __init__(self, path, arch):
        self.arch, self.syms, self.code, self.relocs = arch, {}, {}, {}
        section, data = None, None
        for line in open(path):
            line = line.rstrip("\n")
            m = re.match(r"^([0-9a-f]{16}) (.).{6} (\S+)\t([0-9a-f]+) (?:\.hidden )?(\S+)$", line)
            if m:
                self.syms[m.group(5)] = (int(m.group(1), 16), m.group(3), m.group(2), int(m.group(4), 16))
                continue
            m = re.match(r"^RELOCATION RECORDS FOR \[(.*)\]:$", line)
            if m:
                data, section = self.relocs.setdefault(m.group(1), {}), None
                continue
            m = re.match(r"^Disassembly of section (.*):$", line)
            if m:
                section, data = self.code.setdefault(m.group(1), []), None
                continue
            m = re.match(r"^([0-9a-f]{16}) (R_\w+)\s+(.*)$", line)
            if m and data is not None:
                data[int(m.group(1), 16)] = (m.group(2),) + target(m.group(3))
                continue
            m = re.match(r"^\s+[0-9a-f]+: (R_\w+)\s+(.*)$", line)
            if m and section:
                section[-1].relocs.append((m.group(1),) + target(m.group(2)))
                continue
            m = re.match(r"^\s+([0-9a-f]+):\s+(.*)$", line)
            if m and section is not None:
                text = re.sub(r"\s+(//|#) .*$", "", m.group(2))
                section.append(Insn(int(m.group(1), 16), " ".join(text.split())))

    def body(self, section, addr, starts):
        """The instructions from ADDR up to padding or the next of STARTS."""
        out = [i for i in self.code.get(section, []) if i.addr >= addr]
        for k, i in enumerate(out):
            if PADDING.match(i.text) or (k and i.addr in starts):
                return out[:k]
        return out

    def reached(self, insn, shown):
        """The function a jump or call reaches: its relocation's (against a
        symbol, or a section and an offset), or the one objdump names."""
        if not insn.relocs:
            return shown
        _, sym, addend = insn.relocs[0]
        if not sym.startswith("."):
            return sym if addend in (0, -4) else None
        addend += 4 if self.arch == "x86_64" else 0
        return next((n for n, (v, s, _, _) in self.syms.items() if s == sym and v == addend and n[0] != "."), None)


def landed(d, body, landing):
    """BODY without its landing pad, or None where the pad is wanted and missing."""
    if not landing:
        return body
    return body[1:] if body and body[0].text == LANDING[d.arch] else None


def entry(d, body, callee, landing):
    """The row a first-call or ThreadSanitizer entry passes (the row in the
    scratch register, then a jump to CALLEE), or None."""
    body = landed(d, body, landing)
    if body is None or len(body) != 2:
        return None
    m, j = re.match(ROW_MOVE[d.arch], body[0].text), re.match(JUMP[d.arch], body[1].text)
    return int(m.group(1), 16) if m and j and d.reached(body[1], j.group(1)) == callee else None


def slot_offset(d, body, landing):
    """The offset from cushim_slot that a stub loads and jumps through, or None."""
    body = landed(d, body, landing)
    code = SLOT_LOAD[d.arch]
    if body is None or len(body) != len(code):
        return None
    offs = set()
    for insn, (text, kind, bias) in zip(body, code):
        if not re.match(text + "$", insn.text):
            return None
        if kind:
            if len(insn.relocs) != 1 or insn.relocs[0][:2] != (kind, "cushim_slot"):
                return None
            offs.add(insn.relocs[0][2] - bias)
    return offs.pop() if len(offs) == 1 else None


def table_of(d, name, rows):
    """The relocations of the table NAME (cushim_slot, cushim_stub), one per
    row: [(section, offset)], or None where the table is not that."""
    if name not in d.syms:
        fail("no %s" % name)
        return None
    base, section, _, size = d.syms[name]
    if size != 8 * len(rows):
        fail("%s holds %d bytes for %d rows" % (name, size, len(rows)))
        return None
    relocs = d.relocs.get(section, {})
    return [relocs.get(base + 8 * i, (None, None, None))[1:] for i in range(len(rows))]


def check_rows(d, rows, a):
    """Each row's stub, its address in cushim_stub and its slot's entry."""
    stubs = {d.syms[n][0] for n, _ in rows if n in d.syms}
    slots, addrs = table_of(d, "cushim_slot", rows), table_of(d, "cushim_stub", rows)
    firsts = {off for _, off in slots or []}
    for i, (name, exported) in enumerate(rows):
        s = d.syms.get(name)
        if not s or s[1] != ".text":
            fail("row %d (%s) has no stub in .text" % (i, name))
            continue
        if (s[2] == "g") != exported:
            fail("%s (row %d) is %s, wanted %s" % (name, i, "global" if s[2] == "g" else "local",
                                                  "global" if exported else "local"))
        body = d.body(".text", s[0], stubs)
        if a.tsan:
            if entry(d, body, "cushim_tsan_jump", a.landing) != i:
                fail("%s (row %d) does not pass its row to cushim_tsan_jump: %s" % (name, i, texts(body)))
        elif slot_offset(d, body, a.landing) != 8 * i:
            fail("%s (row %d) is not one load and one jump through cushim_slot+%#x: %s" % (name, i, 8 * i,
                                                                                           texts(body)))
        if addrs and addrs[i] != (".text", s[0]):
            fail("cushim_stub[%d] is %s, not %s" % (i, addrs[i], name))
        if slots and (slots[i][0] != ".text.unlikely" or
                      entry(d, d.body(".text.unlikely", slots[i][1], firsts), "cushim_first_call", a.landing) != i):
            fail("cushim_slot[%d] (%s) is not the row's first-call entry: %s" % (i, name, slots[i]))


def texts(body):
    return [i.text for i in body] if body is not None else None


def saved(d, pattern, insn):
    """The (register, offset) pairs one store or load of a trampoline moves."""
    m = re.match(pattern, insn.text)
    if not m:
        return None
    if d.arch == "x86_64":
        reg, off = (m.group(1), m.group(2)) if pattern is STORE["x86_64"] else (m.group(2), m.group(1))
        return [(reg, int(off or "0", 16))]
    regs, off = [r for r in m.group(1, 2) if r], int(m.group(3))
    return [(r, off + k * SIZE["aarch64"](regs[0])) for k, r in enumerate(regs)]


def trampoline(d, name, callee):
    """NAME's frame size, the registers it saves and those it restores, as
    [(register, offset)], or None (said) where its code is not a trampoline's:
    the frame opened, the stores, the row passed to CALLEE, the loads, the
    frame closed and the jump."""
    s = d.syms.get(name)
    if not s:
        fail("no %s" % name)
        return None
    starts = {v for v, sec, _, _ in d.syms.values() if sec == ".text"}
    body, why, frames = d.body(".text", s[0], starts), [], []

    def take(patterns):
        for p in patterns:
            m = re.match(p, body[0].text) if body else None
            if not m:
                why.append("wanted %s at %s" % (p, texts(body[:1])))
                return False
            frames.extend(int(v, 16 if d.arch == "x86_64" else 10) for v in m.groupdict().values())
            insn = body.pop(0)
            c = re.match(r"(?:call|bl) [0-9a-f]+ <([^>]*)>$", insn.text)
            if c and d.reached(insn, c.group(1)) != callee:
                why.append("calls %s, not %s" % (d.reached(insn, c.group(1)), callee))
        return True

    def moves(pattern):
        out = []
        while body and saved(d, pattern, body[0]):
            out.extend(saved(d, pattern, body.pop(0)))
        return out

    opening, calling, closing = FRAME[d.arch]
    stores = moves(STORE[d.arch]) if take(opening) else []
    loads = moves(LOAD[d.arch]) if not why and take(calling) else []
    if not why and take(closing) and body:
        why.append("more after the jump: %s" % texts(body))
    if why:
        fail("%s: %s" % (name, "; ".join(why)))
        return None
    if len(set(frames)) != 1 or frames[0] % 16:
        fail("%s: the frame is not one 16-byte multiple: %s" % (name, frames))
        return None
    return frames[0], stores, loads


def check_trampoline(d, name, callee):
    """Every argument register saved once, in the frame, aligned, without
    overlap, and restored from where it was saved."""
    got = trampoline(d, name, callee)
    if not got:
        return
    frame, stores, loads = got
    size = SIZE[d.arch]
    if sorted(r for r, _ in stores) != sorted(ARGS[d.arch]):
        fail("%s saves %s, not each of %s once" % (name, [r for r, _ in stores], ARGS[d.arch]))
    if sorted(loads) != sorted(stores):
        fail("%s restores %s where it saved %s" % (name, sorted(loads), sorted(stores)))
    used = sorted((o, o + size(r)) for r, o in stores)
    lowest = 0 if d.arch == "x86_64" else 16  # aarch64: x29 and x30 below
    if any(a[1] > b[0] for a, b in zip(used, used[1:])) or (used and (used[0][0] < lowest or used[-1][1] > frame)):
        fail("%s: the saved registers overlap or leave the frame of %d bytes: %s" % (name, frame, used))
    if any(o % size(r) for r, o in stores):
        fail("%s: a register is saved out of its alignment: %s" % (name, stores))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tsv", required=True)
    ap.add_argument("--dump", required=True)
    ap.add_argument("--arch", required=True, choices=sorted(ARGS))
    ap.add_argument("--landing", action="store_true")
    ap.add_argument("--tsan", action="store_true")
    a = ap.parse_args()
    rows = [(r[0], r[6] == "yes") for r in (l.rstrip("\n").split("\t") for l in open(a.tsv) if l[0] != "#")]
    d = Dump(a.dump, a.arch)
    check_rows(d, rows, a)
    check_trampoline(d, "cushim_first_call", "cushim_resolve")
    if a.tsan:
        check_trampoline(d, "cushim_tsan_jump", "cushim_slot_acquire")
    if not failures:
        print("stubtest (%s%s%s): %d rows: each stub, its slot's first-call entry, cushim_stub and the trampolines "
              "as the table wants" % (a.arch, ", landing pads" if a.landing else "", ", ThreadSanitizer" if a.tsan
                                      else "", len(rows)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
