#!/usr/bin/env bash
# Runs the whole test suite N times (default 20) while two busy loops compete for the CPU, and
# stops at the first failure. Tests must never flake: this is how we check.
#   bash tests/stress.sh [N]
set -u
cd "$(dirname "$0")/.."
n=${1:-20}
cargo test --release --no-run -q || exit 1
sh -c 'while :; do :; done' & busy1=$!
sh -c 'while :; do :; done' & busy2=$!
trap 'kill $busy1 $busy2 2>/dev/null' EXIT
for i in $(seq 1 "$n"); do
  log=$(mktemp)
  if ! cargo test --release -q >"$log" 2>&1; then
    echo "run $i of $n FAILED:"; grep -E "panicked|FAILED|failures" -A3 "$log" | head -40
    echo "full log: $log"; exit 1
  fi
  rm -f "$log"
  echo "run $i of $n passed"
done
echo "$n passed, 0 failed"
