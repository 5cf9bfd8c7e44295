"""Issue 43 item 5: the API handler's import loads only what every request needs. A fresh interpreter imports
`app`; the heavy libraries that only some requests need (the exact three-seat solver's numpy and HiGHS, the payment
SDKs, the spreadsheet reader, the templates, the posters, QR codes, ratings, SMS, the AWS SDK) are not in
sys.modules, and no third-party package is beyond the short list the routes and models need at import. A library
that fails this belongs in an import inside the one function that needs it (with a one-line why), as
engine/formats/seating.py does for highspy. The figure itself is bench/import_app.py's."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NEVER_AT_IMPORT = ("numpy", "highspy", "stripe", "wechatpayv3", "alipay", "openpyxl", "jinja2", "PIL", "segno",
                   "openskill", "rustworkx", "pypinyin", "tencentcloud", "argon2", "boto3", "botocore",
                   "pydantic_settings")
# What the routes and the models need at import: the framework, pydantic and its own dependencies.
ALLOWED_THIRD_PARTY = {"chalice", "chalicelib", "app", "pydantic", "pydantic_core", "annotated_types",
                       "typing_extensions", "typing_inspection"}
LOADED = ("import json, sys; import app; "
          "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules} - set(sys.stdlib_module_names))))")


def test_import_app_loads_no_heavy_library_and_nothing_beyond_the_framework_and_pydantic():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("STRIPE_", "PUBLISH_"))}
    proc = subprocess.run([sys.executable, "-c", LOADED], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr[-3000:]
    top_level = set(json.loads(proc.stdout.strip().splitlines()[-1]))
    assert not top_level & set(NEVER_AT_IMPORT), sorted(top_level & set(NEVER_AT_IMPORT))
    # the interpreter's own start-up modules (site's hooks, sysconfig data, __main__) are not the app's
    beyond = {m for m in top_level - ALLOWED_THIRD_PARTY if not m.startswith("_")}
    assert not beyond, f"import app now loads {sorted(beyond)}: import it where it is used"
