"""CDK app: one stack per stage (`-c stage=dev|prod`), everything the platform needs in AWS."""
from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
# `chalice package` builds ARNs with a boto3 session: give it a region for an offline synth.
os.environ.setdefault("AWS_DEFAULT_REGION", os.environ.get("CDK_DEFAULT_REGION", "ap-east-1"))

import aws_cdk as cdk  # noqa: E402

from stack import PlatformStack  # noqa: E402

app = cdk.App()
stage = app.node.try_get_context("stage") or "dev"
if stage not in ("dev", "prod"):
    raise SystemExit(f"stage must be dev or prod, not {stage!r}")
PlatformStack(app, f"cardgames-{stage}", stage=stage,
              env=cdk.Environment(account=os.environ.get("CDK_DEFAULT_ACCOUNT"), region=os.environ.get("CDK_DEFAULT_REGION")))
app.synth()
