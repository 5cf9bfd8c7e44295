"""The stack for the mainland's regions (`make synth STAGE=prod REGION=cn-north-1`): synthesized and linted by cfn-lint
against that region's own resource types (tests/infra/cdk.py), and checked here against what cfn-lint knows of
cn-north-1 / cn-northwest-1 — partition aws-cn through `AWS::Partition`, never an `arn:aws:` literal; CloudFront on the
chamber's ICP-filed domain with its IAM certificate; the API reached through that domain."""
from __future__ import annotations

import json
import re

import pytest

from tests.infra.cdk import synth

REGIONS = ("cn-north-1", "cn-northwest-1")


@pytest.fixture(scope="module")
def china():
    return synth("prod", REGIONS[0])


def resources(tpl, kind):
    return {k: v for k, v in tpl["Resources"].items() if v["Type"] == kind}


def _walk(node):
    yield node
    if isinstance(node, dict):
        for v in node.values():
            yield from _walk(v)
    elif isinstance(node, list):
        for v in node:
            yield from _walk(v)


def test_no_arn_is_written_for_the_global_partition(china):
    text = json.dumps(china)
    assert "arn:aws:" not in text
    arns = [s for s in _walk(china) if isinstance(s, str) and s.startswith("arn:") and s != "arn:"]   # "arn:" opens a Join
    # Fn::Sub forms only (Chalice's log policy writes a partition wildcard, which matches aws-cn too)
    assert arns and all(a.startswith(("arn:${AWS::Partition}:", "arn:*:")) for a in arns), arns[:5]
    # and the joined ones name the partition by reference
    joins = [n["Fn::Join"][1] for n in _walk(china) if isinstance(n, dict) and "Fn::Join" in n]
    for parts in joins:
        if parts and parts[0] == "arn:":
            assert parts[1] == {"Ref": "AWS::Partition"}, parts
    # Endpoints by AWS::URLSuffix (amazonaws.com.cn there); service principals (lambda.amazonaws.com) are the same names
    assert not re.search(r"https?://[\w.-]*amazonaws\.com(?!\.cn)", text)
    assert "AWS::URLSuffix" in text


@pytest.mark.parametrize("region", REGIONS)
def test_every_resource_type_is_one_the_region_has(china, region):
    from cfnlint.schema import PROVIDER_SCHEMA_MANAGER
    available = set(PROVIDER_SCHEMA_MANAGER.get_resource_types(region=region))
    assert "AWS::CloudFront::OriginAccessControl" not in available   # the check can fail: this one is missing there
    used = {v["Type"] for v in china["Resources"].values()}
    # The SAM types are macros the transform turns into Lambda, API Gateway and IAM types, which the region has.
    sam = {t for t in used if t.startswith("AWS::Serverless::")}
    assert sam <= {"AWS::Serverless::Function", "AWS::Serverless::Api"}
    assert {"AWS::Lambda::Function", "AWS::ApiGateway::RestApi", "AWS::Lambda::EventSourceMapping",
            "AWS::Events::Rule"} <= available
    custom = {t for t in used if t.startswith("Custom::")}
    assert used - sam - custom <= available, sorted(used - sam - custom - available)


def test_cloudfront_serves_the_icp_filed_domain_with_its_iam_certificate(china):
    params = china["Parameters"]
    assert {"SiteDomain", "IamCertificateId"} <= set(params)
    assert re.fullmatch(params["SiteDomain"]["AllowedPattern"], "match.example.com.cn")
    assert not re.fullmatch(params["SiteDomain"]["AllowedPattern"], "d111111abcdef8.cloudfront.cn/x")
    (dist,) = resources(china, "AWS::CloudFront::Distribution").values()
    config = dist["Properties"]["DistributionConfig"]
    assert config["Aliases"] == [{"Ref": "SiteDomain"}]
    cert = config["ViewerCertificate"]
    assert cert["IamCertificateId"] == {"Ref": "IamCertificateId"} and cert["SslSupportMethod"] == "sni-only"
    assert "AcmCertificateArn" not in cert and not resources(china, "AWS::CertificateManager::Certificate")
    # S3 origins through an origin access identity (what CloudFront has there)
    assert resources(china, "AWS::CloudFront::CloudFrontOriginAccessIdentity")
    assert all("S3OriginConfig" in o for o in config["Origins"] if "s3" in json.dumps(o["DomainName"]))


def test_the_api_and_the_payment_notifications_come_through_that_domain(china):
    (dist,) = resources(china, "AWS::CloudFront::Distribution").values()
    config = dist["Properties"]["DistributionConfig"]
    api = next(b for b in config["CacheBehaviors"] if b["PathPattern"] == "api/*")
    assert set(api["AllowedMethods"]) >= {"POST", "PUT", "PATCH", "DELETE", "OPTIONS"}
    origin = next(o for o in config["Origins"] if o["Id"] == api["TargetOriginId"])
    host = json.dumps(origin["DomainName"])
    assert "execute-api" in host and "AWS::URLSuffix" in host and "RestAPI" in host
    assert origin["CustomOriginConfig"]["OriginProtocolPolicy"] == "https-only"
    functions = resources(china, "AWS::Serverless::Function")
    env = next(f for k, f in functions.items() if k == "APIHandler")["Properties"]["Environment"]["Variables"]
    assert json.dumps(env["SITE_URL"]) == json.dumps({"Fn::Join": ["", ["https://", {"Ref": "SiteDomain"}]]})
    assert "/api" in json.dumps(env["API_URL"]) and "SiteDomain" in json.dumps(env["API_URL"])
    assert {"WECHAT_PAY_SECRET_ARN", "ALIPAY_SECRET_ARN", "STRIPE_SECRET_ARN"} <= set(env)
    (deploy,) = resources(china, "Custom::CDKBucketDeployment").values()
    assert "SiteDomain" in json.dumps(deploy["Properties"])   # config.js: the API at https://<domain>/api
