"""The Lambda package Chalice builds, finished here before CDK stages it (every synth, so `make synth` and
`cdk deploy` alike):

- checked: it must hold every runtime dependency. Chalice's packager only warns ("may not work correctly")
  when it finds no wheel for the Lambda platform, and builds the package without it;
- given the posters' CJK font: Lambda has no fonts-noto-cjk; vendor/fonts/ holds a subset of Noto Sans CJK SC
  (infra/poster_font.py), which Chalice puts at the package's root; the functions' POSTER_FONT names it;
- pruned: what is never imported at run time is not shipped (`prune`: the libraries' own test suites and type
  stubs, pycryptodomex's self-test, numpy's build tools and SIMD test module, Pillow's optional AVIF codec),
  keeping the package under 150 MB unzipped (issue 43; Lambda's limit is 250 MB);
- compiled: Lambda's /var/task is read-only, so a package without bytecode compiles every module it imports
  on every cold start (about twice the import time). Bytecode is added as unchecked-hash .pyc files
  (PEP 552), which Python uses without comparing the sources' timestamps (the zip's times do not matter).
"""
from __future__ import annotations

import importlib.util
import marshal
import re
import sys
import zipfile
from importlib import metadata
from pathlib import Path

RUNTIME_OF_THIS_PYTHON = f"python{sys.version_info[0]}.{sys.version_info[1]}"   # Chalice picks it the same way
# glibc of each runtime's Amazon Linux (python3.11: Amazon Linux 2; python3.12+: Amazon Linux 2023); wheels
# and shared objects needing a newer one cannot load there.
LAMBDA_GLIBC = {"python3.11": (2, 26), "python3.12": (2, 34), "python3.13": (2, 34)}
# Provided by the Lambda runtime itself, not packaged (boto3 is not in requirements.txt; these come with it).
RUNTIME_PROVIDED = {"boto3", "botocore", "s3transfer", "jmespath", "python-dateutil", "six", "urllib3"}
# The posters' font in the package (vendor/fonts/ → the package's root), relative to /var/task; Bold beside it.
POSTER_FONT = "fonts/NotoSansCJKsc-Regular.subset.otf"


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def required_distributions(requirements: Path) -> set[str]:
    """requirements.txt's names and everything they require, read from the installed packages' metadata
    (this venv installs the same file), markers evaluated for this interpreter (Linux, CPython 3.11)."""
    from packaging.requirements import Requirement
    todo = []
    for line in requirements.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            todo.append(Requirement(line))
    seen: set[str] = set()
    while todo:
        req = todo.pop()
        name = _norm(req.name)
        if name in seen:
            continue
        seen.add(name)
        try:
            dist = metadata.distribution(req.name)
        except metadata.PackageNotFoundError:
            continue   # not installed here: the package check below still requires it by name
        for spec in dist.requires or []:
            sub = Requirement(spec)
            extras = req.extras or {""}
            if sub.marker is None or any(sub.marker.evaluate({"extra": e}) for e in extras):
                todo.append(sub)
    return seen


def packaged_distributions(zip_path: Path) -> dict[str, str]:
    """name → version of every distribution unpacked into the package (its *.dist-info folder)."""
    with zipfile.ZipFile(zip_path) as z:
        names = {n.split("/", 1)[0] for n in z.namelist() if n.split("/", 1)[0].endswith(".dist-info")}
    out = {}
    for folder in names:
        m = re.fullmatch(r"(.+?)-([^-]+)\.dist-info", folder)
        if m:
            out[_norm(m[1])] = m[2]
    return out


def missing_from_package(zip_path: Path, requirements: Path) -> list[str]:
    return sorted(required_distributions(requirements) - set(packaged_distributions(zip_path)) - RUNTIME_PROVIDED)


def check(zip_path: Path, requirements: Path) -> None:
    missing = missing_from_package(zip_path, requirements)
    if missing:
        raise SystemExit(
            f"The Lambda package {zip_path} lacks {', '.join(missing)}: Chalice found no wheel for the Lambda "
            "runtime's platform (see its 'Could not install dependencies' above). Pin a version that ships one "
            "(manylinux2014 / manylinux_2_26 or older for python3.11) in requirements.txt; docs/deploy.md.")


def check_font(zip_path: Path) -> None:
    """The posters' font must be in the package, both weights: without it every poster route answers 500."""
    with zipfile.ZipFile(zip_path) as z:
        names = set(z.namelist())
    missing = [n for n in (POSTER_FONT, POSTER_FONT.replace("Regular", "Bold")) if n not in names]
    if missing:
        raise SystemExit(f"The Lambda package {zip_path} lacks the posters' font {', '.join(missing)}: "
                         "vendor/fonts/ is made by `.venv/bin/python infra/poster_font.py` (needs fonts-noto-cjk).")


# Top-level folders of the app itself: never pruned (a folder of its own called tests would be a surprise to lose).
_OWN = ("app.py", "chalicelib", "fonts")
# Never imported by the code at run time. numpy/_core/_simd is numpy's SIMD test module (2.9 MB); Pillow's AVIF
# plugin treats a missing _avif as "AVIF unsupported" (PIL/AvifImagePlugin.py), and posters are PNG: 7.5 MB.
# stripe/params/* are the request parameters' TypedDicts, imported by stripe only under TYPE_CHECKING (and by
# `stripe.params.X` on demand, which this code never writes): ~10 MB with their bytecode; the package's
# __init__ stays, so `import stripe.params` still works. Issue 43 (the package had grown back to 150.5 MiB): pydantic's
# v1 compatibility layer (nothing packaged imports pydantic.v1; 1.1 MiB), wechatpayv3's asyncio client (needs aiohttp,
# which is not packaged), numpy's C headers, static libraries and Cython examples (for building against numpy), and
# Pillow's WebP and colour-management plugins with their libraries (each plugin imports its binary in a try and
# reports the format unsupported without it; posters are PNG; nothing else links them: readelf): ~3.7 MiB.
_LEFT_OUT_PREFIXES = ("Cryptodome/SelfTest/", "Crypto/SelfTest/", "numpy/f2py/", "numpy/distutils/",
                      "numpy/_pyinstaller/", "numpy/doc/", "numpy/_core/_simd.", "PIL/_avif.", "pillow.libs/libavif-",
                      "stripe/params/", "pydantic/v1/", "wechatpayv3/async_/", "numpy/_core/include/",
                      "numpy/_core/lib/", "numpy/random/lib/", "numpy/random/_examples/", "PIL/_webp.",
                      "pillow.libs/libwebp", "pillow.libs/libsharpyuv-", "PIL/_imagingcms.", "pillow.libs/liblcms2-")
_KEPT = ("stripe/params/__init__.py",)


def left_out(name: str) -> bool:
    """Whether a file of the package is one never shipped (see _LEFT_OUT_PREFIXES, tests and stubs)."""
    parts = name.split("/")
    if parts[0] in _OWN or parts[0].endswith(".dist-info") or name in _KEPT:
        return False
    return (any(p in ("tests", "test") for p in parts[1:-1]) or name.endswith(".pyi")
            or name.startswith(_LEFT_OUT_PREFIXES))


def prune(zip_path: Path) -> int:
    """Rewrites the package without the files `left_out` names; returns the unzipped bytes removed."""
    removed = 0
    tmp = zip_path.with_suffix(".pruning.zip")
    with zipfile.ZipFile(zip_path) as src, zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as out:
        for info in src.infolist():
            if left_out(info.filename):
                removed += info.file_size
                continue
            out.writestr(info, src.read(info), compress_type=info.compress_type)
    tmp.replace(zip_path)
    return removed


def _pyc_name(name: str) -> str:
    """Where the runtime looks for a module's bytecode: beside it under __pycache__, whatever this process's
    PYTHONPYCACHEPREFIX (importlib.util.cache_from_source follows it, and a build with it set once put every
    .pyc of the package at /tmp/… paths where Lambda never looks)."""
    folder, _, file = name.rpartition("/")
    pyc = f"__pycache__/{file[:-3]}.{sys.implementation.cache_tag}.pyc"
    return f"{folder}/{pyc}" if folder else pyc


def add_bytecode(zip_path: Path, runtime: str) -> int:
    """Adds __pycache__/*.pyc for every module in the package; returns how many. The bytecode is this
    interpreter's, so it must be the runtime's Python."""
    if runtime != RUNTIME_OF_THIS_PYTHON:
        raise SystemExit(f"The functions run {runtime} but the package is built with {RUNTIME_OF_THIS_PYTHON}.")
    flags = (0b01).to_bytes(4, "little")   # hash-based, source not checked
    added = 0
    with zipfile.ZipFile(zip_path, "a", compression=zipfile.ZIP_DEFLATED) as z:
        names = set(z.namelist())
        for name in sorted(n for n in names if n.endswith(".py")):
            pyc = _pyc_name(name)
            if pyc in names:
                continue
            source = z.read(name)
            try:
                code = compile(source, f"/var/task/{name}", "exec", dont_inherit=True)
            except (SyntaxError, ValueError):
                continue   # e.g. a library's file templates: never imported
            info = zipfile.ZipInfo(pyc, date_time=z.getinfo(name).date_time)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o100644 << 16   # a regular file anyone can read: Lambda's user is not its owner
            z.writestr(info, importlib.util.MAGIC_NUMBER + flags + importlib.util.source_hash(source) + marshal.dumps(code))
            added += 1
    return added
