#!/usr/bin/env bash
# Report ticks into ClickHouse, measured: a release pinbad with the default report set plus 4
# timer-tag reports (as benches/e2e.sh), loaded by pinbad-blast at RATE for DURATION, with a
# ClickHouse sink writing every report's ticks (`reports = "*"`, `sample = 0.0`: no request rows)
# or, interleaved with it, writing request and timer rows instead (`reports` unset, `sample = 1.0`),
# or no sink. Per run it prints: requests, pinbad's CPU per request (utime+stime of the process),
# the sink threads' own CPU per request (pinbad-sink-fleet + pinbad-sink-tx) and, for ticks, per
# row, the rows the sink wrote per second (tick rows; or request + timer rows), and the tick
# rows' mean RowBinary bytes (from the table: each run writes a database of its own).
#
# Usage: benches/fleet.sh [MODES...]   (default: none ticks rows none ticks rows)
#        A mode may name the pinbad binary it runs, e.g. `ticks:/tmp/pinbad-before` (to compare
#        two builds interleaved); target/release/pinbad otherwise.
# Env:   RATE=100000 DURATION=30s HISTORY=15m TICKS=60 (the default 15 s ticks)
#        SCRIPTS=1000 HOSTS=20  OUT=target/fleet.json  NO_BUILD=1: the binaries as they are
# Bounded: every blast run stops by itself after DURATION; only 127.0.0.1 is targeted.
set -euo pipefail
cd "$(dirname "$0")/.."

MODES=("$@")
[ ${#MODES[@]} -gt 0 ] || MODES=(none ticks rows none ticks rows)
RATE=${RATE:-100000}
DURATION=${DURATION:-30s}
HISTORY=${HISTORY:-15m}
TICKS=${TICKS:-60}
SCRIPTS=${SCRIPTS:-1000}
HOSTS=${HOSTS:-20}
OUT=${OUT:-target/fleet.json}
UDP_PORT=${UDP_PORT:-39202}
HTTP_PORT=${HTTP_PORT:-39280}
CH_HTTP=${CH_HTTP:-39223}

if [ -z "${NO_BUILD:-}" ]; then
  cargo build --release --bin pinbad >&2
  cargo build --release --features corpus --bin pinbad-blast >&2
fi
work=$(mktemp -d)
PID=""; CHPID=""
trap 'kill $PID $CHPID 2>/dev/null || true; wait 2>/dev/null; rm -rf "$work"' EXIT
. benches/clickhouse.sh
start_clickhouse "$work/ch" "$CH_HTTP"

CLK=$(getconf CLK_TCK)
rm -f "$OUT.tmp"
run=0
for spec in "${MODES[@]}"; do
  mode=${spec%%:*}
  bin=target/release/pinbad
  [ "$mode" = "$spec" ] || bin=${spec#*:}
  run=$((run + 1))
  db="${mode}_$run"
  rm -rf "$work/state"
  cat > "$work/pinbad.toml" <<EOF
state_dir = "$work/state"
stats_history = "$HISTORY"
report_ticks = $TICKS
EOF
  cat benches/timer-reports.toml >> "$work/pinbad.toml"
  case "$mode" in
    ticks) printf '[[sink]]\nname = "fleet"\nkind = "clickhouse"\nurl = "%s"\ncreate_tables = true\ndatabase = "%s"\nreports = "*"\nsample = 0.0\n' "$CLICKHOUSE_URL" "$db" >> "$work/pinbad.toml" ;;
    rows) printf '[[sink]]\nname = "fleet"\nkind = "clickhouse"\nurl = "%s"\ncreate_tables = true\ndatabase = "%s"\n' "$CLICKHOUSE_URL" "$db" >> "$work/pinbad.toml" ;;
    none) ;;
    *) echo "unknown mode $mode (none, ticks, rows)" >&2; exit 1 ;;
  esac
  curl -s "$CLICKHOUSE_URL" --data-binary "CREATE DATABASE IF NOT EXISTS $db" > /dev/null
  "$bin" --config "$work/pinbad.toml" --udp "127.0.0.1:$UDP_PORT" --http "127.0.0.1:$HTTP_PORT" \
    > "$work/stdout" 2> "$work/stderr" &
  PID=$!
  for _ in $(seq 100); do grep -q "listening http" "$work/stdout" 2>/dev/null && break; sleep 0.1; done
  URL="http://127.0.0.1:$HTTP_PORT"
  sleep 1
  cpu() { awk '{print $14 + $15}' "/proc/$PID/stat"; }
  sink_cpu() {
    for t in /proc/"$PID"/task/*; do
      case "$(cat "$t/comm")" in pinbad-sink-*) awk '{print $14 + $15}' "$t/stat" ;; esac
    done | awk '{s += $1} END {print s + 0}'
  }
  c0=$(cpu); s0=$(sink_cpu); t0=$(date +%s.%N)
  target/release/pinbad-blast --target "127.0.0.1:$UDP_PORT" --rate "$RATE" --duration "$DURATION" \
    --scripts "$SCRIPTS" --hosts "$HOSTS" --check "$URL" --json > "$work/blast.json"
  # Past the next tick's close, so that the run's ticks are written (and their CPU counted).
  sleep "$(awk -v h="$HISTORY" -v t="$TICKS" 'BEGIN {
    n = h + 0; u = substr(h, length(h)); if (u == "m") n *= 60; if (u == "h") n *= 3600; print n / t + 1 }')"
  c1=$(cpu); s1=$(sink_cpu); t1=$(date +%s.%N)
  curl -s "$URL/api/v1/status" > "$work/status.json"
  kill "$PID"; wait "$PID" 2>/dev/null || true; PID=""
  # The tick rows' RowBinary bytes, as the sink wrote them (lengths of one byte but past 127).
  row_bytes=0
  if [ "$mode" = ticks ]; then
    row_bytes=$(curl -s "$CLICKHOUSE_URL" --data-binary "SELECT avg(16 + 3 + length(instance)
      + length(report) + length(kind) + 1 + 1 + arraySum(arrayMap(x -> 1 + length(x), key_names))
      + 1 + arraySum(arrayMap(x -> 1 + length(x), keys)) + 68 + 2 + 10 * length(hist_ids))
      FROM $db.pinba_report_ticks")
  fi
  python3 - "$spec" "$work/blast.json" "$work/status.json" "$c0" "$c1" "$s0" "$s1" "$t0" "$t1" "$CLK" "$DURATION" "$row_bytes" >> "$OUT.tmp" <<'PY'
import json, sys
mode, blast, status = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
c0, c1, s0, s1 = (int(x) for x in sys.argv[4:8])
t0, t1, clk = float(sys.argv[8]), float(sys.argv[9]), int(sys.argv[10])
seconds = float(sys.argv[11].rstrip("s"))
row_bytes = float(sys.argv[12] or 0)
n = status["requests_merged"]
sink = (status["sinks"] or [{}])[0]
ticks = mode.startswith("ticks")
rows = sink.get("tick_rows_sent", 0) if ticks else sink.get("sent", 0) + sink.get("timers_sent", 0)
sink_us = (s1 - s0) / clk * 1e6
print(json.dumps({
    "mode": mode, "requests": n, "merged_per_second": round(n / seconds),
    "sent_pps": round(blast.get("pps", 0)),
    "cpu_us_per_request": (c1 - c0) / clk / n * 1e6,
    "sink_cpu_us_per_request": sink_us / n,
    "sink_cpu_us_per_row": sink_us / rows if ticks and rows else 0,
    "rows_written": rows, "rows_per_request": rows / n, "rows_per_second": rows / seconds,
    "row_bytes": round(row_bytes, 1),
    "ticks_sent": sink.get("ticks_sent", 0), "ticks_dropped": sink.get("ticks_dropped", 0),
    "dropped": sink.get("dropped", 0),
}))
PY
  tail -1 "$OUT.tmp" >&2
done
python3 -c "import json,sys; print(json.dumps([json.loads(l) for l in open(sys.argv[1])], indent=1))" "$OUT.tmp" > "$OUT"
rm -f "$OUT.tmp"
