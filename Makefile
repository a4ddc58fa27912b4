# Thin wrappers over scripts/: each target sets everything up first.
.PHONY: setup run test bench

setup:
	./scripts/setup.sh

run:
	./scripts/run.sh

test:
	./scripts/test.sh

bench:
	./scripts/bench.sh
