# Two commands matter: `make run` (the whole platform locally) and `make test` (every test).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export DDB_PORT ?= 8001
export API_PORT ?= 8000
export SITE_PORT ?= 8080

.PHONY: run venue test lint organiser reset-password deps java node-deps bench synth deploy clean chromium site fonts
STAGE ?= dev
# The CDK CLI and jsii (under the CDK app) run on the Node that package.json installs (the machine's Node 20 is
# past its end of life for both).
CDK := cd infra && PATH="$(CURDIR)/node_modules/.bin:$$PATH" ../node_modules/.bin/cdk

# Chalice's packager runs the venv's pip: keep it within the range Chalice supports (chalice 1.34: pip<26.3).
# The requirements go in through uv (the same versions pip picks, ~10× less CPU: its downloads run in parallel and
# it does not compile every module on install); pip installs them if uv cannot.
$(VENV)/.installed: requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade "pip<26.3" uv
	$(VENV)/bin/uv pip install -q --python $(PY) -r requirements-dev.txt || $(PY) -m pip install -q -r requirements-dev.txt
	touch $@

node_modules/.installed: package.json package-lock.json
	npm install --no-audit --no-fund --loglevel=error
	touch $@

java:
	@command -v java >/dev/null || (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q default-jre-headless)

# The local and venue stages need no Java (their store is embedded in the API); tests and benches of DynamoDB's own
# semantics run DynamoDB Local, which does.
deps: $(VENV)/.installed node_modules/.installed

# The front end: Vue pages built by Vite into frontend/dist/; never committed.
site: node_modules/.installed
	npm run --silent build -- --logLevel warn

# Browser tests drive Debian's Chromium (Playwright's own browser download does not work here).
chromium: fonts
	@test -x /usr/bin/chromium || (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium fonts-noto-cjk)

# The posters' CJK font (chalicelib/publish/poster.py), also where Chromium is already there.
fonts:
	@test -e /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc || (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q fonts-noto-cjk)

run: deps site
	HOST="$(HOST)" $(PY) -m scripts.dev run

# Venue mode: the laptop serves every phone in the hall (LAN address, QR code for the console).
venue: deps site
	HOST=0.0.0.0 $(PY) -m scripts.dev run

organiser: deps
	@LOGIN="$(LOGIN)" PASSWORD="$(PASSWORD)" $(PY) -m scripts.dev organiser "$(NAME)"

# The platform operator resets an organiser's password: make reset-password LOGIN=13800000000 PASSWORD='…'
reset-password: deps
	@LOGIN="$(LOGIN)" PASSWORD="$(PASSWORD)" $(PY) -m scripts.dev reset-password

# Two pytest-xdist workers, each with its own DynamoDB Local, stack and Chromium, whole files to a worker (a file's
# module fixtures are set up once): ~11 min instead of ~18 in one process. TEST_WORKERS=0: one process.
TEST_WORKERS ?= 2
test: deps java chromium site lint
	$(PY) -m pytest -q -p no:cacheprovider $(if $(filter-out 0,$(TEST_WORKERS)),-n $(TEST_WORKERS) --dist loadfile)

# The lint (ruff.toml says which rules and why): seconds, before the tests.
lint: deps
	$(VENV)/bin/ruff check --quiet .

# Offline: synthesizes the CloudFormation template (and the Lambda package) into infra/cdk.out/.
# REGION=cn-north-1 (or cn-northwest-1): the mainland's partition aws-cn, linted against that region's resource types.
REGION ?=
synth: deps site
	$(CDK) synth -c stage=$(STAGE) $(if $(REGION),-c region=$(REGION)) -q -o cdk.out
	$(VENV)/bin/cfn-lint infra/cdk.out/cardgames-$(STAGE).template.json --ignore-checks W3005 $(if $(REGION),--regions $(REGION))

# Needs AWS credentials (and a bootstrapped account: `make deploy` runs `cdk bootstrap` first). See docs/deploy.md.
deploy: deps site
	$(CDK) bootstrap -c stage=$(STAGE)
	$(CDK) deploy -c stage=$(STAGE) --require-approval broadening

bench: deps java site chromium
	$(PY) bench/standings.py
	$(PY) bench/pairing.py
	$(PY) bench/registration.py
	$(PY) bench/audit_chain.py
	$(PY) bench/publish.py
	$(PY) bench/venue_load.py
	$(PY) bench/api_server.py
	$(PY) bench/draw_exactness.py
	$(PY) bench/frontend.py
	$(PY) bench/package.py
	$(PY) bench/import_app.py
	$(PY) bench/import_bounds.py
	$(PY) bench/rankings.py
	$(PY) bench/reset_code.py

clean:
	rm -rf $(VENV) node_modules .data frontend/dist
