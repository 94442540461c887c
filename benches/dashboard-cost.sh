#!/usr/bin/env bash
# What one open dashboard tab costs the daemon while it ingests: a release pinbad with the default
# report set plus 4 timer-tag reports (the shapes of benches/e2e.sh) and history at its defaults,
# loaded by one pinbad-blast run at RATE for the whole benchmark, while a headless Chromium keeps
# the dashboard open (it refreshes every 5 s) in the "on" phases and is closed in the "off" ones.
#
# Per phase it prints one JSON line: the daemon's CPU (utime+stime from /proc/PID/stat) in % of a
# core and in µs per packet, the CPU of its HTTP threads alone ("pinbad-http": where the tab's
# requests are served, the blocking pool included), the report queries served (GET /api/v1/instruments, stage `query`), and what was
# lost (temp_pool_dropped and the kernel's UDP RcvbufErrors). Then the on/off ratios.
#
# Usage: benches/dashboard-cost.sh
# Env:   RATE=50000  PHASE=60 (seconds measured per phase)  PHASES="off on off on"
#        VIEW='#/overview' (the dashboard view the tab keeps open)  SCRIPTS=1000 HOSTS=20
#        HISTORY=10s TICKS=10 (the reports' window, short so that it is full: the steady state)
#        PINBAD_BIN=path: the daemon to measure (default target/release/pinbad)
# Bounded: the blast stops by itself; only 127.0.0.1 is targeted; Chromium and pinbad are
# stopped by PID at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

RATE=${RATE:-50000}
PHASE=${PHASE:-60}
read -r -a PHASES <<< "${PHASES:-off on off on}"
VIEW=${VIEW:-#/overview}
SCRIPTS=${SCRIPTS:-1000}
HOSTS=${HOSTS:-20}
HISTORY=${HISTORY:-10s}
TICKS=${TICKS:-10}
UDP_PORT=${UDP_PORT:-39012}
HTTP_PORT=${HTTP_PORT:-39090}
SETTLE=5
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || { echo "chromium is not installed (apt-get install chromium)" >&2; exit 1; }

# The daemon as it ships; pinbad-blast needs the `corpus` feature (its datagram generator).
cargo build --release --bin pinbad >&2
cargo build --release --features corpus --bin pinbad-blast >&2
work=$(mktemp -d)
PID=""; BPID=""; TPID=""
trap 'kill $TPID $BPID $PID 2>/dev/null || true; wait 2>/dev/null; rm -rf "$work"' EXIT

cat > "$work/pinbad.toml" <<EOF
state_dir = "$work/state"
stats_history = "$HISTORY"
report_ticks = $TICKS
EOF
cat benches/timer-reports.toml >> "$work/pinbad.toml"
"${PINBAD_BIN:-target/release/pinbad}" --config "$work/pinbad.toml" --udp "127.0.0.1:$UDP_PORT" --http "127.0.0.1:$HTTP_PORT" \
  > "$work/stdout" 2> "$work/stderr" &
PID=$!
for _ in $(seq 100); do grep -q "listening http" "$work/stdout" 2>/dev/null && break; sleep 0.1; done
kill -0 "$PID" 2>/dev/null || { echo "pinbad did not start:" >&2; cat "$work/stderr" >&2; exit 1; }
URL="http://127.0.0.1:$HTTP_PORT"
CLK=$(getconf CLK_TCK)

total=$(( (${#PHASES[@]} * (PHASE + SETTLE)) + 2 * SETTLE ))
target/release/pinbad-blast --target "127.0.0.1:$UDP_PORT" --rate "$RATE" --duration "${total}s" \
  --scripts "$SCRIPTS" --hosts "$HOSTS" > "$work/blast.txt" 2>&1 &
BPID=$!
sleep "$SETTLE"

# One line of figures now: cpu ticks, http-thread ticks, packets, queries, dropped, kernel drops.
sample() {
  local cpu http
  cpu=$(awk '{print $14 + $15}' "/proc/$PID/stat")
  # Nanoseconds on CPU of the HTTP threads (schedstat: finer than clock ticks; a blocking-pool
  # thread that exits within a phase takes its share with it, so this is a lower bound).
  http=$(for t in /proc/"$PID"/task/*; do
      if [ "$(cat "$t/comm")" = pinbad-http ]; then awk '{print $1}' "$t/schedstat"; fi; done |
    awk '{s += $1} END {printf "%d\n", s}')
  curl -s "$URL/api/v1/status" > "$work/s.json"
  curl -s "$URL/api/v1/instruments" > "$work/i.json"
  python3 - "$work/s.json" "$work/i.json" "$cpu" "$http" <<'PY'
import json, sys
s, i = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
q = next(x["count"] for x in i["instruments"] if x["name"] == "query")
print(sys.argv[3], sys.argv[4], s["packets_received"], q, s["temp_pool_dropped"], s["kernel_drops"])
PY
}

echo "[" > "$work/rows"
for phase in "${PHASES[@]}"; do
  if [ "$phase" = on ]; then
    "$CHROMIUM" --headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
      --remote-debugging-port=0 --user-data-dir="$work/profile" "$URL/$VIEW" > "$work/chromium.log" 2>&1 &
    TPID=$!
  fi
  sleep "$SETTLE"
  before=$(sample); t0=$(date +%s.%N)
  sleep "$PHASE"
  after=$(sample); t1=$(date +%s.%N)
  python3 - "$phase" "$before" "$after" "$t0" "$t1" "$CLK" <<'PY' | tee -a "$work/rows"
import json, sys
phase, b, a, t0, t1, clk = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
d = [int(float(y)) - int(float(x)) for x, y in zip(b, a)]
secs = t1 - t0
print(json.dumps({"tab": phase, "seconds": round(secs, 1), "pps": round(d[2] / secs),
    "cpu_percent": round(100 * d[0] / clk / secs, 2), "cpu_us_per_packet": round(d[0] / clk * 1e6 / d[2], 3) if d[2] else None,
    "http_cpu_percent": round(100 * d[1] / 1e9 / secs, 3), "queries": d[3], "temp_pool_dropped": d[4], "kernel_drops": d[5]}))
PY
  if [ "$phase" = on ]; then kill "$TPID"; wait "$TPID" 2>/dev/null || true; TPID=""; fi
done
wait "$BPID" || true; BPID=""
python3 - "$work/rows" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
mean = lambda tab, k: sum(r[k] for r in rows if r["tab"] == tab) / max(1, sum(r["tab"] == tab for r in rows))
off, on = mean("off", "cpu_us_per_packet"), mean("on", "cpu_us_per_packet")
print(json.dumps({"cpu_per_packet_ratio_on_off": round(on / off, 4) if off else None,
    "cpu_percent_off": round(mean("off", "cpu_percent"), 2), "cpu_percent_on": round(mean("on", "cpu_percent"), 2),
    "http_cpu_percent_off": round(mean("off", "http_cpu_percent"), 3), "http_cpu_percent_on": round(mean("on", "http_cpu_percent"), 3),
    "dropped": sum(r["temp_pool_dropped"] + r["kernel_drops"] for r in rows)}))
PY
