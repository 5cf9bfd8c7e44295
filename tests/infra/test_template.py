"""The synthesized CloudFormation template: `cdk synth` (the CDK CLI from npm, offline; tests/infra/cdk.py), cfn-lint,
and the essentials asserted: the table equals store/schema.py, PITR on, no `*` actions, the buckets not public."""
from __future__ import annotations

import json

import pytest

from chalicelib.store import schema
from tests.infra.cdk import ROOT, synth


@pytest.fixture(scope="module", params=["dev", "prod"])
def template(request):
    return request.param, synth(request.param)


def resources(tpl, kind):
    return {k: v for k, v in tpl["Resources"].items() if v["Type"] == kind}


def test_table_matches_schema_with_pitr(template):
    stage, tpl = template
    (table,) = resources(tpl, "AWS::DynamoDB::Table").values()
    props = table["Properties"]
    assert props["KeySchema"] == schema.KEY_SCHEMA
    assert sorted(props["AttributeDefinitions"], key=lambda a: a["AttributeName"]) == \
        sorted(schema.ATTRIBUTES, key=lambda a: a["AttributeName"])
    got = [{"IndexName": g["IndexName"], "KeySchema": g["KeySchema"], "Projection": g["Projection"]}
           for g in props["GlobalSecondaryIndexes"]]
    assert got == schema.GLOBAL_SECONDARY_INDEXES
    assert props["BillingMode"] == "PAY_PER_REQUEST"
    assert props["PointInTimeRecoverySpecification"]["PointInTimeRecoveryEnabled"] is True
    assert props["TimeToLiveSpecification"] == {"AttributeName": schema.TTL_ATTRIBUTE, "Enabled": True}
    if stage == "prod":
        assert props["DeletionProtectionEnabled"] is True and table["DeletionPolicy"] == "Retain"
    else:
        assert table["DeletionPolicy"] == "Delete"


def _statements(tpl):
    for name, res in tpl["Resources"].items():
        props = res.get("Properties", {})
        docs = []
        if res["Type"] in ("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy"):
            docs.append(props["PolicyDocument"])
        if res["Type"] == "AWS::IAM::Role":
            docs += [p["PolicyDocument"] for p in props.get("Policies", [])]
        if res["Type"] in ("AWS::S3::BucketPolicy", "AWS::SQS::QueuePolicy"):
            docs.append(props["PolicyDocument"])
        for doc in docs:
            for st in doc["Statement"]:
                yield name, res["Type"], st


def test_no_wildcard_actions(template):
    """Nothing is allowed `*` or `service:*` (a Deny of s3:* without TLS is a guardrail, not a grant)."""
    _, tpl = template
    seen = 0
    for name, _kind, st in _statements(tpl):
        if st["Effect"] != "Allow":
            continue
        actions = st.get("Action", [])
        actions = [actions] if isinstance(actions, str) else actions
        seen += 1
        text = name + json.dumps(st)
        if "BucketDeployment" in text or "AutoDeleteObjects" in text:
            continue  # CDK's own helpers (copying the front end; emptying dev buckets), not the platform's code
        assert all("*" not in a for a in actions), (name, actions)
    assert seen > 5


def test_functions_are_granted_the_table_bucket_secret_and_queue(template):
    _, tpl = template
    text = json.dumps(resources(tpl, "AWS::IAM::Policy"))
    # Transactions are authorised per item (PutItem, UpdateItem, ConditionCheckItem): there is no TransactWriteItems action.
    for action in ("dynamodb:ConditionCheckItem", "dynamodb:UpdateItem", "dynamodb:Query", "s3:PutObject", "secretsmanager:GetSecretValue",
                   "sqs:SendMessage", "sqs:ReceiveMessage"):
        assert action in text, action
    # the publisher fans a change of every scope out, a message per scope, back on its queue (api/jobs.py)
    publisher = json.dumps([p for p in resources(tpl, "AWS::IAM::Policy").values()
                            if "PublishFromQueueRole" in json.dumps(p["Properties"]["Roles"])])
    assert "sqs:SendMessage" in publisher and "sqs:ReceiveMessage" in publisher


def test_buckets_are_private(template):
    _, tpl = template
    buckets = resources(tpl, "AWS::S3::Bucket")
    assert len(buckets) >= 2
    for b in buckets.values():
        block = b["Properties"]["PublicAccessBlockConfiguration"]
        assert all(block[k] for k in ("BlockPublicAcls", "BlockPublicPolicy", "IgnorePublicAcls", "RestrictPublicBuckets"))
    for name, kind, st in _statements(tpl):
        if kind == "AWS::S3::BucketPolicy" and st["Effect"] == "Allow":
            assert st["Principal"] != "*" and st["Principal"].get("AWS") != "*", (name, st)


def test_cdn_origin_access_control_and_caching(template):
    _, tpl = template
    assert resources(tpl, "AWS::CloudFront::OriginAccessControl")
    (dist,) = resources(tpl, "AWS::CloudFront::Distribution").values()
    behaviours = {b["PathPattern"]: b for b in dist["Properties"]["DistributionConfig"]["CacheBehaviors"]}
    assert {"*/feed.json", "t/*", "en/t/*", "vi/t/*"} <= set(behaviours)
    policies = resources(tpl, "AWS::CloudFront::CachePolicy")
    ttl = {k: v["Properties"]["CachePolicyConfig"]["DefaultTTL"] for k, v in policies.items()}
    feed_policy = behaviours["*/feed.json"]["CachePolicyId"]["Ref"]
    assert ttl[feed_policy] <= 5
    # the tables' live JSON (issue 43): from the results bucket, held at the edge for seconds at most
    live = behaviours["live/*"]
    assert live["TargetOriginId"] == behaviours["t/*"]["TargetOriginId"]
    live_policy = policies[live["CachePolicyId"]["Ref"]]["Properties"]["CachePolicyConfig"]
    assert live_policy["MaxTTL"] <= 5 and live_policy["MinTTL"] == 0
    # CloudFront compresses only where the cache policy takes Accept-Encoding: the published pages, feeds, live
    # JSON and find's index shards are served gzip-compressed (bench/cost.py counts their bytes so)
    for pattern in ("*/feed.json", "live/*", "t/*", "en/t/*", "vi/t/*"):
        keys = policies[behaviours[pattern]["CachePolicyId"]["Ref"]]["Properties"]["CachePolicyConfig"][
            "ParametersInCacheKeyAndForwardedToOrigin"]
        assert keys["EnableAcceptEncodingGzip"] and behaviours[pattern]["Compress"], pattern


def test_every_page_of_the_cdn_carries_the_security_headers(template):
    _, tpl = template
    (policy_id, policy), = resources(tpl, "AWS::CloudFront::ResponseHeadersPolicy").items()
    sec = policy["Properties"]["ResponseHeadersPolicyConfig"]["SecurityHeadersConfig"]
    csp = json.dumps(sec["ContentSecurityPolicy"]["ContentSecurityPolicy"])
    from chalicelib.security_headers import built_pages, inline_script_hashes
    hashes = inline_script_hashes(built_pages(ROOT / "frontend" / "dist"))
    assert hashes, "the table page starts its reads from an inline script"
    # scripts: the site's own files, and exactly the build's inline scripts by their hashes
    assert "frame-ancestors 'none'" in csp and f"script-src {' '.join([repr('self').replace(chr(34), ''), *hashes])};" in csp
    assert "unsafe-inline" not in csp.split("style-src")[0]
    assert "worker-src 'self';" in csp          # the offline pages' service workers (sw-score.js, sw-organiser.js)
    assert sec["ContentTypeOptions"]["Override"] and sec["FrameOptions"]["FrameOption"] == "DENY"
    assert sec["ReferrerPolicy"]["ReferrerPolicy"] == "strict-origin-when-cross-origin"
    (dist,) = resources(tpl, "AWS::CloudFront::Distribution").values()
    config = dist["Properties"]["DistributionConfig"]
    for behaviour in [config["DefaultCacheBehavior"], *config["CacheBehaviors"]]:
        assert behaviour["ResponseHeadersPolicyId"] == {"Ref": policy_id}


def test_publisher_queue_has_a_dead_letter_queue_and_alarms(template):
    _, tpl = template
    queues = resources(tpl, "AWS::SQS::Queue")
    assert any("RedrivePolicy" in q["Properties"] for q in queues.values())
    alarms = {v["Properties"]["MetricName"] for v in resources(tpl, "AWS::CloudWatch::Alarm").values()
              if "MetricName" in v["Properties"]}
    assert {"5XXError", "Throttles", "ApproximateNumberOfMessagesVisible"} <= alarms
    functions = resources(tpl, "AWS::Serverless::Function") or resources(tpl, "AWS::Lambda::Function")
    assert any("Schedule" in json.dumps(f) for f in functions.values())  # the hold sweeper
    assert any("SQS" in json.dumps(f) for f in functions.values())       # the publisher


def test_api_throttles_with_the_rate_limited_code(template):
    stage, tpl = template
    (api,) = [v for v in tpl["Resources"].values() if v["Type"] == "AWS::Serverless::Api"]
    settings = api["Properties"]["MethodSettings"][0]
    assert settings["ThrottlingRateLimit"] > 0 and settings["ThrottlingBurstLimit"] > 0
    if stage == "prod":   # sized from bench/cost.py's model: a 100,000-entry day's round start fits (issue 43)
        from bench.cost import OPEN_WINDOW_S, PHONES_PER_TABLE, RESULTS_WINDOW_S
        tables = 100_000 // 2
        peak = PHONES_PER_TABLE * tables / OPEN_WINDOW_S + 2 * tables / RESULTS_WINDOW_S
        assert peak <= settings["ThrottlingRateLimit"] <= 1.5 * peak
        assert settings["ThrottlingBurstLimit"] >= 2 * settings["ThrottlingRateLimit"]
    throttled = api["Properties"]["GatewayResponses"]["THROTTLED"]
    assert throttled["StatusCode"] == 429
    assert json.loads(throttled["ResponseTemplates"]["application/json"])["code"] == "rate_limited"


def test_gateway_answers_carry_the_error_body(template):
    _, tpl = template
    (api,) = [v for v in tpl["Resources"].values() if v["Type"] == "AWS::Serverless::Api"]
    responses = api["Properties"]["GatewayResponses"]
    missing = responses["MISSING_AUTHENTICATION_TOKEN"]
    assert missing["StatusCode"] == 404
    assert json.loads(missing["ResponseTemplates"]["application/json"])["code"] == "not_found"
    for kind in ("UNSUPPORTED_MEDIA_TYPE", "DEFAULT_4XX", "DEFAULT_5XX", "THROTTLED"):
        body = json.loads(responses[kind]["ResponseTemplates"]["application/json"])
        assert set(body) == {"code", "message"}, kind


def test_the_cdn_serves_the_built_front_end(template):
    """The deployed files are Vite's output (frontend/dist), not the sources: the asset holds the built pages."""
    stage, tpl = template
    out = ROOT / "infra" / f"cdk.out.{stage}"
    (deploy,) = resources(tpl, "Custom::CDKBucketDeployment").values()
    assert deploy["Properties"]["SourceObjectKeys"], deploy
    keys = json.dumps(deploy["Properties"]["SourceObjectKeys"])
    staged = [d for d in out.glob("asset.*") if d.is_dir() and d.name.removeprefix("asset.") in keys]   # this synth's
    built = [d for d in staged if any((d / "assets").glob("score-*.js"))]
    assert built, "no staged asset holds the built scripts"
    assert not list(built[0].rglob("*.gz")) and not list(built[0].glob("*.html"))   # CloudFront compresses; pages below
    pages = [d / "score.html" for d in staged if (d / "score.html").is_file()]
    assert pages, "no staged score.html"
    page = pages[0].read_text()
    assert 'type="module"' in page and "/src/" not in page       # bundled by Vite, not the source page
    # the API's address goes into the page at deploy time: a marker the deployment replaces, the rest as built
    assert '<meta name="api" content="<<marker:' in page
    assert page.replace(page[page.index("<<marker:"):page.index(">>", page.index("<<marker:")) + 2], "") == \
        (ROOT / "frontend" / "dist" / "score.html").read_text()
    assert deploy["Properties"]["SourceMarkers"], deploy


def test_the_cdk_toolchain_runs_on_a_node_it_supports(template):
    """The CLI and jsii warn on an end-of-life Node (the machine's Node 20): they run on package.json's."""
    from tests.infra.cdk import synth_log
    stage, _ = template
    log = synth_log(stage)
    assert "Creating deployment package" in log   # the log is this synth's
    assert "end-of-life" not in log and "not supported" not in log, log[:2000]


def test_the_publisher_is_sized_for_a_ten_thousand_entry_event(template):
    """bench/publish.py at 10,000 entries: a cold full publish to S3 peaks at 1,076 MiB in the publisher (with
    forked languages beside it) and takes 78 s of CPU; at 1,024 MB (0.58 vCPU) it was killed or timed out."""
    _, tpl = template
    functions = resources(tpl, "AWS::Serverless::Function") or resources(tpl, "AWS::Lambda::Function")
    publisher_id, publisher = next((k, f["Properties"]) for k, f in functions.items()
                                   if f["Properties"]["Handler"] == "app.publish_from_queue")
    assert publisher["MemorySize"] >= 3008 and publisher["Timeout"] >= 300
    queue_id, queue = next((k, q["Properties"]) for k, q in resources(tpl, "AWS::SQS::Queue").items()
                           if "RedrivePolicy" in q["Properties"])
    # the trigger names the queue by ARN: the function waits for the queue and for its role's grants to it
    policies = resources(tpl, "AWS::IAM::Policy")
    depends = tpl["Resources"][publisher_id].get("DependsOn", [])
    assert queue_id in depends and any("PublishFromQueueRole" in json.dumps(policies[d]["Properties"]["Roles"])
                                       for d in depends if d in policies), depends
    # never handed to a second consumer mid-publish, and a failed publish tried again within minutes
    assert publisher["Timeout"] < queue["VisibilityTimeout"] <= publisher["Timeout"] + 120
    # glibc's arenas two, not eight a core: the publisher's threads left freed memory in arenas of their own
    assert publisher["Environment"]["Variables"].get("MALLOC_ARENA_MAX") == "2"


def test_each_function_has_its_own_concurrency_and_timeout(template):
    """docs/scaling.md: the API reserved 20 (dev) or 200 (prod), the sweeper 1. The publisher reserves none: its
    queue's trigger runs at most so many at once (ScalingConfig.MaximumConcurrency), in prod sized from
    bench/cost.py's model — a national day's asks while results come in, times one result's publish, twice."""
    stage, tpl = template
    functions = resources(tpl, "AWS::Serverless::Function") or resources(tpl, "AWS::Lambda::Function")
    by_handler = {f["Properties"]["Handler"]: f["Properties"] for f in functions.values()}
    api, publisher, sweeper = by_handler["app.app"], by_handler["app.publish_from_queue"], by_handler["app.sweep_holds"]
    assert api["ReservedConcurrentExecutions"] == (200 if stage == "prod" else 20) and api["Timeout"] == 30
    assert "ReservedConcurrentExecutions" not in publisher and sweeper["ReservedConcurrentExecutions"] == 1
    assert sweeper["Timeout"] == 120
    (source,) = [e["Properties"] for e in publisher["Events"].values() if e["Type"] == "SQS"]
    assert "publish" in json.dumps(source["Queue"]) and set(source) <= {
        "Queue", "BatchSize", "MaximumBatchingWindowInSeconds", "ScalingConfig"}   # no second, broken event
    most = source["ScalingConfig"]["MaximumConcurrency"]
    assert 2 <= most <= 1000   # SQS's own bounds
    if stage == "prod":
        from bench.cost import RESULTS_WINDOW_S
        per_result_s = 0.3   # infra/stack.py PUBLISH_RESULT_S: one result's publish in AWS (docs/scaling.md)
        busy = 2 * (100_000 // 2) / RESULTS_WINDOW_S * per_result_s   # Little's law: asks/s × seconds each
        assert 1.5 * busy <= most <= 3 * busy and most < api["ReservedConcurrentExecutions"]


def test_no_aws_stage_offers_the_demo_provider(template):
    """The demo cashier (演示支付) moves no money: every function's environment names its AWS stage, and the payment
    registry built from that environment has no demo adapter (payments/setup.demo_provider)."""
    from chalicelib.config import Settings
    from chalicelib.payments.setup import payment_providers
    stage, tpl = template
    envs = [f["Properties"].get("Environment", {}).get("Variables", {})
            for kind in ("AWS::Serverless::Function", "AWS::Lambda::Function") for f in resources(tpl, kind).values()]
    app = [e for e in envs if "TABLE_NAME" in e]
    assert app, "no function of the app found"
    for variables in app:
        assert variables["STAGE"] == stage and stage != "local"
        plain = {k: v for k, v in variables.items() if isinstance(v, str)}
        registry = payment_providers(Settings.from_environ(plain))
        assert "demo" not in registry and {"offline", "cash", "transfer"} <= set(registry)

def test_the_messages_worker_runs_every_minute_alone_with_what_it_sends_through(template):
    """docs/messages.md: the outbox's worker, a scheduled function of its own (one at a time), its role granted the
    table, the providers' configuration secret, SNS and SES; the API too sends sign-in codes itself."""
    _, tpl = template
    functions = resources(tpl, "AWS::Serverless::Function") or resources(tpl, "AWS::Lambda::Function")
    by_handler = {f["Properties"]["Handler"]: (k, f["Properties"]) for k, f in functions.items()}
    name, worker = by_handler["app.deliver_messages"]
    assert worker["ReservedConcurrentExecutions"] == 1 and worker["Timeout"] == 300
    assert "rate(1 minute)" in json.dumps(tpl["Resources"]).lower()
    assert "MESSAGES_CONFIG_ARN" in worker["Environment"]["Variables"]
    assert "MESSAGES_CONFIG_ARN" in by_handler["app.app"][1]["Environment"]["Variables"]
    # the messages it fans out (a draw's) are keyed by a keyed hash of each address: the installation's secret
    assert "TABLE_CODE_SECRET_ARN" in worker["Environment"]["Variables"]
    policies = resources(tpl, "AWS::IAM::Policy")
    for role in ("DeliverMessagesRole", "ApiHandlerRole"):
        granted = json.dumps([p for p in policies.values() if role in json.dumps(p["Properties"]["Roles"])])
        for action in ("sns:Publish", "ses:SendEmail", "secretsmanager:GetSecretValue", "dynamodb:UpdateItem"):
            assert action in granted, (role, action)


def test_an_urgent_job_nudges_the_messages_worker_through_its_own_queue(template):
    """docs/messages.md: the API sends a nudge to the messages queue when it queues an urgent job (an organiser's
    reset); the queue's consumer runs the worker's pass, granted what the scheduled worker is, and consumes only
    that queue (CDK grants); the API may send to it, nothing else."""
    _, tpl = template
    functions = resources(tpl, "AWS::Serverless::Function") or resources(tpl, "AWS::Lambda::Function")
    by_handler = {f["Properties"]["Handler"]: (k, f["Properties"]) for k, f in functions.items()}
    nudged_id, nudged = by_handler["app.deliver_nudged"]
    _, api = by_handler["app.app"]
    queues = resources(tpl, "AWS::SQS::Queue")
    (queue_id,) = [k for k, q in queues.items() if str(q["Properties"].get("QueueName", "")).endswith("-messages")]
    queue = queues[queue_id]["Properties"]
    assert nudged["Timeout"] < queue["VisibilityTimeout"] and queue["MessageRetentionPeriod"] <= 600
    assert api["Environment"]["Variables"]["MESSAGES_QUEUE_URL"] == {"Ref": queue_id}
    assert "MESSAGES_QUEUE_URL" not in json.dumps(by_handler["app.deliver_messages"][1])
    assert {"MESSAGES_CONFIG_ARN", "TABLE_CODE_SECRET_ARN"} <= set(nudged["Environment"]["Variables"])
    assert 1 <= nudged["ReservedConcurrentExecutions"] <= 5
    (source,) = [e["Properties"] for e in nudged["Events"].values() if e["Type"] == "SQS"]
    policies = resources(tpl, "AWS::IAM::Policy")
    assert queue["QueueName"] in json.dumps(source["Queue"])
    # the trigger names the queue by ARN: the function waits for the queue and for its role's grants to it
    depends = tpl["Resources"][nudged_id].get("DependsOn", [])
    assert queue_id in depends and any(policies[d]["Properties"]["Roles"] for d in depends if d in policies)

    def granted(role):
        return json.dumps([p for p in policies.values() if role in json.dumps(p["Properties"]["Roles"])])
    for action in ("sns:Publish", "ses:SendEmail", "secretsmanager:GetSecretValue", "dynamodb:UpdateItem",
                   "sqs:ReceiveMessage", "sqs:DeleteMessage"):
        assert action in granted("DeliverNudgedRole"), action
    sends = [p for p in policies.values() if "sqs:SendMessage" in json.dumps(p) and queue_id in json.dumps(p)]
    assert sends and all("ApiHandlerRole" in json.dumps(p["Properties"]["Roles"]) for p in sends)
