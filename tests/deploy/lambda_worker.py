"""One Lambda function's execution environment, the way the python3.11 runtime runs it: started as
`python -I -S -B lambda_worker.py PACKAGE RUNTIME HANDLER` (no site-packages, no PYTHON* variables, not
even this file's folder on sys.path, no bytecode written), it puts the unpacked deployment package first and the runtime's own
libraries (boto3 and what it needs) second, imports the handler once (the cold start, timed), then answers
invocations: one JSON line in on stdin, one JSON line out.

Requests: {"event": {...}} invokes the handler; {"import": [names]} imports modules and says which fail;
{"modules": true} lists what is imported so far. Only the standard library is used before the handler.
"""
import importlib
import json
import os
import sys
import time
import traceback
import uuid


class Context:
    """The attributes of Lambda's context object that handlers read."""

    def __init__(self, name: str):
        self.function_name = name
        self.function_version = "$LATEST"
        self.invoked_function_arn = f"arn:aws:lambda:{os.environ.get('AWS_REGION', 'ap-east-1')}:123456789012:function:{name}"
        self.memory_limit_in_mb = int(os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "1024"))
        self.aws_request_id = str(uuid.uuid4())
        self.log_group_name = f"/aws/lambda/{name}"
        self.log_stream_name = "local"
        self._deadline = time.monotonic() + 30

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


def main() -> None:
    package, runtime, handler = sys.argv[1:4]
    sys.path[:0] = [package, runtime]
    # Answers go out on a private copy of stdout; anything the code prints goes to stderr (the function's log).
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def reply(obj) -> None:
        out.write(json.dumps(obj, default=str) + "\n")
        out.flush()

    start = time.perf_counter()
    module_name, attr = handler.rsplit(".", 1)
    try:
        fn = getattr(importlib.import_module(module_name), attr)
    except BaseException:   # noqa: BLE001 — the runtime reports an init error, whatever it is
        reply({"init_error": traceback.format_exc()})
        return
    reply({"init_ms": (time.perf_counter() - start) * 1000, "python": list(sys.version_info[:3]),
           "path": sys.path})
    name = os.environ.get("AWS_LAMBDA_FUNCTION_NAME", "function")
    for line in sys.stdin:
        request = json.loads(line)
        try:
            if "import" in request:
                failed = {}
                for mod in request["import"]:
                    try:
                        importlib.import_module(mod)
                    except BaseException as e:  # noqa: BLE001 - reported to the test, which names it
                        failed[mod] = f"{type(e).__name__}: {e}"
                reply({"failed": failed})
            elif "modules" in request:
                files = {m: getattr(mod, "__file__", None) for m, mod in list(sys.modules.items())}
                reply({"modules": files})
            else:
                reply({"result": fn(request["event"], Context(name))})
        except BaseException:   # noqa: BLE001 — the runtime reports a handler's error, whatever it is
            reply({"error": traceback.format_exc()})


if __name__ == "__main__":
    main()
