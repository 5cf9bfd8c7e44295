"""CDK app: one stack per stage (`-c stage=dev|prod`), everything the platform needs in AWS."""
from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import aws_cdk as cdk  # noqa: E402

app = cdk.App()
stage = app.node.try_get_context("stage") or "dev"
if stage not in ("dev", "prod"):
    raise SystemExit(f"stage must be dev or prod, not {stage!r}")
# `-c region=cn-north-1` (make synth REGION=…): the stack for that region, its partition decided from it (aws-cn for
# the mainland's cn-north-1 / cn-northwest-1). `chalice package` builds ARNs with a boto3 session: it gets the same
# region, so its partition is the stack's.
region = app.node.try_get_context("region") or os.environ.get("CDK_DEFAULT_REGION")
os.environ["AWS_DEFAULT_REGION"] = region or os.environ.get("AWS_DEFAULT_REGION") or "ap-east-1"

from stack import PlatformStack  # noqa: E402

PlatformStack(app, f"cardgames-{stage}", stage=stage,
              env=cdk.Environment(account=os.environ.get("CDK_DEFAULT_ACCOUNT"), region=region))
app.synth()
