#!/usr/bin/env python3
"""Check the timelines of tests/timeline/tl-app against what it does.

    check-timeline.py known PARENT.json CHILD.json CHILD_PID [TRACE.log]
    check-timeline.py killed FILE.json
    check-timeline.py why FILE.json LOG [FUNCTION=CAUSE...]

Each file is read with Python's json module.  Prints one line of counts; exits
1 with every failure listed."""
import collections
import json
import sys

failures = []


def fail(msg):
    failures.append(msg)


def load(path):
    with open(path, encoding="utf-8") as f:
        events = json.load(f)
    if not isinstance(events, list):
        raise SystemExit("%s: not a JSON array" % path)
    return events


def calls(events):
    return [e for e in events if e.get("ph") == "X"]


def check_nesting(path, xs):
    """Calls on one thread follow each other: none starts before the previous ended."""
    by_tid = collections.defaultdict(list)
    for e in xs:
        by_tid[e["tid"]].append(e)
    for tid, evs in by_tid.items():
        evs.sort(key=lambda e: e["ts"])
        for a, b in zip(evs, evs[1:]):
            if b["ts"] < a["ts"] + a["dur"] - 0.002:
                fail("%s: tid %d: %s at %.3f starts inside %s (%.3f + %.3f)"
                     % (path, tid, b["name"], b["ts"], a["name"], a["ts"], a["dur"]))
    return by_tid


def check_common(path, events, pid, name):
    """Metadata, fields and categories every file must have."""
    procs = [e for e in events if e.get("ph") == "M" and e["name"] == "process_name"]
    if len(procs) != 1 or procs[0]["pid"] != pid or procs[0]["args"]["name"] != name:
        fail("%s: process_name events %r, wanted one for pid %d named %s" % (path, procs, pid, name))
    named = {e["tid"] for e in events if e.get("ph") == "M" and e["name"] == "thread_name"}
    for e in calls(events):
        for k in ("name", "cat", "ts", "dur", "pid", "tid", "args"):
            if k not in e:
                fail("%s: %s lacks %s" % (path, e.get("name"), k))
                return
        if e["pid"] != pid:
            fail("%s: %s has pid %d, wanted %d" % (path, e["name"], e["pid"], pid))
        if e["tid"] not in named:
            fail("%s: tid %d has calls but no thread_name event" % (path, e["tid"]))
        ok = e["args"].get("result") == "CUDA_SUCCESS"
        if e["cat"] != ("call" if ok else "failed"):
            fail("%s: %s returned %s but is in category %s" % (path, e["name"], e["args"].get("result"), e["cat"]))
        if e["dur"] < 0:
            fail("%s: %s lasts %f" % (path, e["name"], e["dur"]))


def check_main_thread(path, by_tid, pid):
    main = [e["name"] for e in sorted(by_tid.get(pid, []), key=lambda e: e["ts"])]
    want = ["cuInit", "cuDriverGetVersion", "cuDeviceGet", "cuGetErrorName", "cuModuleGetFunction",
            "cuLibraryLoadData", "cuLibraryLoadData", "cuMemGetInfo_v2"]
    if main != want:
        fail("%s: the main thread's calls are %s, wanted %s" % (path, main, want))
    workers = sorted(len([e for e in evs if e["name"] == "cuCtxGetCurrent"])
                     for tid, evs in by_tid.items() if tid != pid)
    if workers != list(range(10, 18)):
        fail("%s: cuCtxGetCurrent per worker thread %s, wanted 10 ... 17" % (path, workers))
    for tid, evs in by_tid.items():
        if tid != pid and evs[-1]["name"] != "cuCtxSetCurrent":
            fail("%s: thread %d ends with %s, wanted cuCtxSetCurrent" % (path, tid, evs[-1]["name"]))


def check_args(path, xs):
    first = {}
    for e in xs:
        first.setdefault(e["name"], e)
    want = {
        "cuInit": {"Flags": 0, "result": "CUDA_SUCCESS"},
        "cuDeviceGet": {"ordinal": 3, "result": "CUDA_SUCCESS"},
        "cuGetErrorName": {"error": "99999", "result": "CUDA_ERROR_INVALID_VALUE"},
        "cuModuleGetFunction": {"hmod": "0x1234", "name": '"kern\\"el\\\\x"', "result": "CUDA_SUCCESS"},
        "cuLibraryLoadData": {"jitOptions": "NULL", "numJitOptions": 0,
                              "result": "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER"},
        "cuMemGetInfo_v2": {"result": "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER"},
        "cuCtxSetCurrent": {"ctx": "0x0", "result": "CUDA_SUCCESS"},
    }
    for name, args in want.items():
        got = first.get(name, {}).get("args", {})
        for k, v in args.items():
            if got.get(k) != v:
                fail("%s: %s's %s is %r, wanted %r (args %r)" % (path, name, k, got.get(k), v, got))
    dev = first.get("cuDeviceGet", {}).get("args", {}).get("device", "")
    if not (isinstance(dev, str) and dev.startswith("0x")):
        fail("%s: cuDeviceGet's device pointer is %r, wanted hex" % (path, dev))


def check_instants(path, events, xs):
    inst = [e for e in events if e.get("ph") == "i"]
    boot = [e for e in inst if e["name"] == "cushim bootstrap"]
    if len(boot) != 1 or boot[0]["args"].get("driver") != "CUDA 11.4" or boot[0]["args"].get("resolved", 0) <= 0:
        fail("%s: bootstrap instants %r, wanted one on CUDA 11.4" % (path, boot))
    missing = {e["args"]["function"]: e for e in inst if e["cat"] == "missing"}
    want = {"cuLibraryLoadData": "needs a newer driver", "cuMemGetInfo_v2": "hidden by CUSHIM_HIDE"}
    if sorted(missing) != sorted(want) or len(missing) != len([e for e in inst if e["cat"] == "missing"]):
        fail("%s: missing-export instants for %s, wanted one each for %s"
             % (path, [e["name"] for e in inst if e["cat"] == "missing"], sorted(want)))
    for fn, why in want.items():
        e = missing.get(fn)
        if not e:
            continue
        if e["args"].get("why") != why or e["args"].get("returns") != "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER":
            fail("%s: instant for %s says %r" % (path, fn, e["args"]))
        call = min((x for x in xs if x["name"] == fn), key=lambda x: x["ts"], default=None)
        if call and not call["ts"] - 0.002 <= e["ts"] <= call["ts"] + call["dur"] + 0.002:
            fail("%s: the instant for %s (%.3f) is outside its first call (%.3f + %.3f)"
                 % (path, fn, e["ts"], call["ts"], call["dur"]))
    return len(inst)


def known(parent, child, child_pid, trace=None):
    events = load(parent)
    xs = calls(events)
    pid = xs[0]["pid"] if xs else -1
    check_common(parent, events, pid, "tl-app")
    by_tid = check_nesting(parent, xs)
    counts = collections.Counter(e["name"] for e in xs)
    want = {"cuInit": 1, "cuDriverGetVersion": 1, "cuDeviceGet": 1, "cuGetErrorName": 1, "cuModuleGetFunction": 1,
            "cuLibraryLoadData": 2, "cuMemGetInfo_v2": 1, "cuCtxGetCurrent": 108, "cuCtxSetCurrent": 8}
    if dict(counts) != want:
        fail("%s: calls %s, wanted %s" % (parent, dict(counts), want))
    if len(by_tid) != 9:
        fail("%s: calls on %d threads, wanted 9" % (parent, len(by_tid)))
    check_main_thread(parent, by_tid, pid)
    check_args(parent, xs)
    ninst = check_instants(parent, events, xs)
    failed = [e["name"] for e in xs if e["cat"] == "failed"]
    if sorted(failed) != ["cuGetErrorName", "cuLibraryLoadData", "cuLibraryLoadData", "cuMemGetInfo_v2"]:
        fail("%s: failed calls %s" % (parent, failed))

    cevents = load(child)
    cxs = calls(cevents)
    check_common(child, cevents, child_pid, "tl-app")
    check_nesting(child, cxs)
    if [e["name"] for e in cxs] != ["cuCtxGetCurrent"] * 3:
        fail("%s: the child's calls are %s, wanted 3 cuCtxGetCurrent" % (child, [e["name"] for e in cxs]))
    # The child's own instant: its calls fail because it was forked after the
    # parent initialised CUDA (the fork cause, said once); none of the parent's.
    cinst = [e["name"] for e in cevents if e.get("ph") == "i"]
    if cinst != ["cushim: fork"]:
        fail("%s: the child's instant events are %s, wanted its fork cause alone, none of the parent's"
             % (child, cinst))
    if cxs and xs and min(e["ts"] for e in cxs) < max(e["ts"] for e in xs):
        fail("%s: the child's calls are not after the parent's on the shared clock" % child)
    if trace is not None:
        with open(trace, encoding="utf-8") as f:
            lines = [l for l in f if ") = " in l and l.split()[2] == str(pid)]
        if len(lines) != len(xs):
            fail("%s: %d trace lines beside a timeline of %d calls" % (trace, len(lines), len(xs)))
    print("%s: %d events: %d calls on %d threads, %d instants, %d metadata; child: %d events"
          % (parent, len(events), len(xs), len(by_tid), ninst, len(events) - len(xs) - ninst, len(cevents)))


def killed(path):
    events = load(path)
    xs = calls(events)
    counts = collections.Counter(e["name"] for e in xs)
    # The workers' buffers were written when they exited; the main thread's
    # calls were still in its buffer when the kill came.
    if counts.get("cuCtxGetCurrent") != 8 * 5000 or counts.get("cuCtxSetCurrent") != 8:
        fail("%s: after the kill, cuCtxGetCurrent %s and cuCtxSetCurrent %s, wanted %d and 8"
             % (path, counts.get("cuCtxGetCurrent"), counts.get("cuCtxSetCurrent"), 8 * 5000))
    check_nesting(path, xs)
    print("%s: %d events after the repair, %d calls" % (path, len(events), len(xs)))


# Each cause of a missing export as the log's warning words it (src/shim/missing.c).
LOG_WORDS = {"needs a newer driver": "needs a CUDA", "hidden by CUSHIM_HIDE": "is hidden by CUSHIM_HIDE",
             "resolved to cushim itself, not to a driver": "resolved to cushim itself, not to a driver",
             "not provided by this driver": "is not provided by this driver"}


def why(path, log, wants):
    """Each missing-export instant gives the cause the log's warning gives,
    and those named (FUNCTION=CAUSE) the cause wanted."""
    inst = {e["args"]["function"]: e["args"]["why"] for e in load(path) if e.get("cat") == "missing"}
    with open(log, encoding="utf-8", errors="replace") as f:
        said = {l.split()[1]: l for l in f if l.startswith("cushim: ") and "(returning " in l}
    for fn, cause in sorted(inst.items()):
        words = LOG_WORDS.get(cause)
        if not words:
            fail("%s: %s is missing for %r, which is no cause cushim names" % (path, fn, cause))
        elif fn not in said or words not in said[fn]:
            fail("%s: %s is missing because %r, but the log says: %s"
                 % (path, fn, cause, said.get(fn, "nothing").strip()))
    for want in wants:
        fn, cause = want.split("=", 1)
        if inst.get(fn) != cause:
            fail("%s: %s is missing because %r, wanted %r" % (path, fn, inst.get(fn), cause))
    print("%s: %d missing exports named" % (path, len(inst)))


if __name__ == "__main__":
    try:
        if sys.argv[1] == "known":
            known(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5] if len(sys.argv) > 5 else None)
        elif sys.argv[1] == "killed":
            killed(sys.argv[2])
        elif sys.argv[1] == "why":
            why(sys.argv[2], sys.argv[3], sys.argv[4:])
        else:
            raise SystemExit("usage: check-timeline.py known|killed|why FILE...")
    except (OSError, ValueError, KeyError, IndexError) as e:
        fail("cannot read the timeline: %s: %s" % (type(e).__name__, e))
    for f in failures:
        print("FAIL: " + f, file=sys.stderr)
    sys.exit(1 if failures else 0)
