# The README's two commands: `make demo` (set up, then the main job) and `make test`.
PYTHON ?= python3
VENV ?= .venv
VENV_FLAGS ?=
TORCH ?= torch==2.13.0
PY := $(VENV)/bin/python
GG := $(VENV)/bin/gamegrammar
DEMO ?= runs/demo

.PHONY: setup demo test lint bench reproduce reproduce-bs-cpu screen-bs screen-snake clean $(addprefix reproduce-,gg31k gg-cpu gg-gpu)

# Installs torch deliberately (the CPU wheel) only when the environment has none:
# a machine with a CUDA torch keeps it (make setup VENV_FLAGS=--system-site-packages,
# or VENV=/path/to/your/env).
setup: $(VENV)/.installed
$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV_FLAGS) $(VENV)
	$(PY) -c "import torch" 2>/dev/null || $(PY) -m pip install -q "$(TORCH)"
	$(PY) -m pip install -q -e ".[dev]"
	touch $@

# The main job, small: a corpus, a couple of minutes of training, 200 samples, a report.
demo: setup
	rm -rf $(DEMO)/train
	$(GG) generate --episodes 5000 --seed 0 --workers 2 --out $(DEMO)/corpus --overwrite --quiet
	$(GG) corpus stats $(DEMO)/corpus
	$(GG) train fit --config configs/gg-cpu.yaml --data.path $(DEMO)/corpus --run_dir $(DEMO)/train \
		--trainer.max_steps 120 --trainer.val_check_interval 60 --trainer.enable_progress_bar false
	$(GG) evaluate --ckpt $(DEMO)/train/checkpoints/last.ckpt --corpus $(DEMO)/corpus --num 200 \
		--teacher-episodes 50 --out $(DEMO)/report
	@echo "report: $(DEMO)/report/report.md"

# The README's results: one corpus, then each CPU preset within its time budget, then 1000 samples each
# at temperature 1.0 (add GPU=1 on a machine with a GPU for the gg-gpu row). One preset alone:
# make reproduce-gg-cpu (it makes the corpus first if there is none). Every run starts afresh.
CORPUS ?= data/corpus60k
RESULTS := gg31k gg-cpu $(if $(GPU),gg-gpu)
reproduce: $(addprefix reproduce-,$(RESULTS))

# gg31k is also sampled the way the original published its figures: cut off at its 64-token context
# (reports/gg31k-64, for its lenient tiers; the headline stays whole episodes).
ORIGINAL_LENGTH_gg31k := 64

$(CORPUS)/manifest.json: | setup
	$(GG) generate --episodes 60000 --seed 0 --workers 2 --out $(CORPUS) --quiet

$(addprefix reproduce-,gg31k gg-cpu gg-gpu): reproduce-%: setup $(CORPUS)/manifest.json
	rm -rf runs/$*-final
	$(GG) train fit --config configs/$*.yaml --data.path $(CORPUS) --run_dir runs/$*-final --trainer.enable_progress_bar false
	$(GG) evaluate --ckpt runs/$*-final/checkpoints/last.ckpt --corpus $(CORPUS) --num 1000 --temperature 1.0 --out reports/$*
	$(if $(ORIGINAL_LENGTH_$*),$(GG) evaluate --ckpt runs/$*-final/checkpoints/last.ckpt --corpus $(CORPUS) --num 1000 \
		--temperature 1.0 --max-length $(ORIGINAL_LENGTH_$*) --teacher-episodes 0 --out reports/$*-$(ORIGINAL_LENGTH_$*))

# Battlesnake's row: its own corpus (a keyframe every 20 ticks, see configs/bs-cpu.yaml), bs-cpu within 15 minutes,
# 1000 samples at temperature 1.0 (long enough for whole episodes: the default cap follows the corpus's longest).
BS_CORPUS ?= data/bs4k

$(BS_CORPUS)/manifest.json: | setup
	$(GG) generate --game battlesnake --episodes 4000 --keyframe-interval 20 --seed 0 --workers 2 --out $(BS_CORPUS) --quiet

reproduce-bs-cpu: setup $(BS_CORPUS)/manifest.json
	rm -rf runs/bs-cpu-final
	$(GG) train fit --config configs/bs-cpu.yaml --data.path $(BS_CORPUS) --run_dir runs/bs-cpu-final --trainer.enable_progress_bar false
	$(GG) evaluate --ckpt runs/bs-cpu-final/checkpoints/last.ckpt --corpus $(BS_CORPUS) --num 1000 --temperature 1.0 --out reports/bs-cpu

# Learnability of Battlesnake's two grammar designs (docs/levers.md, "Battlesnake grammar"): bs-cpu with and
# without explicit tail events (--tails), SCREEN_SEEDS seeds each at an equal budget of SCREEN_STEPS steps (equal
# tokens: the same compute), each read by the teacher-forced check and SCREEN_NUM samples. Reports in reports/screen-bs/;
# a rerun skips the runs whose report exists (delete reports/screen-bs to start afresh).
SCREEN_SEEDS ?= 1 2 3
SCREEN_STEPS ?= 400
SCREEN_NUM ?= 20

$(BS_CORPUS)-tails/manifest.json: | setup
	$(GG) generate --game battlesnake --episodes 4000 --keyframe-interval 20 --tails --seed 0 --workers 2 --out $(BS_CORPUS)-tails --quiet

screen-bs: setup $(BS_CORPUS)/manifest.json $(BS_CORPUS)-tails/manifest.json
	GG=$(GG) scripts/screen.sh bs configs/bs-cpu.yaml $(SCREEN_STEPS) $(SCREEN_NUM) "$(SCREEN_SEEDS)" \
	  plain=$(BS_CORPUS) tails=$(BS_CORPUS)-tails

# Snake's grammar options against grammar v1 (issue 20, docs/levers.md "Making the body visible"): gg-cpu on each
# design's 60,000-episode corpus, three seeds each at an equal budget of SNAKE_SCREEN_STEPS steps, 200 samples.
SNAKE_SCREEN_STEPS ?= 400
SNAKE_SCREEN_SEEDS ?= 1 2 3

$(CORPUS)-tails/manifest.json: | setup
	$(GG) generate --episodes 60000 --seed 0 --workers 2 --tail-events --out $(CORPUS)-tails --quiet

screen-snake: setup $(CORPUS)/manifest.json $(CORPUS)-tails/manifest.json
	GG=$(GG) scripts/screen.sh snake configs/gg-cpu.yaml $(SNAKE_SCREEN_STEPS) 200 "$(SNAKE_SCREEN_SEEDS)" \
	  v1=$(CORPUS) tails=$(CORPUS)-tails

test: setup
	$(PY) -m pytest

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

bench: setup
	$(PY) -m benchmarks $(BENCH_ARGS)

clean:
	rm -rf $(VENV) runs
