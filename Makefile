# schedbot — see README.md. Every target works on a fresh machine with Go 1.26.
GO      ?= go
BIN     ?= bin/schedbot
FUZZTIME ?= 10s
ARGS    ?= chat
# staticcheck for make lint, fetched through the Go module proxy (staticcheck.conf says which checks).
STATICCHECK ?= v0.8.2
# What `schedbot version` prints: the tag or commit this tree is at.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null)

.PHONY: build test bench lint fuzz run clean screenshots

build:
	$(GO) build -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/schedbot

# The race detector needs cgo, and cgo a C compiler: go env reports
# CGO_ENABLED=0 where it finds none, and the tests then run without -race.
# CI (CI=true, whose .ci/run installs gcc) always runs them with it.
RACE ?= $(if $(filter 1,$(shell $(GO) env CGO_ENABLED 2>/dev/null)),-race,)
ifeq ($(CI),true)
RACE = -race
endif

test:
	@$(if $(RACE),:,echo "make test: no C compiler found (cgo is off), so the tests run without -race; install gcc for the race detector")
	$(GO) test $(RACE) ./...

# Benchmarks behind the figures in the issues' closing notes. The bursts run
# a fixed 9 rounds (each is a few seconds of setup) so their median ratios are steady.
bench:
	$(GO) test -run '^$$' -bench . -skip 'BenchmarkBurst10k/(schedbot|one-instance|three-instances)' -benchmem ./...
	$(GO) test -run '^$$' -bench 'BenchmarkBurst10k/schedbot' -benchtime 9x -benchmem ./scheduler
	$(GO) test -run '^$$' -bench 'BenchmarkBurst10k' -benchtime 9x -benchmem ./store/postgres

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK) ./...

# A short run of each fuzz target (go test -fuzz takes one target at a time).
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzCronNext$$' -fuzztime $(FUZZTIME) ./scheduler
	$(GO) test -run '^$$' -fuzz '^FuzzRRuleNext$$' -fuzztime $(FUZZTIME) ./scheduler
	$(GO) test -run '^$$' -fuzz '^FuzzCallArgs$$' -fuzztime $(FUZZTIME) ./functions
	$(GO) test -run '^$$' -fuzz '^FuzzRules$$' -fuzztime $(FUZZTIME) ./selector/rules
	$(GO) test -run '^$$' -fuzz '^FuzzStoredRecords$$' -fuzztime $(FUZZTIME) ./store/bolt

# The console's pages as the browser tests draw them, into docs/screenshots
# (the README shows two). Needs chromium.
screenshots:
	SCHEDBOT_SCREENSHOTS=$(CURDIR)/docs/screenshots $(GO) test -count=1 -run '^TestBrowser_Bolt$$' ./adapters/console

# A terminal conversation on the embedded default (or: make run ARGS=serve).
run:
	$(GO) run ./cmd/schedbot $(ARGS)

clean:
	rm -rf bin
