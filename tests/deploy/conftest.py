"""The deployed stack, locally: the dev stage's Lambda package from `cdk synth`, its three functions each in a
clean interpreter, DynamoDB Local for the table, and moto's server for S3, SQS and Secrets Manager (the
functions reach both over HTTP through the runtime's boto3, as they reach AWS)."""
from __future__ import annotations

import json
import socket
from types import SimpleNamespace

import pytest

from tests.deploy import artifact
from tests.infra import cdk

STAGE = "dev"
FUNCTIONS = ("APIHandler", "PublishFromQueue", "SweepHolds", "DeliverMessages", "DeliverNudged")
FIGURES: dict[str, str] = {}   # printed at the end of the test run (tests/conftest.py's figures)


@pytest.fixture(autouse=True)
def _print_figures_at_the_end(request):
    yield
    for k, v in FIGURES.items():
        request.node.user_properties.append(("figure", ("Lambda package (tests/deploy)", k, v)))
    FIGURES.clear()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def template():
    return cdk.synth(STAGE)


@pytest.fixture(scope="session")
def package(template, tmp_path_factory):
    zips = {cdk.function_asset(STAGE, template, fn) for fn in FUNCTIONS}
    assert len(zips) == 1, zips   # the functions share one package
    (zip_path,) = zips
    root = tmp_path_factory.mktemp("lambda")
    sizes = artifact.unpack(zip_path, root / "task")
    return SimpleNamespace(zip=zip_path, dir=root / "task", sizes=sizes, runtime=artifact.runtime_dir(root / "runtime"),
                           logs=root)


@pytest.fixture(scope="session")
def message_standins():
    """The SMS and WeChat providers' local stand-ins (scripts/message_standins.py), which the worker function's
    packaged Tencent Cloud SDK reaches over HTTP as it reaches the provider."""
    from scripts.message_standins import Standins
    s = Standins().start()
    yield s
    s.stop()


def deployed_messages_config(standins) -> dict:
    """MESSAGES_CONFIG as an operator stores it in the stack's secret, pointed at the stand-ins; the draw's
    template not approved yet, so the day has messages the worker must mark failed (no_template)."""
    config = standins.config("tencent")
    config["sms"]["templates"] = {k: v for k, v in config["sms"]["templates"].items() if k != "draw"}
    return {k: v for k, v in config.items() if k != "email"}


@pytest.fixture(scope="session")
def aws(ddb_local_endpoint, message_standins):
    """The table on DynamoDB Local; bucket, queue and secrets on moto's server. Yields their names."""
    import logging

    import boto3
    from moto.server import ThreadedMotoServer

    from chalicelib.store import schema
    logging.getLogger("werkzeug").setLevel(logging.WARNING)   # moto's server logs every request
    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    moto_url = f"http://127.0.0.1:{port}"
    try:
        kw = dict(region_name="ap-east-1", aws_access_key_id="deploytest", aws_secret_access_key="deploytest")
        ddb = boto3.client("dynamodb", endpoint_url=ddb_local_endpoint, **kw)
        table = "deploy_test_day"
        if table in ddb.list_tables()["TableNames"]:
            ddb.delete_table(TableName=table)
        schema.ensure_table(ddb, table)
        s3 = boto3.client("s3", endpoint_url=moto_url, **kw)
        bucket = "cardgames-dev-results"
        s3.create_bucket(Bucket=bucket, CreateBucketConfiguration={"LocationConstraint": "ap-east-1"})
        sqs = boto3.client("sqs", endpoint_url=moto_url, **kw)
        queue_url = sqs.create_queue(QueueName="cardgames-dev-publish")["QueueUrl"]
        queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        messages_queue_url = sqs.create_queue(QueueName="cardgames-dev-messages")["QueueUrl"]   # the nudges
        messages_queue_arn = sqs.get_queue_attributes(QueueUrl=messages_queue_url,
                                                      AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        sm = boto3.client("secretsmanager", endpoint_url=moto_url, **kw)
        stripe_keys = {"secret_key": "sk_test_deploy", "webhook_secret": "whsec_deploy_test"}
        stripe_arn = sm.create_secret(Name="StripeKeys", SecretString=json.dumps(stripe_keys))["ARN"]
        code_arn = sm.create_secret(Name="TableCodeSecret", SecretString="deploy-test-table-code-secret-0123456789")["ARN"]
        # the China providers' keys as the stack creates them: "{}", the provider off; the message providers'
        # configuration as the operator fills it in, pointed at the local stand-ins
        china_arns = {name: sm.create_secret(Name=name, SecretString="{}")["ARN"]
                      for name in ("WeChatPayKeys", "AlipayKeys")}
        # the key that seals the organisers' payment accounts (issue 40): moto's KMS stands in for the stack's
        china_arns["PaymentAccountsKey"] = boto3.client("kms", endpoint_url=moto_url, **kw).create_key(
            Description="payment accounts")["KeyMetadata"]["Arn"]
        china_arns["MessagesConfig"] = sm.create_secret(
            Name="MessagesConfig", SecretString=json.dumps(deployed_messages_config(message_standins)))["ARN"]
        yield SimpleNamespace(ddb_url=ddb_local_endpoint, moto_url=moto_url, table=table, bucket=bucket,
                              queue_url=queue_url, queue_arn=queue_arn, messages_queue_url=messages_queue_url,
                              messages_queue_arn=messages_queue_arn, stripe_arn=stripe_arn, stripe_keys=stripe_keys,
                              code_arn=code_arn, china_arns=china_arns, s3=s3, sqs=sqs, ddb=ddb,
                              site_url="https://d111111abcdef8.cloudfront.net")
        ddb.delete_table(TableName=table)
    finally:
        server.stop()


def function_environment(template: dict, logical_id: str, aws) -> dict:
    """The function's variables from the template: literals as they are, references to the stack's resources
    replaced by the local ones; a variable this test does not know fails it (give it a local value here)."""
    props = template["Resources"][logical_id]["Properties"]
    local = {"TABLE_NAME": aws.table, "PUBLISH_BUCKET": aws.bucket, "PUBLISH_QUEUE_URL": aws.queue_url,
             "MESSAGES_QUEUE_URL": aws.messages_queue_url,
             "STRIPE_SECRET_ARN": aws.stripe_arn, "TABLE_CODE_SECRET_ARN": aws.code_arn, "SITE_URL": aws.site_url,
             "WECHAT_PAY_SECRET_ARN": aws.china_arns["WeChatPayKeys"], "ALIPAY_SECRET_ARN": aws.china_arns["AlipayKeys"],
             "MESSAGES_CONFIG_ARN": aws.china_arns["MessagesConfig"],
             "PAYMENT_ACCOUNTS_KEY_ID": aws.china_arns["PaymentAccountsKey"]}
    env = {}
    for name, value in props.get("Environment", {}).get("Variables", {}).items():
        if isinstance(value, str):
            env[name] = value
        else:
            assert name in local, f"{logical_id}: {name} = {value} has no local value in tests/deploy/conftest.py"
            env[name] = local[name]
    env.update({
        "AWS_LAMBDA_FUNCTION_NAME": f"cardgames-{STAGE}-{logical_id}",
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(props.get("MemorySize", 128)),
        "AWS_ENDPOINT_URL_DYNAMODB": aws.ddb_url, "AWS_ENDPOINT_URL_S3": aws.moto_url,
        "AWS_ENDPOINT_URL_SQS": aws.moto_url, "AWS_ENDPOINT_URL_SECRETS_MANAGER": aws.moto_url,
        "AWS_ENDPOINT_URL_KMS": aws.moto_url,
    })
    return artifact.base_environment(env)


@pytest.fixture(scope="session")
def functions(template, package, aws):
    started = {}
    try:
        for fn in FUNCTIONS:
            props = template["Resources"][fn]["Properties"]
            started[fn] = artifact.LambdaFunction(fn, props["Handler"], package.dir, package.runtime,
                                                  function_environment(template, fn, aws), package.logs / f"{fn}.log")
        yield started
    finally:
        for f in started.values():
            f.close()


@pytest.fixture(scope="session")
def gateway(template, functions):
    (api,) = [r for r in template["Resources"].values() if r["Type"] == "AWS::Serverless::Api"]
    return artifact.ApiGateway(api["Properties"]["DefinitionBody"], functions["APIHandler"],
                               stage=api["Properties"]["StageName"])


@pytest.fixture
def operator_repos(aws, monkeypatch):
    """The platform operator's own tools on the deployed table, from the source tree, with the installation's
    secret read from Secrets Manager as the functions read it (login names are keyed by it)."""
    from chalicelib import bootstrap
    from chalicelib.config import get_settings, secret_string
    from chalicelib.store import dynamo
    from chalicelib.store.repositories import Repos
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", aws.ddb_url)
    monkeypatch.setenv("AWS_ENDPOINT_URL_SECRETS_MANAGER", aws.moto_url)
    monkeypatch.setenv("TABLE_CODE_SECRET_ARN", aws.code_arn)
    monkeypatch.delenv("TABLE_CODE_SECRET", raising=False)
    get_settings.cache_clear()
    secret_string.cache_clear()
    dynamo.reset_client()
    bootstrap.override(bootstrap.Deps(repos=Repos(dynamo.Table(aws.table))))
    yield bootstrap.deps()
    bootstrap.override(None)
    dynamo.reset_client()
    secret_string.cache_clear()

