#!/usr/bin/env python3
"""Check the outputs of procs-app runs against what its processes did.

    check-procs.py DIR RECORDS...

DIR holds what CUSHIM_TIMELINE=DIR/tl.json, CUSHIM_SUMMARY=DIR/s.json and
CUSHIM_LOG_FILE=DIR/log.txt (CUSHIM_LOG=trace) made, and what `cushim
timeline --merge` (DIR/all.json) and `cushim summary --json` (DIR/s-all.json)
made of them.  Each RECORDS file is one run's: "PID ROLE CALLS ERRORS" per
process, counted by procs-app itself.  Every process's calls must be in
exactly one timeline file and one summary file, in the log, and in the
merged results, which must equal the sums.  Prints the files and the merged
counts; exits 1 with every failure listed."""
import collections
import json
import os
import re
import sys

failures = []


def fail(msg):
    failures.append(msg)


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except ValueError as e:
        fail("%s is not valid JSON: %s" % (path, e))
        return None


def records(paths):
    recs, runs = {}, []
    for path in paths:
        run = set()
        with open(path) as f:
            for line in f:
                pid, role, calls, errors = line.split()
                if int(pid) in recs:
                    fail("pid %s recorded twice" % pid)
                recs[int(pid)] = (role, int(calls), int(errors))
                run.add(int(pid))
        if len(run) != 8:
            fail("%s: %d processes, wanted 8" % (path, len(run)))
        runs.append(run)
    return recs, runs


def own_files(d, stem):
    """stem.json and the names derived from it: stem.PID.json, stem.PID-N.json."""
    pat = re.compile(r"^%s(\.(\d+)(-\d+)?)?\.json$" % re.escape(stem))
    return sorted((f, pat.match(f)) for f in os.listdir(d) if pat.match(f))


def check_timelines(d, recs):
    where = collections.defaultdict(list)
    for name, m in own_files(d, "tl"):
        events = load(os.path.join(d, name))
        if events is None:
            continue
        procs = [e["pid"] for e in events if e.get("ph") == "M" and e["name"] == "process_name"]
        if len(procs) != 1:
            fail("%s: process_name for pids %r, wanted one process" % (name, procs))
            continue
        pid = procs[0]
        if m.group(2) and int(m.group(2)) != pid:
            fail("%s holds pid %d: a derived name says which process wrote it" % (name, pid))
        if any(e["pid"] != pid for e in events):
            fail("%s: events of other pids than %d" % (name, pid))
        calls = [e for e in events if e.get("ph") == "X"]
        where[pid].append((name, len(calls), sum(e["cat"] == "failed" for e in calls)))
    for pid, (role, calls, errors) in recs.items():
        got = where.get(pid, [])
        if len(got) != 1:
            fail("pid %d (%s): in %d timeline files %r, wanted 1" % (pid, role, len(got), got))
        elif got[0][1:] != (calls, errors):
            fail("pid %d (%s): %s has %d calls, %d failed; it made %d, %d failed"
                 % (pid, role, got[0][0], got[0][1], got[0][2], calls, errors))
    for pid in set(where) - set(recs):
        fail("timeline files %r hold pid %d, which no process of these runs had" % (where[pid], pid))
    return sorted(n for n, _ in own_files(d, "tl"))


def check_summaries(d, recs, runs):
    seen, byfn, run_of = {}, collections.Counter(), {}
    for name, m in own_files(d, "s"):
        doc = load(os.path.join(d, name))
        if doc is None:
            continue
        pid = doc["pid"]
        if pid in seen:
            fail("pid %d has two summaries: %s and %s" % (pid, seen[pid][0], name))
        if m.group(2) and int(m.group(2)) != pid:
            fail("%s holds pid %d" % (name, pid))
        fns = doc["functions"]
        seen[pid] = (name, sum(f["calls"] for f in fns), sum(f["errors"] for f in fns))
        run_of[pid] = doc["run"]
        for f in fns:
            byfn[f["name"]] += f["calls"]
    for pid, (role, calls, errors) in recs.items():
        if pid not in seen:
            fail("pid %d (%s) has no summary" % (pid, role))
        elif seen[pid][1:] != (calls, errors):
            fail("pid %d (%s): %s counts %r; it made %d calls, %d failed" % (pid, role, seen[pid][0], seen[pid][1:],
                                                                         calls, errors))
    for pid in set(seen) - set(recs):
        fail("summary %s holds pid %d, which no process of these runs had" % (seen[pid][0], pid))
    for run in runs:
        ids = {run_of.get(pid) for pid in run}
        if len(ids) != 1:
            fail("one run's processes name runs %r" % ids)
    return byfn, sorted(n for n, _ in own_files(d, "s"))


LINE = re.compile(r"^cushim: \d+\.\d{6} (\d+) \d+ (\w+)\(.*\) = (\w+) \d+\.\d{3} us$")


def check_log(path, recs):
    per = collections.Counter()
    failed = collections.Counter()
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            m = LINE.match(line)
            if not m:
                if not line.startswith("cushim: ") or re.search(r"cu[A-Z]\w+\(", line):
                    fail("%s: a torn or foreign line: %r" % (path, line[:200]))
                continue
            per[int(m.group(1))] += 1
            failed[int(m.group(1))] += m.group(3) != "CUDA_SUCCESS"
    for pid, (role, calls, errors) in recs.items():
        if (per[pid], failed[pid]) != (calls, errors):
            fail("the log has %d lines (%d failed) of pid %d (%s), wanted %d (%d)"
                 % (per[pid], failed[pid], pid, role, calls, errors))


def check_merged(d, recs, byfn):
    events = load(os.path.join(d, "all.json"))
    ncalls = 0
    if events is not None:
        xs = collections.Counter(e["pid"] for e in events if e.get("ph") == "X")
        names = collections.Counter(e["pid"] for e in events if e.get("ph") == "M" and e["name"] == "process_name")
        ncalls = sum(xs.values())
        for pid, (role, calls, _) in recs.items():
            if xs[pid] != calls or names[pid] != 1:
                fail("all.json: pid %d (%s) has %d calls and %d names, wanted %d and 1"
                     % (pid, role, xs[pid], names[pid], calls))
    merged = load(os.path.join(d, "s-all.json"))
    if merged is None:
        return ncalls, None
    if merged["processes"] != len(recs) or sorted(merged["pids"]) != sorted(recs):
        fail("s-all.json: %d processes %r, wanted %d: %r" % (merged["processes"], merged["pids"], len(recs),
                                                               sorted(recs)))
    got = {f["name"]: f["calls"] for f in merged["functions"]}
    if got != dict(byfn):
        fail("s-all.json: calls per function %r, the files add up to %r" % (got, dict(byfn)))
    want = (sum(r[1] for r in recs.values()), sum(r[2] for r in recs.values()))
    if (merged["calls"], merged["errors"]) != want:
        fail("s-all.json: %d calls, %d errors; the processes made %d, %d" % (merged["calls"], merged["errors"],
                                                                              *want))
    return ncalls, merged


def main():
    d, recs_paths = sys.argv[1], sys.argv[2:]
    recs, runs = records(recs_paths)
    tls = check_timelines(d, recs)
    byfn, sums = check_summaries(d, recs, runs)
    check_log(os.path.join(d, "log.txt"), recs)
    ncalls, merged = check_merged(d, recs, byfn)
    print("timelines: %s" % " ".join(tls))
    print("summaries: %s" % " ".join(sums))
    if merged:
        print("merged: %d processes, %d timeline call events; summary %d calls, %d errors: %s"
              % (merged["processes"], ncalls, merged["calls"], merged["errors"],
                 ", ".join("%s %d" % (f["name"], f["calls"]) for f in merged["functions"])))
    for f in failures:
        print("FAIL: " + f, file=sys.stderr)
    sys.exit(1 if failures else 0)


main()
