#!/usr/bin/env bash
# Fuzzes every decoder that reads outside input with libFuzzer and AddressSanitizer (the
# harnesses are the Fuzz/ package): builds them, then runs each for SECONDS (default 60) on a
# copy of its seed corpus, Fuzz/Corpus/<harness>/, in a temporary folder, so the committed
# corpus never grows. Prints each harness's executions and exit status, and exits non-zero if
# any found a crash, leak or timeout; the input that did it is kept under
# Fuzz/.build/fuzz-artifacts/<harness>/ and named in the output.
#
#     scripts/fuzz.sh [SECONDS] [HARNESS...]   # e.g. scripts/fuzz.sh 10 (the CI pass)
#     scripts/fuzz.sh --runs N [HARNESS...]    # each until N executions (no time limit)
#     scripts/fuzz.sh --seeds                  # rewrite Fuzz/Corpus/ from the real encoders
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

seconds=60
runs=""
write_seeds=false
if [ "${1:-}" = "--seeds" ]; then
    write_seeds=true
    shift
elif [ "${1:-}" = "--runs" ] && [[ "${2:-}" =~ ^[0-9]+$ ]]; then
    runs=$2
    shift 2
elif [[ "${1:-}" =~ ^[0-9]+$ ]]; then
    seconds=$1
    shift
fi
# Every target in Fuzz/Sources named Fuzz* is a harness, but for the shared FuzzSupport.
harnesses=("$@")
if ((${#harnesses[@]} == 0)); then
    for folder in Fuzz/Sources/Fuzz*/; do
        name=$(basename "$folder")
        [ "$name" = FuzzSupport ] || harnesses+=("$name")
    done
fi

echo "fuzz: building the harnesses (Fuzz/, libFuzzer and AddressSanitizer)"
build_start=$SECONDS
# -parse-as-library: the harnesses have no top-level code; each runs libFuzzer from the entry
# point SwiftPM names (<target>_main). gold's "Cannot export local symbol" lines about
# AddressSanitizer's own symbols are noise and left out.
swift build --package-path Fuzz -c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library 2>&1 \
    | { grep -v "Cannot export local symbol" || true; }
if [ "${PIPESTATUS[0]}" -ne 0 ]; then
    echo "fuzz: the build failed" >&2
    exit 1
fi
echo "fuzz: built in $((SECONDS - build_start)) s"
bin=$(swift build --package-path Fuzz -c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library --show-bin-path)

# The Swift runtime's backtracer would take libFuzzer's crash signals (and the input with
# them); GLib's slice allocator would hide GVariant leaks from LeakSanitizer.
export SWIFT_BACKTRACE=enable=no G_SLICE=always-malloc

if $write_seeds; then
    for harness in "${harnesses[@]}"; do
        rm -rf "Fuzz/Corpus/$harness"
        BATON_FUZZ_WRITE_SEEDS="$PWD/Fuzz/Corpus/$harness" "$bin/$harness"
        echo "fuzz: $harness: $(ls "Fuzz/Corpus/$harness" | wc -l) seeds, $(cat "Fuzz/Corpus/$harness"/* | wc -c) bytes"
    done
    exit 0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/baton-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0
for harness in "${harnesses[@]}"; do
    run="$work/$harness"
    artifacts="$PWD/Fuzz/.build/fuzz-artifacts/$harness"
    mkdir -p "$run/corpus" "$artifacts"
    if [ -d "Fuzz/Corpus/$harness" ]; then cp Fuzz/Corpus/"$harness"/* "$run/corpus/"; fi
    start=$SECONDS
    status=0
    if [ -n "$runs" ]; then limit=(-runs="$runs"); else limit=(-max_total_time="$seconds"); fi
    (cd "$run" && TMPDIR="$run" "$bin/$harness" "${limit[@]}" -rss_limit_mb=2048 -timeout=10 \
        -print_final_stats=1 -artifact_prefix="$artifacts/" corpus >"$run/log" 2>&1) || status=$?
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$run/log")
    echo "fuzz: $harness: ${executions:-?} executions in $((SECONDS - start)) s, exit status $status"
    if [ "$status" -ne 0 ]; then
        failed=1
        grep -v '^"\|^#[0-9]\|NEW_FUNC' "$run/log" | tail -n 60 >&2
        sed -n 's/.*Test unit written to \(.*\)$/fuzz: '"$harness"': input kept at \1/p' "$run/log" >&2
    fi
done
exit "$failed"
