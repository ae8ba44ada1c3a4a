#!/usr/bin/env python3
"""Write cushim's committed table of the CUDA driver API from an include folder.

    tools/mktable.py --include DIR [--include DIR...] --out src/table/cuda-api.tsv \
        --source "nvidia-cuda-runtime 13.5.37"

DIR is any CUDA include folder: a toolkit's, or the PyPI wheels'
(nvidia-cuda-runtime carries cuda.h and the typedef headers,
nvidia-cuda-profiler-api cudaProfiler.h).  The table holds facts only; see
tools/cudaapi.py for how the names are derived.  `make update-table` runs it.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cudaapi  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--include", action="append", required=True, help="a CUDA include folder (repeatable)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--source", default="", help="where the headers came from, for the table's first line")
    ap.add_argument("--cpp", default=os.environ.get("CPP", "cc -E"), help="the C preprocessor (default: $CPP or cc -E)")
    a = ap.parse_args()
    try:
        api = cudaapi.Api(a.include, a.cpp, log=lambda m: sys.stderr.write("mktable: %s\n" % m))
        missing = [t for t, _ in cudaapi.GROUPS if t not in api.files]
        if missing:
            sys.stderr.write("mktable: warning: no %s in %s\n" % (", ".join(missing), ", ".join(a.include)))
        cudaapi.write_table(api, a.out, a.source or ", ".join(a.include))
    except cudaapi.Error as e:
        cudaapi.die(str(e))
    n = sum(1 for r in api.rows if r["name"])
    sys.stderr.write("mktable: CUDA %d.%d: %d variants (%d exported, %d lookup-only) -> %s\n" % (
        api.version // 1000, api.version % 1000 // 10, len(api.rows), n, len(api.rows) - n, a.out))


if __name__ == "__main__":
    main()
