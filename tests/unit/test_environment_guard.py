"""tests/conftest.py puts os.environ back after every test: what one test sets (directly, or by importing a module
that sets defaults, as bench/common.py does) never reaches a later test or the subprocesses it starts."""
from __future__ import annotations

import importlib
import os
import subprocess
import sys

LEAKED = "CARDGAMES_TEST_LEAK_PROBE"
TIMEOUT_BEFORE = os.environ.get("DDB_READ_TIMEOUT_S")   # read when collected, before any test ran


def test_a_test_sets_variables_without_undoing_them():
    os.environ[LEAKED] = "1"
    import bench.common
    importlib.reload(bench.common)   # as its first import does: DDB_READ_TIMEOUT_S=30 unless set already
    assert os.environ["DDB_READ_TIMEOUT_S"] == (TIMEOUT_BEFORE or "30")


def test_the_next_test_and_its_subprocesses_do_not_see_them():
    assert LEAKED not in os.environ and os.environ.get("DDB_READ_TIMEOUT_S") == TIMEOUT_BEFORE
    seen = subprocess.run([sys.executable, "-c", f"import os; print(os.environ.get('{LEAKED}'), "
                           "os.environ.get('DDB_READ_TIMEOUT_S'))"], capture_output=True, text=True, check=True)
    assert seen.stdout.split() == ["None", str(TIMEOUT_BEFORE)]
