#!/usr/bin/env bash
# Crash benchmark: what `kill -9` mid-traffic loses of the reports' windows. A release pinbad
# (default config: a 15-minute window in 15 s ticks; the default report set and the benches' 4
# timer-tag reports; its own temporary state directory) is loaded by pinbad-blast on loopback at
# RATE; KILL_AT seconds in, `info`'s count is read and pinbad is killed with SIGKILL while the
# traffic goes on (RUN seconds in all). A second pinbad on the same state directory restores what
# it can from the tick log ({state_dir}/ticklog); its `info` is compared with the first one's:
# what is lost is the open tick (and whatever was merged between the read and the kill). It
# prints the tick log's figures at the kill, the restore (ticks, reports, time) and the counts.
#
# Usage: benches/crash.sh
# Env:   RATE=100000  RUN=90  KILL_AT=80 (s)  PINBAD_BIN=target/release/pinbad
# Bounded: the sender stops by itself after RUN; only 127.0.0.1 is targeted.
set -euo pipefail
cd "$(dirname "$0")/.."

RATE=${RATE:-100000}
RUN=${RUN:-90}
KILL_AT=${KILL_AT:-80}
UDP_PORT=${UDP_PORT:-39202}
HTTP_PORT=${HTTP_PORT:-39280}
BIN=${PINBAD_BIN:-target/release/pinbad}

cargo build --release --bin pinbad >&2
cargo build --release --features corpus --bin pinbad-blast >&2
work=$(mktemp -d)
PID=""; BPID=""
trap 'kill $PID $BPID 2>/dev/null || true; wait 2>/dev/null; rm -rf "$work"' EXIT
cat > "$work/pinbad.toml" <<EOF
state_dir = "$work/state"
EOF
cat benches/timer-reports.toml >> "$work/pinbad.toml"
URL="http://127.0.0.1:$HTTP_PORT"
start() {
  "$BIN" --config "$work/pinbad.toml" --udp "127.0.0.1:$UDP_PORT" --http "127.0.0.1:$HTTP_PORT" \
    > "$work/stdout" 2>> "$work/stderr" &
  PID=$!
  for _ in $(seq 600); do curl -sf "$URL/healthz" > /dev/null && return; sleep 0.1; done
  echo "pinbad did not start:" >&2; cat "$work/stderr" >&2; exit 1
}
info() {
  curl -s "$URL/api/v1/info" | python3 -c 'import json, sys; r = json.load(sys.stdin)["rows"]; print(r[0]["req_count"] if r else 0)'
}

start
target/release/pinbad-blast --target "127.0.0.1:$UDP_PORT" --rate "$RATE" --duration "${RUN}s" > "$work/blast" 2>&1 &
BPID=$!
sleep "$KILL_AT"
before=$(info)
curl -s "$URL/api/v1/status" > "$work/status-killed.json"
kill -9 "$PID"; wait "$PID" 2>/dev/null || true
wait "$BPID" || true
BPID=""
t0=$(date +%s.%N)
start
t1=$(date +%s.%N)
after=$(info)
curl -s "$URL/api/v1/status" > "$work/status-restored.json"
python3 - "$work" "$before" "$after" "$t0" "$t1" <<'PY'
import json, sys
work, before, after, t0, t1 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
killed = json.load(open(f"{work}/status-killed.json"))["ticklog"]
restored = json.load(open(f"{work}/status-restored.json"))
print(json.dumps({
    "info_before_kill": before, "info_after_restart": after,
    "restored_percent": round(100 * after / before, 1) if before else None, "lost": before - after,
    "ticklog_at_kill": {k: killed[k] for k in ("bytes", "segments", "written_ticks", "written_bytes", "dropped_ticks")},
    "restore": restored["ticklog"]["restored"], "pool_after_restart": restored["current_pool_used"],
    "start_to_healthz_s": round(t1 - t0, 2),
}))
PY
