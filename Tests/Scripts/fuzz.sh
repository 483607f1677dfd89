#!/usr/bin/env bash
# Builds the libFuzzer targets (Tests/Fuzz/<Target>) and runs each for a bounded time.
#
#   Tests/Scripts/fuzz.sh [SECONDS] [TARGET...]     default: 30 s each, every target
#   FUZZ_SEED=0 Tests/Scripts/fuzz.sh 300            a random seed each run (default seed 1)
#
# Each target is built alone into its own scratch path, as /work/shared/FUZZING.md found works
# with SwiftPM: `--sanitize fuzzer` makes SwiftPM link libFuzzer's `main` (instead of renaming the
# entry point), one combined `-Xswiftc -sanitize=address,fuzzer` instruments the Swift code with
# coverage and ASan (swiftc keeps only the last -sanitize=), and `-DFUZZING` drops the harness's
# replay `main`. The seed corpus is assembled in a temporary directory from the test fixtures and
# Tests/Fuzz/Seeds. Prints executions, coverage (cov/ft) and exec/s per target; exits 1 if any
# target crashed (a trap, an ASan report, a differential mismatch, a leak, a timeout or running out
# of memory), keeping the input in .build/fuzz-artifacts/<Target>/ with the run's log.
set -euo pipefail
export PATH="/opt/swift/usr/bin:$PATH"
cd "$(dirname "$0")/../.."

all_targets=(FuzzHTTP FuzzSMTP FuzzMIME FuzzJSON FuzzJOSE FuzzExtract)
seconds=30
if [ $# -gt 0 ] && [[ "$1" =~ ^[0-9]+$ ]]; then
  seconds=$1
  shift
fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
for target in "${targets[@]}"; do
  if [[ ! " ${all_targets[*]} " =~ " $target " ]]; then
    echo "fuzz: unknown target $target; the targets are ${all_targets[*]}" >&2
    echo "usage: $0 [SECONDS] [TARGET...]" >&2
    exit 64
  fi
done

# Where each target's seeds come from (files directly in these directories).
seed_dirs() {
  case "$1" in
    FuzzHTTP) echo Tests/Fuzz/Seeds/FuzzHTTP ;;
    FuzzSMTP) echo Tests/Fuzz/Seeds/FuzzSMTP ;;
    FuzzMIME) echo Tests/UnderstudyMIMETests/Fixtures Tests/UnderstudyExtractTests/Corpus ;;
    FuzzJSON) echo Tests/UnderstudyJOSETests/Vectors Config ;;
    FuzzJOSE) echo Tests/UnderstudyJOSETests/Vectors ;;
    FuzzExtract) echo Tests/UnderstudyExtractTests/Corpus ;;
  esac
}

# HTTP's head limit is 16 KiB and MIME messages are long: libFuzzer's default (the largest seed,
# at least 4 KiB) would never reach those paths.
max_len() {
  case "$1" in
    FuzzHTTP | FuzzMIME) echo 65536 ;;
    *) echo 0 ;;  # libFuzzer's default
  esac
}

work=$(mktemp -d "${TMPDIR:-/tmp}/understudy-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
# Lazily initialised Swift globals (swift_once) are still referenced at exit but LSan reports them.
printf 'leak:once_slow\n' >"$work/lsan.supp"
export ASAN_OPTIONS="symbolize=1:external_symbolizer_path=/opt/swift/usr/bin/llvm-symbolizer"
export LSAN_OPTIONS="suppressions=$work/lsan.supp"

failed=()
summary=()
for target in "${targets[@]}"; do
  echo "fuzz: building $target"
  if ! swift build -c release --product "$target" --scratch-path .build/fuzz \
      --sanitize fuzzer -Xswiftc -sanitize=address,fuzzer -Xswiftc -DFUZZING >"$work/build.log" 2>&1; then
    cat "$work/build.log" >&2
    echo "fuzz: $target did not build" >&2
    exit 1
  fi
  # Progress lines, and a harmless gold warning about an ASan symbol on every link.
  grep -v -e '^\[' -e "Cannot export local symbol '__asan_extra_spill_area'" "$work/build.log" || true
  binary=.build/fuzz/release/$target

  corpus=$work/$target
  mkdir -p "$corpus"
  for dir in $(seed_dirs "$target"); do
    find "$dir" -maxdepth 1 -type f -exec cp {} "$corpus/" \;
  done
  artifacts=.build/fuzz-artifacts/$target
  rm -rf "$artifacts"
  mkdir -p "$artifacts"
  log=$artifacts/fuzz.log

  echo "fuzz: running $target for $seconds s ($(find "$corpus" -type f | wc -l) seeds)"
  status=0
  # FUZZ_SEED (default 1) fixes libFuzzer's random sequence, so a CI run is repeatable and a failure
  # is reproduced by running again; FUZZ_SEED=0 draws a new seed each run, for exploring.
  "$binary" "$corpus" -seed="${FUZZ_SEED:-1}" -max_total_time="$seconds" -max_len="$(max_len "$target")" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/" >"$log" 2>&1 || status=$?

  # The final status line: "#123456 DONE cov: 812 ft: 3405 corp: 420/97Kb lim: 4096 exec/s: 4115 rss: 380Mb"
  final=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$final")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$final")
  corp=$(sed -n 's/.* corp: \([^ ]*\).*/\1/p' <<<"$final")
  line=$(printf '%-12s %10s execs  cov %6s  ft %7s  %7s exec/s  corpus %s' \
    "$target" "${runs:-?}" "${cov:-?}" "${ft:-?}" "${rate:-?}" "${corp:-?}")
  if [ "$status" -ne 0 ]; then
    failed+=("$target")
    line="$line  FAILED (exit $status)"
    echo "fuzz: $target failed; the end of its log ($log):" >&2
    grep -v -e '^"' -e 'dictionary' "$log" | tail -n 60 >&2
    for artifact in "$artifacts"/*; do
      [ "$artifact" = "$log" ] && continue
      echo "fuzz: input kept as $artifact; replay with: $binary $artifact" >&2
      echo "      (or without sanitizers: swift build --product $target && .build/debug/$target $artifact)" >&2
    done
  fi
  echo "fuzz: $line"
  summary+=("$line")
done

echo "fuzz: summary ($seconds s per target)"
printf '  %s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: crashes in ${failed[*]}; inputs in .build/fuzz-artifacts/" >&2
  exit 1
fi
