"""infra/lambda_package.py on small packages made here: a package missing a dependency stops the synth; the
bytecode it adds is what a clean interpreter runs."""
from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from infra import lambda_package

ROOT = Path(__file__).resolve().parents[2]


def _package(path: Path, distributions: set[str], modules: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for d in distributions:
            info = zipfile.ZipInfo(f"{d.replace('-', '_')}-1.0.dist-info/METADATA")
            info.external_attr = 0o100644 << 16
            z.writestr(info, f"Name: {d}\nVersion: 1.0\n")
        for name, source in modules.items():
            info = zipfile.ZipInfo(name)
            info.external_attr = 0o100644 << 16
            z.writestr(info, source)
    return path


def test_a_package_without_numpy_stops_the_synth(tmp_path):
    needed = lambda_package.required_distributions(ROOT / "requirements.txt")
    assert {"numpy", "highspy", "pydantic-core", "stripe"} <= needed
    assert not needed & {"boto3", "botocore"}   # the runtime's own
    whole = _package(tmp_path / "whole.zip", needed, {})
    lambda_package.check(whole, ROOT / "requirements.txt")
    broken = _package(tmp_path / "broken.zip", needed - {"numpy"}, {})
    with pytest.raises(SystemExit, match="lacks numpy"):
        lambda_package.check(broken, ROOT / "requirements.txt")


def test_a_package_without_the_posters_font_stops_the_synth(tmp_path):
    font = lambda_package.POSTER_FONT
    whole = _package(tmp_path / "whole.zip", set(), {font: "", font.replace("Regular", "Bold"): ""})
    lambda_package.check_font(whole)
    broken = _package(tmp_path / "broken.zip", set(), {font: ""})
    with pytest.raises(SystemExit, match="Bold.subset.otf"):
        lambda_package.check_font(broken)


def test_the_added_bytecode_is_what_runs(tmp_path):
    pkg = _package(tmp_path / "p.zip", set(), {"mod.py": "ANSWER = 'compiled'\n", "bad.py": "def (:\n"})
    assert lambda_package.add_bytecode(pkg, lambda_package.RUNTIME_OF_THIS_PYTHON) == 1   # bad.py is skipped
    assert lambda_package.add_bytecode(pkg, lambda_package.RUNTIME_OF_THIS_PYTHON) == 0   # idempotent
    with zipfile.ZipFile(pkg) as z:
        z.extractall(tmp_path / "task")
        (pyc,) = [i for i in z.infolist() if i.filename.endswith(".pyc")]
        assert (pyc.external_attr >> 16) & 0o444 == 0o444
    # The source changes after the build: an unchecked-hash .pyc is still what imports (no compile at start).
    (tmp_path / "task" / "mod.py").write_text("ANSWER = 'source'\n")
    run = subprocess.run([sys.executable, "-I", "-S", "-B", "-c", "import sys; sys.path.insert(0, sys.argv[1]); "
                          "import mod; print(mod.ANSWER)", str(tmp_path / "task")], capture_output=True, text=True)
    assert run.stdout.strip() == "compiled", run.stderr
    with pytest.raises(SystemExit, match="built with"):
        lambda_package.add_bytecode(pkg, "python3.9")


def test_the_bytecode_goes_beside_the_sources_whatever_the_builders_pycache_prefix(tmp_path):
    """A build run with PYTHONPYCACHEPREFIX set once put every .pyc at /tmp/… paths inside the package (39 MB
    that Lambda never reads, and a cold start compiling everything)."""
    pkg = _package(tmp_path / "p.zip", set(), {"lib/mod.py": "ANSWER = 1\n"})
    was = sys.pycache_prefix
    sys.pycache_prefix = str(tmp_path / "elsewhere")
    try:
        lambda_package.add_bytecode(pkg, lambda_package.RUNTIME_OF_THIS_PYTHON)
    finally:
        sys.pycache_prefix = was
    with zipfile.ZipFile(pkg) as z:
        assert [n for n in z.namelist() if n.endswith(".pyc")] == [f"lib/__pycache__/mod.{sys.implementation.cache_tag}.pyc"]


def test_pruning_leaves_out_what_never_runs_and_keeps_the_rest(tmp_path):
    kept = {"app.py": "", "chalicelib/tests_helpers.py": "", "chalicelib/x/tests/keep.py": "", "numpy/__init__.py": "",
            "numpy/testing/__init__.py": "", "PIL/AvifImagePlugin.py": "", "stripe/test_helpers/_x.py": "",
            "stripe/params/__init__.py": ""}
    dropped = {"numpy/_core/tests/test_a.py": "x" * 100, "numpy/_core/_simd.cpython-311-x86_64-linux-gnu.so": "",
               "stripe/_customer.pyi": "", "Cryptodome/SelfTest/__init__.py": "", "numpy/f2py/__init__.py": "",
               "PIL/_avif.cpython-311-x86_64-linux-gnu.so": "", "pillow.libs/libavif-4aef22a8.so.16.3.0": "",
               "stripe/params/_customer_create_params.py": "", "stripe/params/checkout/__init__.py": ""}
    pkg = _package(tmp_path / "p.zip", {"numpy"}, {**kept, **dropped})
    assert lambda_package.prune(pkg) == 100
    with zipfile.ZipFile(pkg) as z:
        names = set(z.namelist())
        assert (z.getinfo("app.py").external_attr >> 16) & 0o444 == 0o444    # entries copied as they were
    assert names == set(kept) | {"numpy-1.0.dist-info/METADATA"}
