# The two commands of the README: `make serve` and `make test`. Everything else is a step of theirs.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CHROMIUM := /usr/bin/chromium
HOST := 127.0.0.1:8000
# The virtualenv's programs come first, `ninja` among them (torch runs it by name to build theory 01's extension).
export PATH := $(CURDIR)/$(BIN):$(PATH)

.PHONY: serve build test check bless lens bench audit translated setup browser clean rehearse-toolchain constraints

# Create the virtualenv and install the exact pins, and what they need at the versions of constraints.txt (again
# only when either file changes).
$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[test,reader]'
	touch $(STAMP)

# After a pin changes in pyproject.toml: install the pins without the old constraints and record what they need.
constraints:
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m tools.constraints
	touch $(STAMP)

setup: $(STAMP)

# Debian's Chromium for the browser tests (Playwright drives it; it never downloads a browser).
browser:
	@test -x $(CHROMIUM) || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# Authoring: build both languages and serve them; after an edit, render again only the pages it touches (a page
# whose text, included snippet or glossary changed) and run only the blocks whose code changed.
serve: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m tools.serve $(HOST)

# The build CI runs: strict, traces checked, no authoring cache. Built aside and moved into site/ only
# when complete, so an interrupted build never leaves a half-written site.
build: $(STAMP)
	rm -rf site.partial
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site.partial
	rm -rf site && mv site.partial site

# Rewrite the traces whose output changed (review the diff before committing it). Refuses, writing nothing,
# while any block raises, lacks an id, repeats one or differs between languages.
# PAGE=labs/01-autograd-by-hand.md (and BLOCK=mlp-by-hand) accepts one page's or one block's new output only.
bless: $(STAMP)
	NO_MKDOCS_2_WARNING=1 HOOD_BLESS='$(if $(PAGE),$(PAGE)$(if $(BLOCK),#$(BLOCK)),1)' $(BIN)/mkdocs build --site-dir site

# The whole suite, strict site build and browser tests included.
test: $(STAMP) browser
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m pytest $(PYTEST_ARGS)

# The inner loop: every test but the site build, small builds, the audit, the browser, distributed runs and notebooks.
check: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m pytest -q -m "not site and not build and not audit and not browser and not distributed and not notebooks" $(PYTEST_ARGS)

# After bringing a Spanish page up to date with its English page: make translated PAGE=theory/01-dispatcher-and-aten.md
translated: $(STAMP)
	$(BIN)/python -m tools.translated $(PAGE)

# Re-run every traced block under variations its trace must not depend on (threads, BLAS caps, page order,
# Inductor cache); lists every block whose output changes. The suite runs it too.
audit: $(STAMP)
	$(BIN)/python -m tools.audit --report audit-report.txt

# Rehearse a torch upgrade: record what every block prints under another release in traces/lens/<release>/
# (its own virtualenv under .cache/lens/; .venv, which this target sets up first, keeps the pinned torch). Then
# review git diff traces/lens and commit.
lens: $(STAMP)
	$(BIN)/python -m tools.lens $(TORCH)

# Rehearse a change of toolchain: build the site with ProperDocs (a maintained MkDocs 1.x fork) in a virtualenv of
# its own, and compare its traces and pages with this MkDocs's build.
rehearse-toolchain: $(STAMP)
	$(BIN)/python -m tools.toolchain

bench: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m tools.bench

clean:
	rm -rf site .cache site-report.txt site-report.json audit-report.txt
