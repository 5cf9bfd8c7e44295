"""Issue 40: organisers' payment-account secrets are sealed with data keys from a KMS key of the stack, which the
API and the sweeper may use to seal and open (no more), and every AWS stage runs in platform mode."""
from __future__ import annotations

import json

import pytest

from tests.infra.cdk import synth


@pytest.fixture(scope="module", params=["dev", "prod"])
def tpl(request):
    return synth(request.param)


def test_a_kms_key_seals_the_accounts_and_the_api_may_only_seal_and_open(tpl):
    keys = {k: v for k, v in tpl["Resources"].items() if v["Type"] == "AWS::KMS::Key"}
    assert len(keys) == 1
    (key_name, key), = keys.items()
    assert key["Properties"]["EnableKeyRotation"] is True and key["DeletionPolicy"] == "Retain"
    api = next(v for v in tpl["Resources"].values() if v["Type"] == "AWS::Serverless::Function"
               and v["Properties"]["Handler"] == "app.app")
    env = api["Properties"]["Environment"]["Variables"]
    assert env["PAYMENT_ACCOUNTS"] == "platform"
    assert env["PAYMENT_ACCOUNTS_KEY_ID"] == {"Fn::GetAtt": [key_name, "Arn"]}
    granted = [st for v in tpl["Resources"].values() if v["Type"] == "AWS::IAM::Policy"
               for st in v["Properties"]["PolicyDocument"]["Statement"] if key_name in json.dumps(st.get("Resource"))]
    actions = {a for st in granted for a in ([st["Action"]] if isinstance(st["Action"], str) else st["Action"])}
    assert actions == {"kms:GenerateDataKey", "kms:Decrypt"} and len(granted) >= 2   # the API's and the sweeper's
