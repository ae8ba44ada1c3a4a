"""cushim's PEP 517 build backend (pyproject.toml names it).

The wheel holds what `make install` puts in a prefix, under the package
folder: cushim/bin/cushim and cushim/lib/libcushim.so (the command finds the
library in ../lib from its own folder), the manual as data
(share/man/man1/cushim.1) and the licence; beside them the Python package of
python/cushim.  The Autotools build them out of tree in a temporary folder
and install them into a staging one (make wheel-files, python/local.mk).  The
wheel is tagged linux_<cpu>: auditwheel repair (python/repair.py) makes it a
manylinux wheel, with the libraries it needs.

The sdist is `make distdir` with a PKG-INFO: it configures and builds with a
C compiler, make, pkg-config, libelf and libzip (their -dev packages), no
Autotools; a git checkout needs autoconf, automake and libtool too.  Neither
needs the CUDA toolkit, only its driver API headers (cuda.h and the
typedef headers): from the `cuda` setting, else $CUDA_HOME or
/usr/local/cuda, else NVIDIA's nvidia-cuda-runtime and
nvidia-cuda-profiler-api wheels, which the backend then asks the frontend
for.

Settings (pip --config-settings KEY=VALUE, python -m build -C KEY=VALUE):
  host=TRIPLET  cross-compile (configure --host=TRIPLET): aarch64-linux-gnu
  cuda=DIR      the toolkit root whose include/ has the headers; cuda=wheels:
                NVIDIA's wheels even where a toolkit is installed
  jobs=N        make -jN (default: this machine's processors)
"""
import base64
import gzip
import hashlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

# The headers' wheels, when no toolkit is found: the CUDA 13.0 of the
# project's own builds (cuda.h, the typedef headers; cudaProfiler.h), pinned
# so that one sdist builds one wheel.
HEADERS_WHEELS = ["nvidia-cuda-runtime==13.0.96", "nvidia-cuda-profiler-api==13.0.85"]
NAME = "cushim"
ELF_MACHINES = {62: "x86_64", 183: "aarch64", 21: "ppc64le", 22: "s390x", 243: "riscv64"}


def _root():
    return Path.cwd()  # PEP 517: the hooks run in the source tree's root


def _say(msg):
    print(f"cushim_backend: {msg}", file=sys.stderr, flush=True)


# ---- the version and the metadata ----
def _version():
    text = (_root() / "configure.ac").read_text(encoding="utf-8")
    m = re.search(r"AC_INIT\(\[cushim\],\s*\[([^\]]+)\]", text)
    if not m:
        raise RuntimeError("configure.ac: no AC_INIT([cushim], [VERSION]) to take the version from")
    version = m.group(1)
    if not re.fullmatch(r"\d+(\.\d+)*((a|b|rc)\d+)?(\.post\d+)?(\.dev\d+)?", version):
        raise RuntimeError(f"configure.ac: version {version!r} is not a canonical PEP 440 version")
    return version


def _project():
    try:
        import tomllib
    except ImportError:  # Python < 3.11: pyproject.toml's build requirement
        import tomli as tomllib
    with open(_root() / "pyproject.toml", "rb") as f:
        project = tomllib.load(f)["project"]
    known = {"name", "dynamic", "description", "readme", "requires-python", "license", "license-files",
             "authors", "keywords", "classifiers", "urls", "scripts"}
    unknown = set(project) - known
    if unknown or project.get("dynamic") != ["version"]:
        raise RuntimeError(f"pyproject.toml: [project] keys this backend does not write: {sorted(unknown)}; "
                           "dynamic must be [\"version\"]")
    return project


def _metadata(project, version):
    """The core metadata (2.4), as METADATA and PKG-INFO hold it."""
    fields = [("Metadata-Version", "2.4"), ("Name", project["name"]), ("Version", version),
              ("Summary", project["description"])]
    fields += [("Author", a["name"]) for a in project.get("authors", [])]
    fields += [("License-Expression", project["license"])]
    fields += [("License-File", f) for f in project.get("license-files", [])]
    fields += [("Keywords", ",".join(project.get("keywords", [])))]
    fields += [("Classifier", c) for c in project.get("classifiers", [])]
    fields += [("Requires-Python", project["requires-python"])]
    fields += [("Project-URL", f"{k}, {v}") for k, v in project.get("urls", {}).items()]
    readme = project["readme"]
    fields += [("Description-Content-Type", readme["content-type"])]
    for k, v in fields:
        if "\n" in v:
            raise RuntimeError(f"pyproject.toml: {k} holds a line break")
    body = (_root() / readme["file"]).read_text(encoding="utf-8")
    return "".join(f"{k}: {v}\n" for k, v in fields) + "\n" + body


def _entry_points(project):
    lines = ["[console_scripts]"] + [f"{k} = {v}" for k, v in project.get("scripts", {}).items()]
    return "\n".join(lines) + "\n"


# ---- the CUDA headers ----
def _has_headers(d):
    return d and all((Path(d) / "include" / h).is_file() for h in ("cuda.h", "cudaTypedefs.h"))


def _toolkit(settings):
    """The toolkit root with the headers, or None: then the headers' wheels."""
    if settings.get("cuda") == "wheels":
        return None
    if settings.get("cuda"):
        if not _has_headers(settings["cuda"]):
            raise RuntimeError(f"cuda={settings['cuda']}: no include/cuda.h and include/cudaTypedefs.h there")
        return settings["cuda"]
    for d in (os.environ.get("CUDA_HOME"), "/usr/local/cuda"):
        if _has_headers(d):
            return d
    return None


def _headers_from_wheel():
    spec = importlib.util.find_spec("nvidia")
    for base in (spec.submodule_search_locations or []) if spec else []:
        for sub in ("cu13", "cuda_runtime"):
            if _has_headers(Path(base) / sub):
                return str(Path(base) / sub)
    raise RuntimeError("no CUDA toolkit (cuda=DIR, $CUDA_HOME, /usr/local/cuda) and no "
                       f"{' '.join(HEADERS_WHEELS)} installed for the build")


def _cuda_dir(settings):
    d = _toolkit(settings) or _headers_from_wheel()
    _say(f"the CUDA headers of {d}/include")
    return d


# ---- the build: sources, configure, make ----
def _run(cmd, cwd, log, env=None):
    _say("$ " + " ".join(str(c) for c in cmd))
    with open(log, "a") as out:
        done = subprocess.run([str(c) for c in cmd], cwd=cwd, stdout=out, stderr=subprocess.STDOUT, env=env)
    if done.returncode != 0:
        tail = Path(log).read_text(errors="replace").splitlines()[-40:]
        raise RuntimeError(f"{cmd[0]} failed (exit status {done.returncode}); the end of {log}:\n" + "\n".join(tail))


def _make_env():
    """The environment of the sub-makes: not a jobserver that a parent make
    opened and Python's subprocess closed."""
    env = dict(os.environ)
    for k in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL"):
        env.pop(k, None)
    return env


def _git_files(root):
    out = subprocess.run(["git", "ls-files", "-z"], cwd=root, stdout=subprocess.PIPE, check=True).stdout
    return [f for f in out.decode().split("\0") if f and os.path.lexists(root / f)]


def _sources(tmp, log):
    """A source folder to configure out of tree: this one where it can be,
    else a pristine copy (a tree configured in place cannot be configured
    again elsewhere): of a git checkout, the files git tracks (what a build
    in place leaves is not), and autoreconf there."""
    root = _root()
    if (root / "configure").is_file() and not (root / "config.status").exists():
        return root
    copy = tmp / "src"
    if (root / ".git").exists() and shutil.which("git"):
        for f in _git_files(root):
            (copy / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(root / f, copy / f, follow_symlinks=False)
    else:
        shutil.copytree(root, copy, symlinks=True)
        if (copy / "config.status").exists():
            _run([os.environ.get("MAKE", "make"), "distclean"], copy, log, _make_env())
    if not (copy / "configure").is_file():
        _run(["autoreconf", "-fi"], copy, log)
    return copy


def _configure(src, build, settings, log):
    build.mkdir(parents=True, exist_ok=True)
    args = [src / "configure", "--prefix=/usr/local", "--bindir=/usr/local/bin", "--libdir=/usr/local/lib",
            "--mandir=/usr/local/share/man", f"--with-cuda={_cuda_dir(settings)}", "NVCC=",
            "--disable-dependency-tracking"]
    if settings.get("host"):
        args.append(f"--host={settings['host']}")
    _run(args, build, log)


def _make(build, targets, settings, log):
    jobs = settings.get("jobs") or str(os.cpu_count() or 1)
    _run([os.environ.get("MAKE", "make"), f"-j{jobs}"] + targets, build, log, _make_env())


def _settings(config_settings):
    settings = dict(config_settings or {})
    unknown = set(settings) - {"host", "cuda", "jobs"}
    if unknown:
        raise RuntimeError(f"unknown config settings {sorted(unknown)}: host, cuda and jobs are known")
    return settings


# ---- the archives ----
def _epoch():
    return int(os.environ.get("SOURCE_DATE_EPOCH", time.time()))


def _elf_cpu(path):
    with open(path, "rb") as f:
        head = f.read(20)
    if head[:4] != b"\x7fELF":
        raise RuntimeError(f"{path} is no ELF file")
    machine = int.from_bytes(head[18:20], "little" if head[5] == 1 else "big")
    if machine not in ELF_MACHINES:
        raise RuntimeError(f"{path}: no wheel tag for ELF machine {machine}")
    return ELF_MACHINES[machine]


class _Wheel:
    """A wheel written entry by entry; RECORD last."""

    def __init__(self, path):
        self.zip = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED)
        self.date = time.gmtime(max(_epoch(), 315532800))[:6]  # zip dates start in 1980
        self.records = []

    def add(self, arcname, data, executable=False):
        info = zipfile.ZipInfo(arcname, date_time=self.date)
        info.external_attr = (0o100755 if executable else 0o100644) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        self.records.append(f"{arcname},sha256={digest},{len(data)}")

    def close(self, record):
        self.records.append(f"{record},,")
        info = zipfile.ZipInfo(record, date_time=self.date)
        info.external_attr = 0o100644 << 16
        self.zip.writestr(info, "\n".join(self.records) + "\n", zipfile.ZIP_DEFLATED)
        self.zip.close()


def _dist_info(project, version):
    """The .dist-info files but RECORD and WHEEL: name -> bytes."""
    files = {"METADATA": _metadata(project, version).encode(), "entry_points.txt": _entry_points(project).encode()}
    for f in project.get("license-files", []):
        files[f"licenses/{f}"] = (_root() / f).read_bytes()
    return files


def _pack(outdir, stage, project, version):
    prefix = stage / "usr" / "local"
    program = prefix / "bin" / NAME
    tag = f"py3-none-linux_{_elf_cpu(program)}"
    name = f"{NAME}-{version}-{tag}.whl"
    dist, data = f"{NAME}-{version}.dist-info", f"{NAME}-{version}.data"
    w = _Wheel(outdir / name)
    package = _root() / "python" / NAME
    for f in ("__init__.py", "__main__.py", "py.typed"):
        w.add(f"{NAME}/{f}", (package / f).read_bytes())
    w.add(f"{NAME}/bin/{NAME}", program.read_bytes(), executable=True)
    w.add(f"{NAME}/lib/libcushim.so", (prefix / "lib" / "libcushim.so").read_bytes(), executable=True)
    w.add(f"{data}/data/share/man/man1/cushim.1", (prefix / "share" / "man" / "man1" / "cushim.1").read_bytes())
    for f, content in _dist_info(project, version).items():
        w.add(f"{dist}/{f}", content)
    w.add(f"{dist}/WHEEL", f"Wheel-Version: 1.0\nGenerator: cushim_backend\nRoot-Is-Purelib: false\nTag: {tag}\n"
          .encode())
    w.close(f"{dist}/RECORD")
    return name


def _tar(tree, base, out):
    """tree as base/ in a gzipped tar, owned by no one, with a fixed header time."""
    def norm(info):
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        return info
    with open(out, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=_epoch()) as gz, \
            tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
        tar.add(tree, arcname=base, filter=norm)


# ---- the hooks ----
def get_requires_for_build_wheel(config_settings=None):
    return [] if _toolkit(_settings(config_settings)) else HEADERS_WHEELS


def get_requires_for_build_sdist(config_settings=None):
    return get_requires_for_build_wheel(config_settings)


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    project, version = _project(), _version()
    dist = f"{NAME}-{version}.dist-info"
    for f, content in _dist_info(project, version).items():
        path = Path(metadata_directory) / dist / f
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
    return dist


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    settings, project, version = _settings(config_settings), _project(), _version()
    with tempfile.TemporaryDirectory(prefix="cushim-wheel.") as t:
        tmp = Path(t)
        log, build, stage = tmp / "build.log", tmp / "build", tmp / "stage"
        src = _sources(tmp, log)
        _configure(src, build, settings, log)
        _make(build, ["wheel-files", f"DESTDIR={stage}"], settings, log)
        return _pack(Path(wheel_directory), stage, project, version)


def build_sdist(sdist_directory, config_settings=None):
    settings, project, version = _settings(config_settings), _project(), _version()
    base = f"{NAME}-{version}"
    with tempfile.TemporaryDirectory(prefix="cushim-sdist.") as t:
        tmp = Path(t)
        if (_root() / "PKG-INFO").is_file():  # an sdist already: itself again
            if (_root() / "config.status").exists():
                raise RuntimeError("this sdist was configured in place: make distclean first")
            tree = _root()
        else:
            log, build = tmp / "build.log", tmp / "build"
            _configure(_sources(tmp, log), build, settings, log)
            _make(build, ["distdir", f"distdir={base}"], settings, log)
            tree = build / base
            (tree / "PKG-INFO").write_text(_metadata(project, version), encoding="utf-8")
        _tar(tree, base, Path(sdist_directory) / f"{base}.tar.gz")
    return f"{base}.tar.gz"
