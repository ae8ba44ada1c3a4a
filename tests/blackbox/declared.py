#!/usr/bin/env python3
"""List the cu* functions that given headers declare, from preprocessor output.

Usage: cpp ... src/common/cuda-all.h | declared.py cudaGL.h cudaEGL.h cudaVDPAU.h
Only the text that the line markers attribute to those headers counts: what
cuda.h itself declares is the toolkit stub's business.  The preprocessor has
already dropped the Windows-only declarations (cuWGLGetDevice)."""
import os
import re
import sys

wanted = set(sys.argv[1:])
current, text = None, []
for line in sys.stdin:
    m = re.match(r'#\s*\d+\s+"([^"]+)"', line)
    if m:
        current = os.path.basename(m.group(1))
        continue
    if current in wanted:
        text.append(line)
names = set(re.findall(r"\bCUresult\s+(?:__attribute__\s*\(\(.*?\)\)\s*)*(cu\w+)\s*\(", " ".join(text), re.S))
for n in sorted(names):
    print(n)
