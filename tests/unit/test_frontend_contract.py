"""The front end's API client (frontend/app/src/shared/routes.json, the only place its paths live) against
/openapi.json: every route it calls exists with that method, every body field it sends is in the request schema,
and every response field it reads is in the response schema. A renamed route or field fails here, not on a phone."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ROUTES = json.loads((ROOT / "frontend" / "app" / "src" / "shared" / "routes.json").read_text())


@pytest.fixture(scope="module")
def doc():
    import app  # noqa: F401  (registers every route)
    from chalicelib.api.openapi import build_openapi
    return build_openapi()


def _resolve(doc, schema):
    while "$ref" in schema:
        schema = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return schema


def _field(doc, schema, name):
    """The schema of property `name`, looking through refs and anyOf (nullable); None when it is not there."""
    schema = _resolve(doc, schema)
    for alt in schema.get("anyOf", [schema]):
        alt = _resolve(doc, alt)
        if name in alt.get("properties", {}):
            return alt["properties"][name]
    return None


def _walk(doc, schema, dotted):
    for part in dotted.split("."):
        many = part.endswith("[]")
        schema = _field(doc, schema, part.removesuffix("[]"))
        if schema is None:
            return None
        if many:
            schema = _resolve(doc, schema)
            schema = next((_resolve(doc, a).get("items") for a in schema.get("anyOf", [schema]) if "items" in _resolve(doc, a)), None)
            if schema is None:
                return None
    return schema


def _json_schema(op, where):
    if where == "body":
        return op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
    ok = next((r for code, r in op["responses"].items() if code.startswith("2")), {})
    return ok.get("content", {}).get("application/json", {}).get("schema")


@pytest.mark.parametrize("name", sorted(ROUTES))
def test_every_route_the_front_end_calls_is_in_the_document(doc, name):
    r = ROUTES[name]
    assert r["path"] in doc["paths"], f"{name}: {r['path']} is not an API path"
    op = doc["paths"][r["path"]].get(r["method"].lower())
    assert op is not None, f"{name}: {r['method']} {r['path']} is not an operation"
    declared = {p["name"] for p in op.get("parameters", []) if p["in"] == "path"}
    assert set(re.findall(r"{(\w+)}", r["path"])) == declared
    queries = {p["name"] for p in op.get("parameters", []) if p["in"] == "query"}
    assert set(r.get("query", [])) <= queries, (name, set(r.get("query", [])) - queries)


@pytest.mark.parametrize("name", sorted(n for n in ROUTES if ROUTES[n].get("body")))
def test_every_body_field_it_sends_is_accepted(doc, name):
    r = ROUTES[name]
    schema = _json_schema(doc["paths"][r["path"]][r["method"].lower()], "body")
    assert schema is not None, f"{name}: the operation takes no JSON body"
    target = _resolve(doc, schema)
    for f in r["body"]:
        # a result body is open by design (deals / games / final per game: api.md), named ones must match
        assert _field(doc, schema, f) is not None or target.get("additionalProperties") is True, (name, f)


@pytest.mark.parametrize("name", sorted(n for n in ROUTES if ROUTES[n].get("response")))
def test_every_response_field_it_reads_is_answered(doc, name):
    r = ROUTES[name]
    schema = _json_schema(doc["paths"][r["path"]][r["method"].lower()], "response")
    assert schema is not None, f"{name}: the operation documents no JSON answer"
    missing = [f for f in r["response"] if _walk(doc, schema, f) is None]
    assert not missing, (name, missing)


def test_the_check_can_fail(doc):
    """A field the API does not have is reported (the walk is not vacuous)."""
    op = doc["paths"]["/events/{eid}/rounds/{n}/tables/{t}"]["get"]
    schema = _json_schema(op, "response")
    assert _walk(doc, schema, "table.sides[].name") is not None
    assert _walk(doc, schema, "table.sides[].nickname") is None
    assert _walk(doc, schema, "table.seat_map") is None


def test_the_client_calls_only_routes_of_the_list():
    """Every call("name") in the app's sources names a route of routes.json, and no source builds an API path itself."""
    src = ROOT / "frontend" / "app" / "src"
    text = "\n".join(p.read_text() for p in src.rglob("*") if p.suffix in (".js", ".vue"))
    called = set(re.findall(r'call\("(\w+)"', text)) | set(re.findall(r"outbox.put\([^{]*{ name: \"(\w+)\"", text))
    assert called and called <= set(ROUTES), called - set(ROUTES)
    assert not re.search(r'["`]/(events|tournaments|entries|registrations)/', text)


def test_the_early_script_asks_for_the_paths_of_the_route_list():
    """early-score.js (the table page's reads started before the app loads) runs under Node with a fake browser:
    the URLs it fetches are exactly the ones the client builds from routes.json, so the app can take them over."""
    import shutil
    import subprocess
    node = shutil.which("node")
    assert node, "node is needed (make deps installs the project's Node tooling)"
    script = (ROOT / "frontend" / "early-score.js").read_text()
    harness = """
      const asked = [];
      globalThis.window = globalThis;
      globalThis.location = {search: "?e=EV%201&r=2&t=3&c=ABC123"};
      globalThis.localStorage = {getItem: () => null};
      globalThis.document = {querySelector: (q) => q === 'meta[name="api"]' ? {getAttribute: () => "http://api"} : null};
      globalThis.fetch = (url, opts) => { asked.push([url, opts.headers]); return Promise.resolve({}); };
    """ + script + "\nconsole.log(JSON.stringify({asked, early: Object.keys(window.EARLY)}));"
    out = json.loads(subprocess.run([node, "-e", harness], capture_output=True, text=True, check=True, timeout=30).stdout)
    table = "http://api" + ROUTES["tableView"]["path"].replace("{eid}", "EV%201").replace("{n}", "2").replace("{t}", "3")
    assert out["asked"] == [[table, {"X-Table-Code": "ABC123"}], ["http://api" + ROUTES["glossary"]["path"], {}]]
    assert set(out["early"]) <= set(ROUTES)


@pytest.mark.parametrize("search, kept, catalogs, preloaded, device", [
    ("?lang=en", None, ["zh", "en", "vi"], "en", ["vi-VN"]),     # asked for
    ("", "vi", ["zh", "en", "vi"], "vi", ["en-US"]),             # chosen on the device
    ("", "vi", ["zh", "en"], "zh", []),                          # the console has no vi: its default
    ("?lang=xx", None, ["zh", "en", "vi"], "zh", []),            # unknown: the default
    ("", None, ["zh", "en", "vi"], "vi", ["vi-VN", "en-US"]),    # a first visit: the browser's language (issue 39)
    ("", None, ["zh", "en", "vi"], "en", ["fr-FR", "en-GB"]),
    ("", None, ["zh", "en"], "zh", ["vi-VN", "zh-CN"]),
])
def test_the_early_script_preloads_the_catalog_the_app_will_choose(search, kept, catalogs, preloaded, device):
    """early-lang.js (inlined into every page) starts the download of one language's words, chosen as
    shared/i18n.js chooses (?lang=, then the device's, then the page's first): the app's import takes it over."""
    import shutil
    import subprocess
    node = shutil.which("node")
    assert node, "node is needed (make deps installs the project's Node tooling)"
    script = (ROOT / "frontend" / "early-lang.js").read_text()
    metas = json.dumps([{"data-lang": lang, "content": f"./assets/catalog-{lang}-HASH.js"} for lang in catalogs])
    harness = f"""
      const added = [];
      globalThis.location = {{search: {json.dumps(search)}}};
      globalThis.localStorage = {{getItem: (k) => k === "lang" ? {json.dumps(kept)} : null}};
      Object.defineProperty(globalThis, "navigator", {{value: {{languages: {json.dumps(device)}}}, configurable: true}});
      const metas = {metas}.map((m) => ({{getAttribute: (a) => m[a]}}));
      globalThis.document = {{
        querySelectorAll: (q) => q === 'meta[name="catalog"]' ? metas : [],
        createElement: () => ({{}}),
        head: {{appendChild: (el) => added.push(el)}},
      }};
    """ + script + "\nconsole.log(JSON.stringify(added));"
    out = json.loads(subprocess.run([node, "-e", harness], capture_output=True, text=True, check=True, timeout=30).stdout)
    assert out == [{"rel": "modulepreload", "href": f"./assets/catalog-{preloaded}-HASH.js"}]
    i18n = (ROOT / "frontend" / "app" / "src" / "shared" / "i18n.js").read_text()
    assert "for (const l of [asked, kept]) if (l && available.includes(l)) return l;" in i18n   # the same rule
    assert 'const d = String(l || "").slice(0, 2).toLowerCase();' in i18n


def test_every_error_code_the_api_can_answer_is_worded_in_every_catalog():
    """Errors on screen come from the catalog by code: each code (the domain's and the route layer's) has its
    words in zh-CN, en and vi, so no screen falls back to the server's message or to a code."""
    from chalicelib import errors
    codes, stack = set(), [errors.DomainError]
    while stack:
        cls = stack.pop()
        codes.add(cls.code)
        stack.extend(cls.__subclasses__())
    codes |= {"not_found", "method_not_allowed", "unsupported_media_type", "payload_too_large", "service_unavailable"}
    codes -= {"idempotent_replay"}   # never answered: a replay answers the first registration again
    for lang in ("zh-CN", "en", "vi"):
        words = json.loads((ROOT / "frontend" / "app" / "src" / "locales" / f"{lang}.json").read_text())["errors"]
        assert not codes - set(words), (lang, sorted(codes - set(words)))


def test_the_catalogs_have_the_same_keys():
    """Adding a language is adding a catalog: every key of zh-CN is in en and vi (the console, zh-CN and en only)."""
    def keys(d, prefix=""):
        return {k2 for k, v in d.items() for k2 in (keys(v, f"{prefix}{k}.") if isinstance(v, dict) else {prefix + k})}
    cat = {lang: keys(json.loads((ROOT / "frontend" / "app" / "src" / "locales" / f"{lang}.json").read_text()))
           for lang in ("zh-CN", "en", "vi")}
    assert cat["zh-CN"] == cat["en"], cat["zh-CN"] ^ cat["en"]
    assert cat["zh-CN"] - cat["vi"] == {k for k in cat["zh-CN"] if k.startswith("console.")}
    assert cat["vi"] <= cat["zh-CN"]


def _account_check_codes() -> set[str]:
    """Every code a payment account's check can answer, read from the source that makes them: the adapters'
    `AccountCheck(state, code, …)` (a code taken from a table of the provider's refusals, Alipay's `_WORDS`, read
    from that table) and the service's own (`out["code"] = …`). A check with no code is `ok`."""
    import ast
    sources = sorted((ROOT / "chalicelib" / "payments").glob("*.py")) + [ROOT / "chalicelib" / "services" / "payment_accounts.py"]
    codes: set[str] = set()
    for path in sources:
        tree = ast.parse(path.read_text())
        tables = {t.id: node.value for node in tree.body if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict)
                  for t in node.targets if isinstance(t, ast.Name)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "AccountCheck":
                state = node.args[0].value
                code = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "code"), None)
                if code is None or isinstance(code, ast.Constant):
                    codes.add(code.value if code is not None and code.value is not None else state)
                else:   # a code looked up in a module table {provider's code: (our code, words)}
                    found = [v.elts[0].value for table in tables.values() for v in table.values
                             if isinstance(v, ast.Tuple) and isinstance(v.elts[0], ast.Constant)]
                    assert found, f"{path.name}:{node.lineno}: a check code this test cannot read"
                    codes.update(found)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    pairs = zip(target.elts, node.value.elts) if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple) \
                        else [(target, node.value)]
                    for t, v in pairs:
                        if isinstance(t, ast.Subscript) and getattr(t.slice, "value", None) == "code" and isinstance(v, ast.Constant):
                            codes.add(v.value)
    return codes


def test_every_payment_account_check_code_is_worded_in_the_console_catalogs():
    """The console shows a check's outcome in its own words by code, never the API's message (which is Chinese, or
    Chinese · English): every code an adapter or the service can answer has words in the console's languages
    (zh-CN and en: the console has no vi — see test_the_catalogs_have_the_same_keys), and a generic word for a code
    the page does not know yet."""
    codes = _account_check_codes()
    assert {"ok", "wrong_key", "sub_merchant_not_bound", "product_not_enabled", "app_auth_invalid", "account_not_found",
            "charges_not_enabled", "account_mismatch", "provider_unreachable", "changed"} <= codes, codes  # the reader reads
    for lang in ("zh-CN", "en"):
        words = json.loads((ROOT / "frontend" / "app" / "src" / "locales" / f"{lang}.json").read_text())["console"]
        missing = {c for c in codes | {"unknown"} if not words.get(f"pa_code_{c}")}
        assert not missing, (lang, sorted(missing))


def test_the_payment_accounts_page_words_a_check_by_its_code():
    """The page renders the check's words from the catalog (pa_code_*), never the API's `message`."""
    vue = (ROOT / "frontend" / "app" / "src" / "pages" / "organiser" / "PaymentAccounts.vue").read_text()
    template = vue.split("<template>", 1)[1]
    assert ".message" not in template
    assert "console.pa_code_unknown" in vue and "console.pa_code_ok" in vue
