# Two commands matter: `make run` (the whole platform locally) and `make test` (every test).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export DDB_PORT ?= 8001
export API_PORT ?= 8000
export SITE_PORT ?= 8080

.PHONY: run test organiser deps java node-deps bench synth deploy clean chromium

$(VENV)/.installed: requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements-dev.txt
	touch $@

node_modules/.installed: package.json
	npm install --no-audit --no-fund --loglevel=error
	touch $@

java:
	@command -v java >/dev/null || (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q default-jre-headless)

deps: $(VENV)/.installed node_modules/.installed java

# Browser tests drive Debian's Chromium (Playwright's own browser download does not work here).
chromium:
	@test -x /usr/bin/chromium || (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium fonts-noto-cjk)

run: deps
	$(PY) -m scripts.dev run

organiser: deps
	@$(PY) -m scripts.dev organiser "$(NAME)"

test: deps chromium
	$(PY) -m pytest -q -p no:cacheprovider

bench: deps
	$(PY) bench/standings.py
	$(PY) bench/pairing.py
	$(PY) bench/registration.py

clean:
	rm -rf $(VENV) node_modules .data
