# The two commands of the README: `make serve` and `make test`. Everything else is a step of theirs.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CHROMIUM := /usr/bin/chromium
HOST := 127.0.0.1:8000

.PHONY: serve build test bless bench setup browser clean

# Create the virtualenv and install the exact pins (again only when pyproject.toml changes).
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $(STAMP)

setup: $(STAMP)

# Debian's Chromium for the browser tests (Playwright drives it; it never downloads a browser).
browser:
	@test -x $(CHROMIUM) || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# Authoring: build both languages and serve them, re-running what an edit touches.
serve: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve -a $(HOST) -w src -w snippets

# The build CI runs: strict, traces checked, no authoring cache. Built aside and moved into site/ only
# when complete, so an interrupted build never leaves a half-written site.
build: $(STAMP)
	rm -rf site.partial
	NO_MKDOCS_2_WARNING=1 HOOD_CHECK=1 $(BIN)/mkdocs build --strict --site-dir site.partial
	rm -rf site && mv site.partial site

# Rewrite every trace from a fresh run (review the diff before committing it).
bless: $(STAMP)
	NO_MKDOCS_2_WARNING=1 HOOD_BLESS=1 $(BIN)/mkdocs build --site-dir site

# The whole suite, strict site build and browser tests included.
test: $(STAMP) browser
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m pytest $(PYTEST_ARGS)

bench: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m hood.build.bench

clean:
	rm -rf site .cache
