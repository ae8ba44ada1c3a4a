#!/usr/bin/env python3
"""A Python multiprocessing pool under cushim, for tests/timeline/procs.sh.

    procs-pool.py METHOD RECORDS

Eight worker processes (spawn or forkserver; a pool of four, one task per
worker; a forkserver's workers end with os._exit) each call cuDriverGetVersion 1 + k times and cuGetErrorName once
(it fails), through cushim's exports (ctypes.CDLL(None): the preloaded
library comes first).  The parent makes no driver call; it appends each
worker's "PID ROLE CALLS ERRORS" to RECORDS, counted by the worker."""
import ctypes
import multiprocessing
import os
import sys


def work(k):
    cuda = ctypes.CDLL(None)
    version, name = ctypes.c_int(), ctypes.c_char_p()
    calls = errors = 0
    for _ in range(1 + k):
        calls += 1
        errors += cuda.cuDriverGetVersion(ctypes.byref(version)) != 0
    calls += 1
    errors += cuda.cuGetErrorName(99999, ctypes.byref(name)) != 0
    return os.getpid(), "worker%d" % k, calls, errors


def main():
    method, records = sys.argv[1], sys.argv[2]
    ctx = multiprocessing.get_context(method)
    pool = ctx.Pool(4, maxtasksperchild=1)
    done = pool.map(work, range(8), chunksize=1)
    pool.close()  # not terminate, as leaving a with block does: the workers end on their own
    pool.join()
    with open(records, "a") as f:
        for pid, role, calls, errors in done:
            f.write("%d %s %d %d\n" % (pid, role, calls, errors))


if __name__ == "__main__":
    main()
