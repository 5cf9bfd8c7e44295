"""The platform's stack: API and jobs (Chalice on Lambda), the single DynamoDB table, the published site and
the front end on private S3 buckets behind CloudFront, Stripe keys in Secrets Manager, the publishing queue
with its dead-letter queue, and alarms. Least privilege through CDK grants."""
from __future__ import annotations

import json
import os
from pathlib import Path

import aws_cdk as cdk
from aws_cdk import (
    aws_cloudfront as cloudfront,
    aws_cloudfront_origins as origins,
    aws_cloudwatch as cloudwatch,
    aws_dynamodb as dynamodb,
    aws_iam as iam,
    aws_kms as kms,
    aws_s3 as s3,
    aws_s3_deployment as s3deploy,
    aws_secretsmanager as secretsmanager,
    aws_sqs as sqs,
)
from chalice.cdk import Chalice
from constructs import Construct

import lambda_package
from chalicelib.security_headers import API_META, built_pages, inline_script_hashes, site_csp
from chalicelib.store import schema

ROOT = Path(__file__).resolve().parent.parent
PROD_API_RATE, PROD_API_BURST = 1200, 2400   # requests/s; from bench/cost.py's model (see the throttle below)
SITE = ROOT / "frontend" / "dist"    # the built front end: `make site` (make synth and make deploy run it first)

# The publisher function, sized for a 10,000-entry event (issue 29; bench/publish.py, docs/scaling.md): a cold full
# publish to S3 peaks at ~1.1 GB in the publisher and up to ~0.8 GB in each forked language (shared until written),
# and takes ~79 s of CPU (30,700 PUTs through botocore, ~2.5 ms each with the rendering). 3,008 MB (~1.7 vCPU;
# some newer accounts cannot set more until AWS raises their limit) holds it and ends it in about a minute; the
# timeout leaves room for a slower day. The API's 1,024 MB stays: its requests are small.
PUBLISHER_MEMORY_MB = 3008
PUBLISHER_TIMEOUT_S = 300
# The nudged pass of the messages' worker (an urgent job within seconds: chalicelib/messages/nudge.py): the scheduled
# pass's time (50 messages of at most 5 s each, a big draw's fan-out), so a nudged pass is never cut off where the
# scheduled one would finish; two at once are safe (each message is claimed before it is tried).
NUDGED_TIMEOUT_S = 300
NUDGED_CONCURRENCY = 2
# How many publisher containers the queue's trigger runs at once (its event source mapping's MaximumConcurrency; no
# reserved concurrency: none is taken from the account's pool while nothing publishes). Sized from bench/cost.py's
# model of a national day (100,000 entries, 50,000 tables): a result and its confirmation per table come in over a
# round's last RESULTS_WINDOW_S (20 min), each an ask, 2 × 50,000 / 1,200 s = 83 asks a second across the day's
# events; one result's publish takes ~0.1-0.2 s (docs/scaling.md, "The publish after one result", at 20,000
# entries) — PUBLISH_RESULT_S = 0.3 s with S3's latency for its few files — so 83 × 0.3 = 25 containers busy at once
# on average (Little's law), twice that for the closes and draws that land among the results: 50. Each scope (an
# event, a tournament's wide pages) has one publisher at a time (its lease), so the cap only matters when that many
# scopes publish side by side. A dev stage is no national day: 5.
PUBLISH_RESULT_S = 0.3
PROD_PUBLISHERS, DEV_PUBLISHERS = 50, 5


class CheckedChalice(Chalice):
    """Chalice's construct, its package finished before CDK stages it as the functions' code: checked to
    hold every dependency (else the synth stops), pruned of what never runs and given bytecode
    (infra/lambda_package.py)."""

    def _package_app(self) -> None:
        super()._package_app()
        out = Path(self._sam_package_dir)
        sam = json.loads((out / "sam.json").read_text())
        (runtime,) = {r["Properties"]["Runtime"] for r in sam["Resources"].values() if r["Type"] == "AWS::Serverless::Function"}
        lambda_package.check(out / "deployment.zip", ROOT / "requirements.txt")
        lambda_package.check_font(out / "deployment.zip")
        lambda_package.prune(out / "deployment.zip")
        lambda_package.add_bytecode(out / "deployment.zip", runtime)


def _attr_type(name: str) -> dynamodb.AttributeType:
    kind = next(a["AttributeType"] for a in schema.ATTRIBUTES if a["AttributeName"] == name)
    return {"S": dynamodb.AttributeType.STRING, "N": dynamodb.AttributeType.NUMBER}[kind]


def _key(key_schema: list[dict], kind: str) -> dynamodb.Attribute:
    name = next(k["AttributeName"] for k in key_schema if k["KeyType"] == kind)
    return dynamodb.Attribute(name=name, type=_attr_type(name))


class PlatformStack(cdk.Stack):
    def __init__(self, scope: Construct, construct_id: str, *, stage: str, **kwargs) -> None:
        super().__init__(scope, construct_id, **kwargs)
        prod = stage == "prod"
        removal = cdk.RemovalPolicy.RETAIN if prod else cdk.RemovalPolicy.DESTROY
        # The mainland's regions (partition aws-cn): CloudFront there serves only an ICP-filed domain (its own
        # *.cloudfront.cn names cannot serve content) with a certificate from the IAM store (no ACM for CloudFront
        # there), and the API is reached through that same domain (docs/deploy.md "Mainland China").
        self.china = not cdk.Token.is_unresolved(self.region) and self.region.startswith("cn-")
        if self.china:
            domain = cdk.CfnParameter(
                self, "SiteDomain", type="String", allowed_pattern=r"^([a-z0-9-]+\.)+[a-z]{2,}$",
                description="The chamber's ICP-filed domain (ICP 备案) for the site, the console and the API, "
                            "e.g. match.example.com.cn").value_as_string
            certificate_id = cdk.CfnParameter(
                self, "IamCertificateId", type="String", min_length=16, max_length=128,
                description="ID of that domain's TLS certificate in the IAM certificate store, uploaded under the "
                            "path /cloudfront/ (aws iam list-server-certificates)").value_as_string

        # ------------------------------------------------------------ data: the table of store/schema.py
        table = dynamodb.Table(
            self, "Table",
            partition_key=_key(schema.KEY_SCHEMA, "HASH"), sort_key=_key(schema.KEY_SCHEMA, "RANGE"),
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(point_in_time_recovery_enabled=True),
            deletion_protection=prod, removal_policy=removal, time_to_live_attribute=schema.TTL_ATTRIBUTE,
            encryption=dynamodb.TableEncryption.AWS_MANAGED)
        for gsi in schema.GLOBAL_SECONDARY_INDEXES:
            table.add_global_secondary_index(
                index_name=gsi["IndexName"], partition_key=_key(gsi["KeySchema"], "HASH"),
                sort_key=_key(gsi["KeySchema"], "RANGE"), projection_type=dynamodb.ProjectionType.ALL)

        # ------------------------------------------------------------ static sites: private buckets + CloudFront
        def private_bucket(name: str) -> s3.Bucket:
            return s3.Bucket(self, name, block_public_access=s3.BlockPublicAccess.BLOCK_ALL, enforce_ssl=True,
                             encryption=s3.BucketEncryption.S3_MANAGED, object_ownership=s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
                             removal_policy=removal, auto_delete_objects=not prod)

        results_bucket = private_bucket("ResultsBucket")
        frontend_bucket = private_bucket("FrontendBucket")
        feed_cache = cloudfront.CachePolicy(
            self, "FeedCache", default_ttl=cdk.Duration.seconds(5), min_ttl=cdk.Duration.seconds(0),
            max_ttl=cdk.Duration.seconds(10), enable_accept_encoding_gzip=True, enable_accept_encoding_brotli=True,
            comment="feed.json: polled by open pages")
        pages_cache = cloudfront.CachePolicy(
            self, "PagesCache", default_ttl=cdk.Duration.seconds(30), min_ttl=cdk.Duration.seconds(0),
            max_ttl=cdk.Duration.minutes(5), enable_accept_encoding_gzip=True, enable_accept_encoding_brotli=True,
            comment="published HTML and JSON: short, the publisher rewrites it")   # compressed (CloudFront
        # compresses only where the cache policy takes Accept-Encoding): find's shards, the pages, the feeds
        # The tables' live JSON (issue 43: chalicelib/publish/live.py), polled by the table phones instead of the API:
        # the object's own Cache-Control (max-age=2, stale-while-revalidate=30, stale-if-error=600) decides, held
        # to at most 5 s here so that a wrong header can never keep a phone on an old table for long.
        live_cache = cloudfront.CachePolicy(
            self, "LiveCache", default_ttl=cdk.Duration.seconds(2), min_ttl=cdk.Duration.seconds(0),
            max_ttl=cdk.Duration.seconds(5), enable_accept_encoding_gzip=True, enable_accept_encoding_brotli=True,
            comment="live/*: a table's JSON, polled by its phones")
        def s3_origin(bucket: s3.Bucket):
            # Origin access control where CloudFront has it; the mainland's CloudFront has only the older origin
            # access identity (cfn-lint: no AWS::CloudFront::OriginAccessControl in cn-north-1 / cn-northwest-1).
            if self.china:
                return origins.S3BucketOrigin.with_origin_access_identity(bucket)
            return origins.S3BucketOrigin.with_origin_access_control(bucket)

        results_origin = s3_origin(results_bucket)
        # The same security headers as the venue's site server (chalicelib/security_headers.py); the API is called
        # at its execute-api address, named by pattern (its URL depends on this distribution's: no cycle).
        api_pattern = f"https://*.execute-api.{cdk.Aws.REGION}.{cdk.Aws.URL_SUFFIX}"
        security = cloudfront.ResponseHeadersPolicy(
            self, "SecurityHeaders", comment="CSP without inline script (but the build's own, by hash), no framing, nosniff, referrer policy",
            security_headers_behavior=cloudfront.ResponseSecurityHeadersBehavior(
                content_security_policy=cloudfront.ResponseHeadersContentSecurityPolicy(
                    content_security_policy=site_csp(api_pattern, inline_script_hashes(built_pages(SITE))), override=True),
                content_type_options=cloudfront.ResponseHeadersContentTypeOptions(override=True),
                frame_options=cloudfront.ResponseHeadersFrameOptions(
                    frame_option=cloudfront.HeadersFrameOption.DENY, override=True),
                referrer_policy=cloudfront.ResponseHeadersReferrerPolicy(
                    referrer_policy=cloudfront.HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN, override=True),
                strict_transport_security=cloudfront.ResponseHeadersStrictTransportSecurity(
                    access_control_max_age=cdk.Duration.days(365), include_subdomains=True, override=True)))
        behaviour = dict(viewer_protocol_policy=cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS, compress=True,
                         response_headers_policy=security)
        distribution = cloudfront.Distribution(
            self, "Cdn", comment=f"cardgames {stage}: front end and published results",
            default_root_object="index.html",
            default_behavior=cloudfront.BehaviorOptions(
                origin=s3_origin(frontend_bucket),
                cache_policy=cloudfront.CachePolicy.CACHING_OPTIMIZED, **behaviour),
            additional_behaviors={
                "*/feed.json": cloudfront.BehaviorOptions(origin=results_origin, cache_policy=feed_cache, **behaviour),
                "live/*": cloudfront.BehaviorOptions(origin=results_origin, cache_policy=live_cache, **behaviour),
                "t/*": cloudfront.BehaviorOptions(origin=results_origin, cache_policy=pages_cache, **behaviour),
                "en/t/*": cloudfront.BehaviorOptions(origin=results_origin, cache_policy=pages_cache, **behaviour),
                "vi/t/*": cloudfront.BehaviorOptions(origin=results_origin, cache_policy=pages_cache, **behaviour),
            })
        if self.china:
            cfn_distribution = distribution.node.default_child
            cfn_distribution.add_property_override("DistributionConfig.Aliases", [domain])
            cfn_distribution.add_property_override("DistributionConfig.ViewerCertificate", {
                "IamCertificateId": certificate_id, "SslSupportMethod": "sni-only",
                "MinimumProtocolVersion": "TLSv1.2_2021"})
            site_url = f"https://{domain}"
        else:
            site_url = f"https://{distribution.distribution_domain_name}"

        # ------------------------------------------------------------ secrets, queue
        # Starts empty ("{}": online payment off, entries pay at the desk) until the keys are put in (docs/deploy.md).
        stripe = secretsmanager.Secret(
            self, "StripeKeys", description="Stripe keys: {\"secret_key\": \"sk_…\", \"webhook_secret\": \"whsec_…\"}",
            secret_string_value=cdk.SecretValue.unsafe_plain_text("{}"), removal_policy=removal)
        # WeChat Pay and Alipay merchant values (docs/payments.md), "{}" (the provider off) until they are put in.
        china_keys = {
            "WECHAT_PAY_SECRET_ARN": secretsmanager.Secret(
                self, "WeChatPayKeys", description="WeChat Pay API v3: {\"mchid\", \"appid\", \"private_key\", "
                "\"cert_serial_no\", \"apiv3_key\"} (docs/payments.md)",
                secret_string_value=cdk.SecretValue.unsafe_plain_text("{}"), removal_policy=removal),
            "ALIPAY_SECRET_ARN": secretsmanager.Secret(
                self, "AlipayKeys", description="Alipay: {\"appid\", \"app_private_key\", \"alipay_public_key\"} "
                "(docs/payments.md)", secret_string_value=cdk.SecretValue.unsafe_plain_text("{}"), removal_policy=removal),
        }
        # The message providers' keys and approved templates (docs/messages.md): "{}" (nothing sent) until put in.
        messages_config = secretsmanager.Secret(
            self, "MessagesConfig", description="MESSAGES_CONFIG: {\"sms\": {\"provider\": \"tencent\" | \"aliyun\", keys, "
            "\"sign_name\", \"templates\"}, \"sns\", \"email\"} (docs/messages.md)",
            secret_string_value=cdk.SecretValue.unsafe_plain_text("{}"), removal_policy=removal)
        codes = secretsmanager.Secret(self, "TableCodeSecret", description="derives printable table codes",
                                      generate_secret_string=secretsmanager.SecretStringGenerator(exclude_punctuation=True,
                                                                                                  password_length=40),
                                      removal_policy=removal)
        # Organisers' merchant accounts (issue 40): their secrets are sealed with data keys from this key, so the table
        # holds only wrapped keys (store/sealed.py). Rotated yearly by KMS; kept when the stack goes (sealed secrets
        # would not open again without it).
        accounts_key = kms.Key(self, "PaymentAccountsKey", description="seals organisers' payment-account secrets",
                               enable_key_rotation=True, removal_policy=cdk.RemovalPolicy.RETAIN)
        dlq = sqs.Queue(self, "PublishDLQ", retention_period=cdk.Duration.days(14), enforce_ssl=True)
        queue_name = f"cardgames-{stage}-publish"
        # A message stays hidden a minute longer than the publisher may run, so a slow publish is not handed to a
        # second consumer meanwhile. Not AWS's six times (for throttled retries): a message handled twice costs one
        # more publish of the latest state (the lease keeps them apart), while a failed publish's retry would wait
        # that long — the day's last standings 30 minutes stale.
        queue = sqs.Queue(self, "PublishQueue", queue_name=queue_name,
                          visibility_timeout=cdk.Duration.seconds(PUBLISHER_TIMEOUT_S + 60),
                          enforce_ssl=True, dead_letter_queue=sqs.DeadLetterQueue(queue=dlq, max_receive_count=3))

        # ------------------------------------------------------------ the messages' nudge queue
        # An urgent job queued (an organiser's reset, a round's draw) puts one message here; its consumer
        # (app.deliver_nudged) runs the worker's pass, so a reset's code goes within seconds, not at the next minute.
        # No dead-letter queue and a short retention: the consumer never fails a batch (a nudge is a hint, the
        # scheduled minute is the safety net), and a nudge older than a few minutes is worth nothing.
        nudges_name = f"cardgames-{stage}-messages"
        nudges = sqs.Queue(self, "MessagesQueue", queue_name=nudges_name, retention_period=cdk.Duration.minutes(5),
                           visibility_timeout=cdk.Duration.seconds(NUDGED_TIMEOUT_S + 30), enforce_ssl=True)
        os.environ["MESSAGES_QUEUE_NAME"] = nudges_name  # read by app.py while Chalice packages it

        # ------------------------------------------------------------ the Chalice app (API, sweeper, publisher)
        os.environ["PUBLISH_QUEUE_NAME"] = queue_name  # read by app.py while Chalice packages it
        environment = {
            "STAGE": stage, "TABLE_NAME": table.table_name, "PUBLISH_BUCKET": results_bucket.bucket_name,
            "PUBLISH_QUEUE_URL": queue.queue_url, "PUBLISH_QUEUE_NAME": queue_name,
            "STRIPE_SECRET_ARN": stripe.secret_arn, "SITE_URL": site_url,
            # A platform for many chambers: a tournament takes money only through its organiser's own account
            "PAYMENT_ACCOUNTS": "platform", "PAYMENT_ACCOUNTS_KEY_ID": accounts_key.key_arn,
            **{name: secret.secret_arn for name, secret in china_keys.items()},
            # The posters' CJK font, in the package (no fonts-noto-cjk on Lambda): relative to /var/task
            "POSTER_FONT": lambda_package.POSTER_FONT,
        }
        if self.china:   # the providers' notifications come back through the ICP-filed domain
            environment["API_URL"] = f"https://{domain}/api"
        self.api = CheckedChalice(self, "Api", source_dir=str(ROOT), stage_config={
            "api_gateway_stage": "api",
            "environment_variables": environment,
            "autogen_policy": False,
            "manage_iam_role": True,
            "iam_policy_file": "policy-empty.json",
            "lambda_memory_size": 1024,
            "lambda_timeout": 30,
            "reserved_concurrency": 200 if prod else 20,
        })
        # The other two functions' own sizes. Not through stage_config's "lambda_functions": Chalice reads those only
        # from .chalice/config.json, under a stage named after this stack, and the values above (given here) win
        # over everything else — so they were ignored, and the publisher ran with 30 s and 1,024 MB, 200 at once.
        for name, props in {"PublishFromQueue": {"Timeout": PUBLISHER_TIMEOUT_S, "MemorySize": PUBLISHER_MEMORY_MB},
                            "SweepHolds": {"Timeout": 120, "ReservedConcurrentExecutions": 1},
                            # one worker at a time is enough (its claims keep two apart anyway); a pass is bounded by
                            # 50 messages of at most 5 s each
                            "DeliverMessages": {"Timeout": 300, "ReservedConcurrentExecutions": 1}}.items():
            function = self.api.get_resource(name)
            for key, value in props.items():
                function.add_property_override(key, value)
        # Each function has its own role, granted only what it uses (no hand-written policies, no wildcards).
        api_role = self.api.get_role("ApiHandlerRole")
        publisher_role = self.api.get_role("PublishFromQueueRole")
        sweeper_role = self.api.get_role("SweepHoldsRole")
        messages_role = self.api.get_role("DeliverMessagesRole")
        table.grant_read_write_data(api_role)
        table.grant_read_write_data(sweeper_role)
        table.grant_read_write_data(messages_role)
        # SMS abroad by SNS (a phone number is no ARN: SNS authorises sns:Publish to numbers on "*"), e-mail by SES;
        # the API sends sign-in codes itself, the worker everything else
        send = iam.PolicyStatement(actions=["sns:Publish", "ses:SendEmail"], resources=["*"])
        for role in (api_role, messages_role):
            role.add_to_principal_policy(send)
            messages_config.grant_read(role)
        table.grant_read_data(publisher_role)
        table.grant(publisher_role, "dynamodb:UpdateItem")   # its publish lease (one publisher per tournament)
        # grant_put would add s3:Abort*; the publisher only puts objects.
        put_pages = iam.PolicyStatement(actions=["s3:PutObject"], resources=[results_bucket.arn_for_objects("*")])
        api_role.add_to_principal_policy(put_pages)  # POST /tournaments/{tid}/publish publishes at once
        publisher_role.add_to_principal_policy(put_pages)
        codes.grant_read(messages_role)   # the worker keys the messages it fans out by a keyed hash of the address
        for role in (api_role, sweeper_role):
            stripe.grant_read(role)
            codes.grant_read(role)
            for secret in china_keys.values():
                secret.grant_read(role)
            # What sealing and opening take, no more (grant_encrypt_decrypt would add kms:ReEncrypt*: a wildcard)
            accounts_key.grant(role, "kms:GenerateDataKey", "kms:Decrypt")
        queue.grant_send_messages(api_role)
        queue.grant_send_messages(sweeper_role)
        queue.grant_consume_messages(publisher_role)
        queue.grant_send_messages(publisher_role)   # a change of every scope fanned out: a message per scope (jobs.py)
        # The code secret reaches the functions as an ARN; they read it once per cold start.
        for fn in ("APIHandler", "SweepHolds", "DeliverMessages"):
            self.api.add_environment_variable("TABLE_CODE_SECRET_ARN", codes.secret_arn, fn)
        for fn in ("APIHandler", "DeliverMessages"):
            self.api.add_environment_variable("MESSAGES_CONFIG_ARN", messages_config.secret_arn, fn)
        # glibc's malloc arenas, two (not eight per core): the publisher's reading and writing threads left freed
        # memory in arenas of their own (docs/scaling.md: 823 → 759 MiB PSS at 20,000 entries)
        self.api.add_environment_variable("MALLOC_ARENA_MAX", "2", "PublishFromQueue")
        # Its SQS trigger names the queue by ARN (as the nudged pass's below): the function waits for the queue and
        # for its role's grants to it, or a first deploy may make the trigger before either exists
        publisher = self.api.get_resource("PublishFromQueue")
        publisher.add_dependency(queue.node.default_child)
        publisher.add_dependency(
            self.api.node.find_child("PublishFromQueueRole").node.find_child("Policy").node.default_child)
        # At most this many at once through its trigger (SAM's SQS event: ScalingConfig), not a reserved concurrency
        # of 5: that held five of the account's pool always and capped the events publishing side by side, and Lambda
        # throttling the trigger's surplus hands messages back, counting their receives toward the dead-letter queue.
        publisher.add_property_override("Events.PublishFromQueueSqsEventSource.Properties.ScalingConfig",
                                        {"MaximumConcurrency": PROD_PUBLISHERS if prod else DEV_PUBLISHERS})
        publisher.add_property_deletion_override("ReservedConcurrentExecutions")   # else the API's, from stage_config

        # ------------------------------------------------------------ the nudged pass of the messages' worker
        # The API nudges (its requests queue the urgent jobs); the consumer is granted what the scheduled worker is.
        nudged = self.api.get_resource("DeliverNudged")
        nudged.add_property_override("Timeout", NUDGED_TIMEOUT_S)
        nudged.add_property_override("ReservedConcurrentExecutions", NUDGED_CONCURRENCY)
        nudged_role = self.api.get_role("DeliverNudgedRole")
        table.grant_read_write_data(nudged_role)
        nudged_role.add_to_principal_policy(send)
        messages_config.grant_read(nudged_role)
        codes.grant_read(nudged_role)
        nudges.grant_send_messages(api_role)
        nudges.grant_consume_messages(nudged_role)
        # Its SQS trigger names the queue by ARN (no reference CloudFormation would order by), and Lambda checks the
        # role may read the queue when the trigger is made: the function waits for both.
        nudged.add_dependency(nudges.node.default_child)
        nudged.add_dependency(self.api.node.find_child("DeliverNudgedRole").node.find_child("Policy").node.default_child)
        self.api.add_environment_variable("MESSAGES_QUEUE_URL", nudges.queue_url, "APIHandler")
        self.api.add_environment_variable("TABLE_CODE_SECRET_ARN", codes.secret_arn, "DeliverNudged")
        self.api.add_environment_variable("MESSAGES_CONFIG_ARN", messages_config.secret_arn, "DeliverNudged")

        # API Gateway throttles before Lambda is called; its 429 keeps the API's error body contract.
        # Sized from bench/cost.py's model, not guessed (issue 43 item 4). With the phones polling their tables'
        # live JSON on the CDN, the API serves writes and each phone's one open a round; its busiest moment is a
        # round's start, every table's two phones opening their table within OPEN_WINDOW_S (2 min) while results
        # still come in (2 a table over RESULTS_WINDOW_S, 20 min): "API request rate at a round's start" =
        # 2 × tables / 120 s + 2 × tables / 1,200 s = 92/s at 10,000 entries and 917/s at 100,000 (a national
        # day, the largest the platform is built for). Steady PROD_API_RATE = that with 30 % headroom; the burst
        # (the token bucket a crowd of phones opening at the same second draws on) twice it. Both stay far below
        # the account's regional 10,000/s; Lambda: 1,200/s × ~25 ms a request (measured) ≈ 30 concurrent.
        rest_api = self.api.get_resource("RestAPI")
        rest_api.add_property_override("MethodSettings", [{
            "ResourcePath": "/*", "HttpMethod": "*",
            "ThrottlingRateLimit": PROD_API_RATE if prod else 50, "ThrottlingBurstLimit": PROD_API_BURST if prod else 100}])
        # Every answer API Gateway gives itself carries {code, message} too (api.md v1.1): unknown paths and
        # methods (its "Missing Authentication Token" 403) become 404 not_found.
        def body(code: str, message: str) -> dict:
            return {"application/json": f'{{"code": "{code}", "message": "{message}"}}'}
        cors = {"Headers": {"Access-Control-Allow-Origin": "'*'"}}
        rest_api.add_property_override("GatewayResponses", {
            "THROTTLED": {"StatusCode": 429, "ResponseParameters": cors,
                          "ResponseTemplates": body("rate_limited", "请求过于频繁 · Too many requests; wait a moment.")},
            "MISSING_AUTHENTICATION_TOKEN": {"StatusCode": 404, "ResponseParameters": cors,
                                             "ResponseTemplates": body("not_found", "没有这个地址 · No such path.")},
            "UNSUPPORTED_MEDIA_TYPE": {"StatusCode": 415, "ResponseParameters": cors, "ResponseTemplates": body(
                "unsupported_media_type", "请发送 JSON · Send the body as application/json.")},
            "REQUEST_TOO_LARGE": {"StatusCode": 413, "ResponseParameters": cors,
                                  "ResponseTemplates": body("payload_too_large", "请求内容过大 · The body is too large.")},
            "DEFAULT_4XX": {"ResponseParameters": cors,
                            "ResponseTemplates": body("invalid_request", "请求无效 · The request is not valid.")},
            "DEFAULT_5XX": {"ResponseParameters": cors,
                            "ResponseTemplates": body("internal_error", "服务器出错 · Something went wrong on our side.")},
        })

        if self.china:
            # The API through the ICP-filed domain too: /api/* goes to API Gateway's stage "api", uncached, with
            # every header but Host (the console's Authorization, the providers' signature headers).
            distribution.add_behavior(
                "api/*", origins.HttpOrigin(f"{rest_api.ref}.execute-api.{cdk.Aws.REGION}.{cdk.Aws.URL_SUFFIX}",
                                            protocol_policy=cloudfront.OriginProtocolPolicy.HTTPS_ONLY),
                allowed_methods=cloudfront.AllowedMethods.ALLOW_ALL,
                cache_policy=cloudfront.CachePolicy.CACHING_DISABLED,
                origin_request_policy=cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER, **behaviour)

        # ------------------------------------------------------------ alarms
        cloudwatch.Alarm(self, "Api5xx", alarm_description="API 5xx responses",
                         metric=cloudwatch.Metric(namespace="AWS/ApiGateway", metric_name="5XXError",
                                                  dimensions_map={"ApiName": "cardgames"}, statistic="Sum",
                                                  period=cdk.Duration.minutes(5)),
                         threshold=5, evaluation_periods=1, treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING)
        cloudwatch.Alarm(self, "LambdaThrottles", alarm_description="Lambda throttles (account, this region)",
                         metric=cloudwatch.Metric(namespace="AWS/Lambda", metric_name="Throttles", statistic="Sum",
                                                  period=cdk.Duration.minutes(5)),
                         threshold=1, evaluation_periods=1, treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING)
        cloudwatch.Alarm(self, "TableThrottles", alarm_description="DynamoDB throttled requests",
                         metric=table.metric_throttled_requests_for_operations(
                             operations=[dynamodb.Operation.GET_ITEM, dynamodb.Operation.QUERY, dynamodb.Operation.PUT_ITEM,
                                         dynamodb.Operation.UPDATE_ITEM, dynamodb.Operation.TRANSACT_WRITE_ITEMS],
                             period=cdk.Duration.minutes(5)),
                         threshold=1, evaluation_periods=1, treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING)
        cloudwatch.Alarm(self, "PublishDLQNotEmpty", alarm_description="publishing failed three times",
                         metric=dlq.metric_approximate_number_of_messages_visible(period=cdk.Duration.minutes(5)),
                         threshold=1, evaluation_periods=1, treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING)

        # ------------------------------------------------------------ the front end, told where the API is
        api_url = f"https://{domain}/api/" if self.china else self.api.sam_template.get_output("EndpointURL").value
        if not (SITE / "score.html").exists():
            raise SystemExit(f"{SITE} is missing: `make site` builds the front end")
        api_base = cdk.Fn.join("", [cdk.Fn.select(0, cdk.Fn.split("/api/", api_url)), "/api"])
        # each page written with its <meta name="api"> filled in at deploy time (the URL is known only then: the
        # token is a marker in the staged file, replaced by the deployment)
        pages = []
        for page, text in zip(sorted(SITE.glob("*.html")), built_pages(SITE)):
            head, found, tail = text.partition(API_META)
            if not found:
                raise SystemExit(f"{page} has no {API_META}: the front end must be built by `make site`")
            pages.append(s3deploy.Source.data(page.name, f'{head}<meta name="api" content="{api_base}">{tail}'))
        s3deploy.BucketDeployment(
            self, "FrontendFiles", destination_bucket=frontend_bucket, distribution=distribution,
            # the build output, less its pages (above) and its .gz copies (CloudFront compresses by itself)
            sources=[s3deploy.Source.asset(str(SITE), exclude=["*.html", "*.gz"]), *pages],
            cache_control=[s3deploy.CacheControl.from_string("public, max-age=300")], prune=True)

        cdk.CfnOutput(self, "ApiUrl", value=api_url)
        cdk.CfnOutput(self, "SiteUrl", value=site_url)
        cdk.CfnOutput(self, "ResultsBucketName", value=results_bucket.bucket_name)
        cdk.CfnOutput(self, "FrontendBucketName", value=frontend_bucket.bucket_name)
        cdk.CfnOutput(self, "StripeSecretArn", value=stripe.secret_arn)
        cdk.CfnOutput(self, "DistributionId", value=distribution.distribution_id)
