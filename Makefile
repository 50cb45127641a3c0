# The README's two commands: `make demo` (set up, then the main job) and `make test`.
PYTHON ?= python3
VENV ?= .venv
VENV_FLAGS ?=
TORCH ?= torch==2.13.0
PY := $(VENV)/bin/python
GG := $(VENV)/bin/gamegrammar
DEMO ?= runs/demo

.PHONY: setup demo test lint bench reproduce reproduce-bs-cpu reproduce-gg-cpu-long reproduce-gg-cpu-long-head reproduce-gg-cpu-long-sense reproduce-gg-cpu-long-careless screen-bs screen-snake screen-snake-mix finetune-snake-chance reproduce-snake reproduce-snake-gpu reproduce-snake-start screen-augment clean \
	$(addprefix reproduce-,gg31k gg-cpu gg-gpu)

# Installs torch deliberately (the CPU wheel) only when the environment has none:
# a machine with a CUDA torch keeps it (make setup VENV_FLAGS=--system-site-packages,
# or VENV=/path/to/your/env). It says what it does, a line per step, and shows pip's downloads with their
# progress; of the last step's pip lines it leaves out "Requirement already satisfied" (torch and every package
# already there). The pipe keeps pip's exit status in a file: make's sh has no pipefail.
PIP_INSTALL = $(PY) -m pip install --disable-pip-version-check --progress-bar on
# GNU Go (Go's gnugo agent, and the referee of the Go tests: GO.md) is a Debian package installed in /usr/games, often
# off PATH. Where it is missing and this is root with apt-get, step 4 installs it; elsewhere (no apt, not root, no
# network) set-up goes on and the tests that need GNU Go are skipped, each saying so.
GNUGO_FOUND = command -v gnugo 2>/dev/null || { test -x /usr/games/gnugo && echo /usr/games/gnugo; }
GNUGO_APT = apt-get install -y -qq gnugo >/dev/null 2>&1 || { apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq gnugo >/dev/null 2>&1; }
setup: $(VENV)/.installed
$(VENV)/.installed: pyproject.toml
	@echo "setup 1/4: the virtual environment $(VENV)"
	@test -x $(PY) || $(PYTHON) -m venv $(VENV_FLAGS) $(VENV)
	@$(PY) -c "import torch" 2>/dev/null && echo "setup 2/4: torch: keeping the one in $(VENV)" || \
		{ echo "setup 2/4: torch ($(TORCH)), the largest download"; $(PIP_INSTALL) "$(TORCH)"; }
	@echo "setup 3/4: gamegrammar and its dependencies (pip install -e .[dev])"
	@{ $(PIP_INSTALL) -e ".[dev]"; echo $$? > $(VENV)/.pip-status; } | { grep -v "^Requirement already satisfied" || true; }
	@exit "$$(cat $(VENV)/.pip-status)"
	@found="$$($(GNUGO_FOUND))"; if [ -n "$$found" ]; then echo "setup 4/4: GNU Go: keeping $$found"; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then echo "setup 4/4: GNU Go (apt-get install gnugo), Go's referee"; \
		$(GNUGO_APT) || echo "setup 4/4: apt-get could not install gnugo: the tests that need GNU Go are skipped"; \
	else echo "setup 4/4: GNU Go is missing and apt-get is not at hand as root: the tests that need it are skipped"; fi
	@touch $@
	@echo "setup: done ($(GG) --help lists the commands)"

# The main job, small: a corpus, a couple of minutes of training, 200 samples, a report. The corpus is written the way
# the shipped model's was (models/snake: the careless mix, with sense words; make reproduce-gg-gpu-mix-careless-sense),
# so that the brief model and the shipped one are read on the same games and grammar.
SHIPPED_CORPUS_FLAGS = --agents $(SNAKE_MIX_AGENTS_careless-sense) $(SNAKE_MIX_FLAGS_careless-sense)
demo: setup
	rm -rf $(DEMO)/train
	$(GG) generate --episodes 5000 --seed 0 --workers 2 $(SHIPPED_CORPUS_FLAGS) --out $(DEMO)/corpus --overwrite --quiet
	$(GG) corpus stats $(DEMO)/corpus
	$(GG) train fit --config configs/gg-cpu.yaml --data.path $(DEMO)/corpus --run_dir $(DEMO)/train \
		--trainer.max_steps 120 --trainer.val_check_interval 60 --trainer.enable_progress_bar false
	$(GG) evaluate --ckpt $(DEMO)/train/checkpoints/last.ckpt --corpus $(DEMO)/corpus --num 200 \
		--teacher-episodes 50 --out $(DEMO)/report
	@echo "report: $(DEMO)/report/report.md"
	@echo "--- the shipped model (models/snake, its card: models/snake/README.md), read the same way:"
	$(GG) evaluate --ckpt models/snake --corpus $(DEMO)/corpus --num 200 --teacher-episodes 50 --out $(DEMO)/report-shipped
	$(GG) evaluate --table $(DEMO)/report $(DEMO)/report-shipped
	@echo "--- a game each writes, the brief model's beside the shipped model's (the last tick):"
	$(GG) replay --ckpt $(DEMO)/train/checkpoints/last.ckpt --ckpt models/snake --seed 1 --frame -1
	@echo "reports: $(DEMO)/report/report.md (brief), $(DEMO)/report-shipped/report.md (models/snake);" \
		"watch a game: $(GG) replay --ckpt models/snake --html $(DEMO)/replay.html --overwrite"

# The README's results: one corpus, then each CPU preset within its time budget, then 1000 samples each
# at temperature 1.0 (add GPU=1 on a machine with a GPU for the gg-gpu row). One preset alone:
# make reproduce-gg-cpu (it makes the corpus first if there is none). Every run starts afresh.
CORPUS ?= data/corpus60k
RESULTS := gg31k gg-cpu gg-cpu-long $(if $(GPU),gg-gpu)
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

# Snake's grammar options against grammar v1 (issue 20, docs/levers.md "Making the body visible"; tails is
# --tail-events, head is --head-first, sense is --sense): gg-cpu on each design's 60,000-episode corpus, three seeds each at an equal
# budget of SNAKE_SCREEN_STEPS steps (890: what gg-cpu reaches in its 15 minutes on 2 idle cores; fixed steps, so a
# busy machine trains the same models), 1000 samples, and the rules' emergence on held-out episodes (self-collision,
# spawn mass). Two screens on disjoint seeds can share the machine: make screen-snake SNAKE_SCREEN_SEEDS=1 & make screen-snake SNAKE_SCREEN_SEEDS=2 (one thread each).
SNAKE_SCREEN_STEPS ?= 890
SNAKE_SCREEN_SEEDS ?= 1 2 3
TAILS_CORPUS := $(CORPUS)-tails

HEAD_CORPUS := $(CORPUS)-head
SENSE_CORPUS := $(CORPUS)-sense
SENSE_COLUMN_CORPUS := $(CORPUS)-sense-column
SENSE_LIST_CORPUS := $(CORPUS)-sense-list
# The designs a screen trains (each NAME=CORPUS); e.g. SNAKE_SCREEN_DESIGNS="v1 head" leaves tails and sense out.
SNAKE_SCREEN_DESIGNS ?= v1 tails head sense
SNAKE_SCREEN_CORPUS_v1 := $(CORPUS)
SNAKE_SCREEN_CORPUS_tails := $(TAILS_CORPUS)
SNAKE_SCREEN_CORPUS_head := $(HEAD_CORPUS)
SNAKE_SCREEN_CORPUS_sense := $(SENSE_CORPUS)
SNAKE_SCREEN_CORPUS_sense-column := $(SENSE_COLUMN_CORPUS)
SNAKE_SCREEN_CORPUS_sense-list := $(SENSE_LIST_CORPUS)

$(TAILS_CORPUS)/manifest.json: | setup
	$(GG) generate --episodes 60000 --seed 0 --workers 2 --tail-events --out $(TAILS_CORPUS) --quiet

$(HEAD_CORPUS)/manifest.json: | setup
	$(GG) generate --episodes 60000 --seed 0 --workers 2 --head-first --out $(HEAD_CORPUS) --quiet

$(SENSE_CORPUS)/manifest.json: | setup
	$(GG) generate --episodes 60000 --seed 0 --workers 2 --sense --out $(SENSE_CORPUS) --quiet

# sense-column: the sense words and each spawn's column written out (--spawn-column), on corpus60k's games.
$(SENSE_COLUMN_CORPUS)/manifest.json: | setup
	$(GG) generate --episodes 60000 --seed 0 --workers 2 --sense --spawn-column --out $(SENSE_COLUMN_CORPUS) --quiet

# sense-list: the sense words and each spawn's grown body listed before it (--body-list), on corpus60k's games.
$(SENSE_LIST_CORPUS)/manifest.json: | setup
	$(GG) generate --episodes 60000 --seed 0 --workers 2 --sense --body-list --out $(SENSE_LIST_CORPUS) --quiet

screen-snake: setup $(foreach d,$(SNAKE_SCREEN_DESIGNS),$(SNAKE_SCREEN_CORPUS_$(d))/manifest.json)
	ANALYZE=1 GG=$(GG) PY=$(PY) scripts/screen.sh snake configs/gg-cpu.yaml $(SNAKE_SCREEN_STEPS) 1000 "$(SNAKE_SCREEN_SEEDS)" \
	  $(foreach d,$(SNAKE_SCREEN_DESIGNS),$(d)=$(SNAKE_SCREEN_CORPUS_$(d)))

# screen-augment (issue 43; docs/levers.md, "Augmentation that keeps the start"): gg-cpu's 890 steps on the careless mix
# with sense words, with the augmentation that keeps the start (the default) and without it, SCREEN_AUG_SEEDS seeds each,
# 500 samples each. The table's runs were made on a GPU: SCREEN_AUG_ARGS=--trainer.accelerator=gpu. Its "all 8" arm is
# commit d21141a's code, from before issue 43 (the same command in a checkout of that commit).
SCREEN_AUG_SEEDS ?= 1 2 3
SCREEN_AUG_ARGS ?=
screen-augment: setup $(CORPUS)-careless-sense/manifest.json
	TRAIN_ARGS="$(SCREEN_AUG_ARGS)" GG=$(GG) PY=$(PY) scripts/screen.sh augment-start configs/gg-cpu.yaml 890 500 \
	  "$(SCREEN_AUG_SEEDS)" careless-sense=$(CORPUS)-careless-sense
	TRAIN_ARGS="--data.augment false $(SCREEN_AUG_ARGS)" GG=$(GG) PY=$(PY) scripts/screen.sh augment-none configs/gg-cpu.yaml 890 500 \
	  "$(SCREEN_AUG_SEEDS)" careless-sense=$(CORPUS)-careless-sense

# The same screen for levers of the data, not the grammar (docs/levers.md, "A greedy-heavy corpus" and "A careless
# agent"): grammar v1 on corpora of the same 60,000 games' seed with another agent mix. greedy70: greedy-heavy, longer
# games that end in the snake's own body 1.75 times as often. careless: half of the greedy games played by the careless
# agent instead (greedy that slips one tick in ten), so the corpus shows heads entering the body while a safe move existed.
# Tier 2 is also read on corpus60k's held-out episodes, the same self-collisions as every other screen's.
SNAKE_MIX_DESIGNS ?= greedy70 careless
SNAKE_MIX_AGENTS_greedy70 := random=0.15,greedy=0.7,wall_follower=0.15
SNAKE_MIX_AGENTS_careless := random=0.4,greedy=0.2,careless=0.2,wall_follower=0.2
# careless-greedy: the careless games added in place of half of the random ones instead, so the corpus keeps all of
# corpus60k's share of trapped greedy snakes as well as the slips.
SNAKE_MIX_AGENTS_careless-greedy := random=0.2,greedy=0.4,careless=0.2,wall_follower=0.2
# careless-head: the careless mix written head first (a grammar lever and a data lever together); its tier 2 is read
# on corpus60k-head, the same held-out games as corpus60k's written head first (a model reads only its own design).
SNAKE_MIX_AGENTS_careless-head := $(SNAKE_MIX_AGENTS_careless)
SNAKE_MIX_FLAGS_careless-head := --head-first
SNAKE_MIX_HELDOUT_careless-head := $(HEAD_CORPUS)
# careless-sense: the careless mix with the sense option (--sense), so that the body lookup the SENSE words train on
# every tick meets inputs into the body while a safe move exists; tier 2 on corpus60k-sense (corpus60k's held-out games).
SNAKE_MIX_AGENTS_careless-sense := $(SNAKE_MIX_AGENTS_careless)
SNAKE_MIX_FLAGS_careless-sense := --sense
SNAKE_MIX_HELDOUT_careless-sense := $(SENSE_CORPUS)
# careless-sense-column: careless-sense with each spawn's column written out between its X and Y (--spawn-column), so
# that every eat asks the body lookup of a whole column; tier 2 on corpus60k-sense-column (corpus60k's held-out games).
SNAKE_MIX_AGENTS_careless-sense-column := $(SNAKE_MIX_AGENTS_careless)
SNAKE_MIX_FLAGS_careless-sense-column := --sense --spawn-column
SNAKE_MIX_HELDOUT_careless-sense-column := $(SENSE_COLUMN_CORPUS)
# careless-sense-list: careless-sense with the grown body's cells listed, neck first, before each spawn (--body-list), so
# that the spawn is a cell off a list just written; tier 2 on corpus60k-sense-list (corpus60k's held-out games).
SNAKE_MIX_AGENTS_careless-sense-list := $(SNAKE_MIX_AGENTS_careless)
SNAKE_MIX_FLAGS_careless-sense-list := --sense --body-list
SNAKE_MIX_HELDOUT_careless-sense-list := $(SENSE_LIST_CORPUS)
# careless-tails: the careless mix with tail events (--tail-events): every tick that is not a growth tick names the
# cell the tail leaves, a chain a model can follow (the next cell freed is the one entered after the last one freed);
# tier 2 on corpus60k-tails (corpus60k's held-out games).
SNAKE_MIX_AGENTS_careless-tails := $(SNAKE_MIX_AGENTS_careless)
SNAKE_MIX_FLAGS_careless-tails := --tail-events
SNAKE_MIX_HELDOUT_careless-tails := $(TAILS_CORPUS)
heldout = $(or $(SNAKE_MIX_HELDOUT_$(1)),$(CORPUS))

$(CORPUS)-%/manifest.json: | setup
	$(GG) generate --episodes 60000 --seed 0 --workers 2 --agents $(SNAKE_MIX_AGENTS_$*) $(SNAKE_MIX_FLAGS_$*) \
	  --out $(CORPUS)-$* --quiet

# A screen of a training lever on these designs: SNAKE_MIX_TRAIN_ARGS goes to every `train fit`, and
# SNAKE_MIX_SCREEN names the screen's own directories, e.g. make screen-snake-mix SNAKE_MIX_DESIGNS=careless-sense
# SNAKE_MIX_SCREEN=snake-mix-chance10 SNAKE_MIX_TRAIN_ARGS="--model.chance_weight 10" (the spawn's cell weighted 10 times).
SNAKE_MIX_SCREEN ?= snake-mix
SNAKE_MIX_TRAIN_ARGS ?=

screen-snake-mix: setup $(foreach d,$(SNAKE_MIX_DESIGNS),$(CORPUS)-$(d)/manifest.json $(call heldout,$(d))/manifest.json)
	ANALYZE=1 GG=$(GG) PY=$(PY) TRAIN_ARGS="$(SNAKE_MIX_TRAIN_ARGS)" scripts/screen.sh $(SNAKE_MIX_SCREEN) configs/gg-cpu.yaml \
	  $(SNAKE_SCREEN_STEPS) 1000 "$(SNAKE_SCREEN_SEEDS)" $(foreach d,$(SNAKE_MIX_DESIGNS),$(d)=$(CORPUS)-$(d))
	$(foreach d,$(SNAKE_MIX_DESIGNS),for seed in $(SNAKE_SCREEN_SEEDS); do \
	  out=reports/screen-$(SNAKE_MIX_SCREEN)/$(d)-$$seed/analysis-$(notdir $(CORPUS)); \
	  test -f $$out/analysis.json || $(GG) analyze --ckpt runs/screen-$(SNAKE_MIX_SCREEN)/$(d)-$$seed/checkpoints/last.ckpt \
	    --corpus $(call heldout,$(d)) --tiers 2 --out $$out || exit 1; done;)

# gg-cpu-long (issue 20): gg-cpu for 3000 steps (configs/gg-cpu-long.yaml, about 39 minutes; run it in the background),
# on grammar v1, the best design of the screen above; the README's row and grammar v1's model (models/snake-v1). The
# best CPU model (models/snake-cpu) is the same run on the careless mix with sense words: reproduce-gg-cpu-long-mix-careless-sense.
# reproduce-gg-cpu-long-head: the same run on the head-first design (--head-first), to see whether writing the
# head's cell first speeds up learning self-collision once the model starts on it (it has not at 890 steps).
LONG_NAME ?= gg-cpu-long
LONG_CORPUS ?= $(CORPUS)
LONG_ARGS ?=

reproduce-gg-cpu-long: setup $(LONG_CORPUS)/manifest.json
	rm -rf runs/$(LONG_NAME)-final
	$(GG) train fit --config configs/gg-cpu-long.yaml --data.path $(LONG_CORPUS) --run_dir runs/$(LONG_NAME)-final --trainer.enable_progress_bar false $(LONG_ARGS)
	$(GG) evaluate --ckpt runs/$(LONG_NAME)-final/checkpoints/last.ckpt --corpus $(LONG_CORPUS) --num 1000 --temperature 1.0 --out reports/$(LONG_NAME)
	$(GG) analyze --ckpt runs/$(LONG_NAME)-final/checkpoints/last.ckpt --corpus $(LONG_CORPUS) --tiers 2 --out reports/$(LONG_NAME)-analysis

reproduce-gg-cpu-long-head:
	$(MAKE) reproduce-gg-cpu-long LONG_NAME=gg-cpu-long-head LONG_CORPUS=$(HEAD_CORPUS)

# reproduce-gg-cpu-long-sense: the same run on the sense design (--sense), to see how far the body lookup the SENSE
# words train on every tick goes with more steps.
reproduce-gg-cpu-long-sense:
	$(MAKE) reproduce-gg-cpu-long LONG_NAME=gg-cpu-long-sense LONG_CORPUS=$(SENSE_CORPUS)

# reproduce-gg-cpu-long-mix-DESIGN: the same run on one of screen-snake-mix's agent mixes above, and tier 2 read on
# corpus60k's held-out episodes too (the design's held-out corpus), the self-collisions every other row is measured on.
# reproduce-gg-cpu-long-careless is the careless mix's.
LONG_PREFIX ?= gg-cpu-long
reproduce-gg-cpu-long-mix-%:
	$(MAKE) reproduce-gg-cpu-long LONG_NAME=$(LONG_PREFIX)-$* LONG_CORPUS=$(CORPUS)-$*
	$(MAKE) $(call heldout,$*)/manifest.json
	$(GG) analyze --ckpt runs/$(LONG_PREFIX)-$*-final/checkpoints/last.ckpt --corpus $(call heldout,$*) --tiers 2 \
	  --out reports/$(LONG_PREFIX)-$*-analysis-$(notdir $(call heldout,$*))

# reproduce-gg-cpu-2h-mix-DESIGN: gg-cpu-long's recipe for 8000 steps instead of 3000 (the learning rate's cosine over all
# of them): what its 2-hour cap holds on this CPU (71 minutes at the 11,500 tokens/s of an idle machine, 100 at 8,200).
# Two at once on one thread each take longer than the cap: add GG_2H_ARGS="--trainer.max_time 00:04:00:00".
GG_2H_ARGS ?=
reproduce-gg-cpu-2h-mix-%:
	$(MAKE) reproduce-gg-cpu-long-mix-$* LONG_PREFIX=gg-cpu-2h LONG_ARGS="--trainer.max_steps 8000 --trainer.val_check_interval 1000 $(GG_2H_ARGS)"

# reproduce-gg-gpu-mix-DESIGN (issue 20; needs a CUDA GPU): gg-gpu (configs/gg-gpu.yaml, 14.4M parameters, bf16 autocast)
# on one of the mixes above, without dropout, for GPU_STEPS steps (4060: what one H200 ran in 5 minutes; the
# learning rate's cosine ends there), then the long rows' evaluation and tier 2 on the design's held-out corpus.
# reproduce-gg-gpu-mix-careless-sense is the shipped model, models/snake (exported with --dtype bfloat16). GPU_ARGS adds training flags,
# GPU_PREFIX names the run (e.g. GPU_PREFIX=gg-gpu-chance10 GPU_ARGS="--model.chance_weight 10"). The spawn column's GPU run:
# reproduce-gg-gpu-mix-careless-sense-column GPU_PREFIX=gg-gpu-chance3 GPU_ARGS="--model.chance_weight 3" GPU_STEPS=3708
GPU_STEPS ?= 4060
GPU_ARGS ?=
GPU_PREFIX ?= gg-gpu
reproduce-gg-gpu-mix-%: setup
	$(MAKE) $(CORPUS)-$*/manifest.json $(call heldout,$*)/manifest.json
	rm -rf runs/$(GPU_PREFIX)-$*-final
	$(GG) train fit --config configs/gg-gpu.yaml --data.path $(CORPUS)-$* --run_dir runs/$(GPU_PREFIX)-$*-final --trainer.enable_progress_bar false \
	  --model.dropout 0.0 --data.num_workers 4 --trainer.max_steps $(GPU_STEPS) $(GPU_ARGS)
	$(GG) evaluate --ckpt runs/$(GPU_PREFIX)-$*-final/checkpoints/last.ckpt --corpus $(CORPUS)-$* --num 1000 --temperature 1.0 --out reports/$(GPU_PREFIX)-$*
	$(GG) analyze --ckpt runs/$(GPU_PREFIX)-$*-final/checkpoints/last.ckpt --corpus $(call heldout,$*) --tiers 2 \
	  --out reports/$(GPU_PREFIX)-$*-analysis-$(notdir $(call heldout,$*))

reproduce-gg-cpu-long-careless: reproduce-gg-cpu-long-mix-careless

# finetune-snake-chance (issue 20): the GPU run's model (models/snake until this fine-tune replaced it) fine-tuned on this CPU on its own corpus with each
# spawn's cell weighted FT_WEIGHT times (1: the control), 240 steps of 4 packed windows (1.5M tokens; about 45 minutes
# on one thread, two at once), the GPU run's final learning rates, then tier 2 on corpus60k's held-out games.
# FT_TARGETS=exact trains each spawn on the distribution it was drawn from instead of the cell drawn
# (--data.chance_targets exact; run ft-snake-chance$(FT_WEIGHT)-exact). FT_INIT (a checkpoint) and FT_STEPS continue
# such a run: make finetune-snake-chance FT_WEIGHT=1 FT_TARGETS=exact FT_STEPS=480
# FT_INIT=runs/ft-snake-chance1-exact/checkpoints/last.ckpt FT_SEED=8 FT_NAME=ft-snake-chance1-exact-720 (a new seed: new windows).
# FT_ACCUM=N adds N batches into each step (4 windows x N a step, as the GPU run's 32 at N=8), at N times the time a step.
# FT_INIT defaults to the GPU run's bfloat16 weights, which the repository's history keeps (commit 8130978).
FT_WEIGHT ?= 3
FT_TARGETS ?= drawn
GPU_SNAKE ?= runs/gg-gpu-careless-sense-bf16
FT_INIT ?= $(GPU_SNAKE)
FT_STEPS ?= 240
FT_SEED ?= 7
FT_ACCUM ?= 1
FT_NAME ?= ft-snake-chance$(FT_WEIGHT)$(if $(filter exact,$(FT_TARGETS)),-exact)
finetune-snake-chance: setup $(CORPUS)-careless-sense/manifest.json $(SENSE_CORPUS)/manifest.json $(if $(filter $(GPU_SNAKE),$(FT_INIT)),$(GPU_SNAKE)/config.json)
	rm -rf runs/$(FT_NAME)
	$(GG) train fit --config configs/gg-gpu.yaml --data.path $(CORPUS)-careless-sense --run_dir runs/$(FT_NAME) \
	  --trainer.enable_progress_bar false --seed_everything $(FT_SEED) --trainer.accelerator cpu --trainer.precision 32-true \
	  --model.dropout 0.0 --data.batch_size 4 --data.num_workers 1 --trainer.max_steps $(FT_STEPS) --trainer.max_time null \
	  --trainer.accumulate_grad_batches $(FT_ACCUM) --trainer.val_check_interval $$(( $(FT_STEPS) * $(FT_ACCUM) )) --trainer.log_every_n_steps 20 --model.init_from $(FT_INIT) --model.lr 6.0e-5 \
	  --model.muon_lr 0.002 --model.warmup_steps 20 --model.chance_weight $(FT_WEIGHT) --data.chance_targets $(FT_TARGETS)
	$(GG) analyze --ckpt runs/$(FT_NAME)/checkpoints/last.ckpt --corpus $(SENSE_CORPUS) --tiers 2 \
	  --out reports/$(FT_NAME)-analysis-$(notdir $(SENSE_CORPUS))


# models/snake as a commit shipped it, into a folder: $(call snake_at,COMMIT,DIR)
snake_at = mkdir -p $(2) && git archive $(1) models/snake | tar -x -C $(2) --strip-components 2

$(GPU_SNAKE)/config.json:
	$(call snake_at,8130978,$(GPU_SNAKE))

# reproduce-snake: models/snake's second stage (models/snake at commit 45bd48c): the GPU run's weights fine-tuned here
# with exact spawn targets in 180 steps of 16 windows (57 minutes on 2 cores), exported as bfloat16 and read with 1000 samples.
SNAKE_FT = ft-snake-chance1-exact-acc4
reproduce-snake:
	$(MAKE) finetune-snake-chance FT_WEIGHT=1 FT_TARGETS=exact FT_STEPS=180 FT_ACCUM=4 FT_NAME=$(SNAKE_FT)
	$(GG) export runs/$(SNAKE_FT)/checkpoints/last.ckpt runs/$(SNAKE_FT)/export-bf16 --dtype bfloat16 --overwrite
	$(GG) evaluate --ckpt runs/$(SNAKE_FT)/export-bf16 --corpus $(CORPUS)-careless-sense --num 1000 --temperature 1.0 \
	  --out reports/$(SNAKE_FT)-bf16

# reproduce-snake-gpu (issue 20; needs a CUDA GPU): the shipped model, models/snake: the second stage's bfloat16 weights
# (SNAKE_CPU, kept in the repository's history; or runs/$(SNAKE_FT)/export-bf16 from make reproduce-snake) trained on for
# 4000 steps of 32 windows with exact spawn targets on 200,000 new games of the same mix and grammar (seed 1; 5.3 minutes
# on one H200), exported as bfloat16 and read with 1000 samples on the GPU.
SNAKE_CPU ?= runs/ft-snake-chance1-exact-acc4-bf16
SNAKE_GPU_FT = ft-snake-gpu-exact
SNAKE_GPU_CORPUS := data/corpus200k-careless-sense-seed1
SNAKE_GPU_WORKERS ?= 12
$(SNAKE_GPU_CORPUS)/manifest.json: | setup
	$(GG) generate --episodes 200000 --seed 1 --workers 2 --agents $(SNAKE_MIX_AGENTS_careless-sense) $(SNAKE_MIX_FLAGS_careless-sense) \
	  --out $(SNAKE_GPU_CORPUS) --quiet

# A GPU stage of models/snake with exact spawn targets, exported as bfloat16 and read with 1000 samples:
# $(call snake_gpu_stage,RUN,CORPUS,INIT,STEPS,SEED,LR,MUON_LR,WARMUP)
define snake_gpu_stage
	rm -rf runs/$(1)
	$(GG) train fit --config configs/gg-gpu.yaml --data.path $(2) --run_dir runs/$(1) --trainer.enable_progress_bar false \
	  --seed_everything $(5) --model.dropout 0.0 --data.num_workers $(SNAKE_GPU_WORKERS) --trainer.max_steps $(4) --trainer.val_check_interval 500 \
	  --model.init_from $(3) --model.lr $(6) --model.muon_lr $(7) --model.warmup_steps $(8) --data.chance_targets exact
	$(GG) export runs/$(1)/checkpoints/last.ckpt runs/$(1)/export-bf16 --dtype bfloat16 --overwrite
	$(GG) evaluate --ckpt runs/$(1)/export-bf16 --corpus $(CORPUS)-careless-sense --num 1000 --temperature 1.0 --out reports/$(1)-bf16
endef

reproduce-snake-gpu: setup $(SNAKE_GPU_CORPUS)/manifest.json $(CORPUS)-careless-sense/manifest.json $(SNAKE_CPU)/config.json
	$(call snake_gpu_stage,$(SNAKE_GPU_FT),$(SNAKE_GPU_CORPUS),$(SNAKE_CPU),4000,11,2.0e-4,0.006,100)

$(SNAKE_CPU)/config.json:
	$(call snake_at,45bd48c,$(SNAKE_CPU))

# reproduce-snake-start (issue 43; needs a CUDA GPU): models/snake's fourth stage, the shipped model: the third stage's
# bfloat16 weights (models/snake at d21141a) trained on for 1500 steps of 32 windows on 200,000 new games (seed 2), with
# exact spawn targets and the augmentation that keeps the start (identity and transpose); 2.2 minutes on one H200.
SNAKE_GPU ?= runs/ft-snake-gpu-exact-bf16
SNAKE_START_FT = ft-snake-start
SNAKE_START_CORPUS := data/corpus200k-careless-sense-seed2
$(SNAKE_START_CORPUS)/manifest.json: | setup
	$(GG) generate --episodes 200000 --seed 2 --workers 2 --agents $(SNAKE_MIX_AGENTS_careless-sense) $(SNAKE_MIX_FLAGS_careless-sense) \
	  --out $(SNAKE_START_CORPUS) --quiet

$(SNAKE_GPU)/config.json:
	$(call snake_at,d21141a,$(SNAKE_GPU))

reproduce-snake-start: setup $(SNAKE_START_CORPUS)/manifest.json $(CORPUS)-careless-sense/manifest.json $(SNAKE_GPU)/config.json
	$(call snake_gpu_stage,$(SNAKE_START_FT),$(SNAKE_START_CORPUS),$(SNAKE_GPU),1500,12,1.0e-4,0.003,50)

# A worker per core, at most 4 (pytest-xdist; tests/conftest.py gives each its share of torch's threads and starts the
# longest tests first), and the ten slowest tests listed at the end. TEST_ARGS adds pytest options (TEST_ARGS="-n 0": one process).
TEST_ARGS ?=
test: setup
	PYTHONDONTWRITEBYTECODE= $(PY) -m pytest -n auto --maxprocesses 4 --dist worksteal --durations=10 $(TEST_ARGS)

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports

bench: setup
	$(PY) -m benchmarks $(BENCH_ARGS)

clean:
	rm -rf $(VENV) runs

# Go, learned (issue 48; docs/go.md, "Learned"). go-corpus: the scripted corpus and GO_CHUNKS chunks of 200 GNU Go
# games (each its own corpus; each generate resumes where it was interrupted, a finished one is kept): go-cpu reads
# c0 and c1, go-cpu-long all ten (20-70 s a chunk on 2 cores here).
# reproduce-go-cpu: configs/go-cpu.yaml (15 minutes) and its report; reproduce-go-cpu-long: configs/go-cpu-long.yaml
# (9000 steps, 1 h 34 min on the 2-core AMD host), exported as models/go, and its report. go-match: a model and the scripted agents
# against GNU Go through GTP (scripts/go_match.py; GO_MATCH_GAMES per level, resumable in runs/go-match).
.PHONY: go-corpus reproduce-go-cpu reproduce-go-cpu-long go-match
GO_CHUNKS ?= 0 1 2 3 4 5 6 7 8 9
GO_MODEL ?= models/go
GO_MATCH_LEVELS ?= 1 10
GO_MATCH_GAMES ?= 100
go-corpus: setup
	test -f data/go-scripted/manifest.json || $(GG) generate --game go --episodes 20000 --seed 7 --workers 2 --shard-episodes 2500 --out data/go-scripted
	for c in $(GO_CHUNKS); do test -f data/go-gnugo/c$$c/manifest.json || $(GG) generate --game go --agents gnugo=1 --episodes 200 \
	  --seed $$((21 + c)) --val-fraction 0.1 --shard-episodes 50 --workers 2 --out data/go-gnugo/c$$c || exit 1; done

reproduce-go-cpu: go-corpus
	rm -rf runs/go-cpu
	$(GG) train fit --config configs/go-cpu.yaml --trainer.enable_progress_bar false
	$(GG) evaluate --ckpt runs/go-cpu/checkpoints/last.ckpt --corpus data/go-scripted --moves-corpus data/go-scripted data/go-gnugo/c0 \
	  --num 1000 --temperature 1.0 --out reports/go-cpu

reproduce-go-cpu-long: go-corpus
	rm -rf runs/go-cpu-long
	$(GG) train fit --config configs/go-cpu-long.yaml --trainer.enable_progress_bar false
	$(GG) export runs/go-cpu-long/checkpoints/last.ckpt models/go --overwrite
	$(GG) evaluate --ckpt models/go --corpus data/go-scripted --moves-corpus data/go-scripted data/go-gnugo/c0 \
	  --num 1000 --temperature 1.0 --out reports/go-cpu-long

go-match: setup
	$(PY) scripts/go_match.py --ckpt $(GO_MODEL) --levels $(GO_MATCH_LEVELS) --games $(GO_MATCH_GAMES) --out runs/go-match
