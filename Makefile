# Gallop's two commands: `make run` sets up and opens the window on the demo
# scene; `make test` runs every test. See README.md.

GO            ?= go
VALIDATOR_VER := 2.0.0-dev.3.10
NPM_DIR       := $(CURDIR)/.cache/npm
VALIDATOR     := $(NPM_DIR)/node_modules/gltf-validator/package.json
THREE_VER     := 0.187.0
THREE         := $(NPM_DIR)/node_modules/three/package.json
FUZZRUNS      ?= 500000

.PHONY: run setup setup-test build test lint fuzz bench clean

# XDG_RUNTIME_DIR: GTK and Mesa complain on every start without one (a
# fresh container or an ssh session has none); a private one is made.
run: setup build
	@if [ -z "$$XDG_RUNTIME_DIR" ]; then export XDG_RUNTIME_DIR=$$(mktemp -d /tmp/gallop-runtime-XXXXXX); fi; ./gallop

setup:
	@scripts/setup.sh

setup-test:
	@scripts/setup.sh --test

# The first build compiles Dear ImGui's C++ (cimgui-go), whose compiler
# warnings run to hundreds of lines: they go to .cache/build.log, shown
# whole only when the build fails.
build:
	@mkdir -p .cache
	@echo "building gallop (the first build compiles Dear ImGui: a few minutes; log in .cache/build.log)"
	@if ! $(GO) build -o gallop . > .cache/build.log 2>&1; then cat .cache/build.log; exit 1; fi

$(VALIDATOR):
	npm install --silent --no-audit --no-fund --prefix $(NPM_DIR) gltf-validator@$(VALIDATOR_VER)

# three.js, the web's reference glTF loader: the tests play Gallop's exports
# with its GLTFLoader and AnimationMixer (scripts/three-positions.mjs).
# After the validator, into the same folder: two npm installs at once in
# one prefix would race.
$(THREE): | $(VALIDATOR)
	npm install --silent --no-audit --no-fund --save-exact --prefix $(NPM_DIR) three@$(THREE_VER)

# Every test, with the shared data, the GUI, the glTF validator, Blender,
# three.js and a Slurm cluster required (a test that needs one fails when
# it is missing instead of skipping). When no Slurm cluster answers,
# scripts/with-slurm.sh starts the single-node one of scripts/slurm-local.sh
# for the tests and stops it after them, whether they pass or not.
# -p 1: one package at a time, so the GUI tests that measure rates (solver
# updates per second while dragging) have the machine to themselves. Then
# the solvers again with the purego tag: the Go code the assembly kernels
# stand in for on amd64, as other machines run it.
test: setup-test $(VALIDATOR) $(THREE) lint
	scripts/with-slurm.sh env GALLOP_REQUIRE_DATA=1 GALLOP_REQUIRE_GUI=1 GALLOP_REQUIRE_VALIDATOR=1 GALLOP_REQUIRE_BLENDER=1 \
		GALLOP_REQUIRE_THREE=1 GALLOP_REQUIRE_SLURM=1 GALLOP_NPM_DIR=$(NPM_DIR)/node_modules \
		$(GO) test -p 1 -count=1 -timeout 60m ./...
	$(GO) test -count=1 -tags purego ./solver/...
	$(MAKE) fuzz

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.6.1 ./...

# Short fuzzing runs of the file readers and the mesh simplifier, FUZZRUNS inputs each (8 to 60 s
# each on these 2-core machines). A count, not a duration: Go 1.26's fuzzing
# coordinator can report its own -fuzztime deadline as a failure ("context
# deadline exceeded", golang/go#75804, fixed in Go 1.27), which a count
# never reaches. A new input that reaches new code is minimised before the
# fuzzer counts it and goes on; minimising a multi-kilobyte glTF input for
# seconds at a time is what held FuzzReadGLB at about one input per second,
# so minimisation stops after 200 runs.
# Each reader's target also checks that it allocates in proportion to its
# input (internal/fuzzbound).
FUZZ = $(GO) test -run '^$$' -fuzztime $(FUZZRUNS)x -fuzzminimizetime 200x -fuzz
fuzz:
	$(FUZZ) '^FuzzReadOBJ$$' ./assets
	$(FUZZ) '^FuzzParseFloatField$$' ./assets
	$(FUZZ) '^FuzzReadGLB$$' ./assets
	$(FUZZ) '^FuzzReadProject$$' ./assets
	$(FUZZ) '^FuzzReadEnsembleGroups$$' ./assets
	$(FUZZ) '^FuzzReadEnsembleAttachments$$' ./assets
	$(FUZZ) '^FuzzReadParams$$' ./tools/dynamics
	$(FUZZ) '^FuzzRead$$' ./internal/shard
	$(FUZZ) '^FuzzParseGraph$$' ./tools/ensemble
	$(FUZZ) '^FuzzModelGobDecode$$' ./tools/ensemble
	$(FUZZ) '^FuzzSimplify$$' ./solver/decimate

# Performance figures as JSON lines; starts Xvfb for the viewport figures
# when there is no display.
bench: setup build
	@if [ -n "$$DISPLAY" ]; then ./gallop bench; else \
		Xvfb :77 -screen 0 1280x800x24 -nolisten tcp -noreset & xpid=$$!; sleep 1; \
		DISPLAY=:77 ./gallop bench; status=$$?; kill $$xpid; exit $$status; fi

clean:
	rm -rf gallop .cache
