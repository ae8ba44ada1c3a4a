"""cushim for Python: the cushim command and libcushim.so, carried in this
package (bin/cushim, lib/libcushim.so), and two calls into them.

The command is on PATH as ``cushim`` (``python -m cushim`` runs the same);
``cushim run -- ./app`` preloads the library of this package.
"""
from __future__ import annotations

import json
import os
import subprocess
from typing import Any, Dict, Iterable, Optional, Union

__all__ = ["library_path", "check"]

_HERE = os.path.dirname(os.path.abspath(__file__))
_PROGRAM = os.path.join(_HERE, "bin", "cushim")

PathLike = Union[str, "os.PathLike[str]"]


def library_path() -> str:
    """Return the absolute path of this package's libcushim.so.

    It is what ``LD_PRELOAD`` takes and what ``cushim run`` preloads.
    Raises FileNotFoundError when the package holds no library (a source
    tree that was never built).
    """
    path = os.path.join(_HERE, "lib", "libcushim.so")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no libcushim.so in {os.path.dirname(path)}")
    return path


def check(
    paths: Union[PathLike, Iterable[PathLike]],
    driver: Optional[str] = None,
    gpu: Union[str, Iterable[str], None] = None,
) -> Dict[str, Any]:
    """Judge files, folders or wheels as ``cushim check --json`` does.

    paths: a program, a library, a fatbin, a folder (a tree, an image's
    root) or a .whl, or several of them.  driver: the CUDA version of the
    driver to compare with, such as "12.2" (default: the driver of this
    machine, if any).  gpu: the GPUs to run on, such as "sm_90" or
    ["sm_80", "sm_90"] (default: none).

    Returns the JSON document the command prints, parsed: its verdicts say
    whether each file (and a folder as one environment) runs on that
    driver.  Raises subprocess.CalledProcessError, whose stderr says why,
    when the command cannot judge them (a path that cannot be read, a bad
    version): exit status 2.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    args = [_PROGRAM, "check", "--json"]
    if driver is not None:
        args.append(f"--driver-version={driver}")
    if gpu is not None:
        args.append("--gpu=" + (gpu if isinstance(gpu, str) else ",".join(gpu)))
    args += ["--"] + [os.fspath(p) for p in paths]
    done = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    if done.returncode not in (0, 1):
        raise subprocess.CalledProcessError(done.returncode, args, done.stdout, done.stderr)
    return json.loads(done.stdout)
