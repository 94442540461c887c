#!/usr/bin/env bash
# Restart benchmark: what a restart under load loses. A release pinbad (default config, its own
# temporary state directory) is loaded by pinbad-blast on loopback at RATE; FILL into the run it
# gets SIGTERM (it writes its snapshot and exits) and a second pinbad is started at once on the
# same ports and state directory (it restores the snapshot); the sender goes on for AFTER more.
# Then, with everything merged, the second daemon's `info` (whose window, `stats_history`, covers
# the whole run) holds every request either daemon merged, and the loss is what was sent and is
# not there. Split: what the second daemon counted itself (`kernel_drops` while its receive buffer
# overflowed, `temp_pool_dropped` while its temp ring did), and the rest, lost by the first daemon
# while it wrote its snapshot (its sockets unread) and between the two (refused sends are retried
# by the sender, then counted as `dropped`).
#
# With ACTIVATE=1 the sockets are held across the restart as a systemd .socket unit holds them
# (benches/hold_sockets.py passes them to each daemon, `contrib/systemd/pinbad.socket`): what is
# sent between the two daemons waits in the socket instead of being refused.
#
# Usage: benches/restart.sh [RUNS]   (default 1)
# Env:   RATE=100000  FILL=40 (s)  AFTER=20 (s)  PINBAD_BIN=target/release/pinbad  ACTIVATE=
#        HISTORY= (`stats_history`, e.g. 3m; the default 15m; it must cover the whole run)
#        TEMP= (`temp_pool_memory`, e.g. 1GiB; the default 256MiB)
#        OUT=target/restart.json (one JSON row per run)
# Bounded: the sender stops by itself after FILL + AFTER + 30 s at most; only 127.0.0.1 is
# targeted; both daemons are stopped by PID.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-1}
RATE=${RATE:-100000}
FILL=${FILL:-40}
AFTER=${AFTER:-20}
HISTORY=${HISTORY:-}
TEMP=${TEMP:-}
OUT=${OUT:-target/restart.json}
UDP_PORT=${UDP_PORT:-39202}
HTTP_PORT=${HTTP_PORT:-39280}
# The daemon as it ships; pinbad-blast needs the `corpus` feature (its datagram generator).
cargo build --release --bin pinbad >&2
cargo build --release --features corpus --bin pinbad-blast >&2
BIN=$(realpath "${PINBAD_BIN:-target/release/pinbad}")
ACTIVATE=${ACTIVATE:-}
root=$(pwd)
: > "$OUT"
PID=""; BPID=""; work=""; HOLDER_PID=""
trap 'kill $PID $BPID $HOLDER_PID 2>/dev/null || true; wait 2>/dev/null; [ -z "$work" ] || rm -rf "$work"' EXIT
status() { curl -s "http://127.0.0.1:$HTTP_PORT/api/v1/status"; }
start() { # $1: log name
  if [ -n "$ACTIVATE" ]; then
    echo "start $1" >&"${HOLDER[1]}"
    read -r PID <&"${HOLDER[0]}"
  else
    "$BIN" --config "$work/pinbad.toml" --udp "127.0.0.1:$UDP_PORT" --http "127.0.0.1:$HTTP_PORT" \
      > "$work/$1.stdout" 2> "$work/$1.stderr" &
    PID=$!
  fi
}
stop() { # $1: signal; waits until the daemon has exited
  kill "-$1" "$PID"
  if [ -n "$ACTIVATE" ]; then
    while kill -0 "$PID" 2>/dev/null; do sleep 0.01; done
  else
    wait "$PID" 2>/dev/null || true
  fi
}
wait_http() { # $1: log name; seconds waited on stdout
  for _ in $(seq 1200); do grep -q "listening http" "$work/$1.stdout" 2>/dev/null && return; sleep 0.05; done
  echo "pinbad did not start:" >&2; cat "$work/$1.stderr" >&2; exit 1
}
for run in $(seq "$RUNS"); do
  work=$(mktemp -d)
  printf 'state_dir = "%s/state"\n' "$work" > "$work/pinbad.toml"
  [ -z "$HISTORY" ] || printf 'stats_history = "%s"\n' "$HISTORY" >> "$work/pinbad.toml"
  [ -z "$TEMP" ] || printf 'temp_pool_memory = "%s"\n' "$TEMP" >> "$work/pinbad.toml"
  if [ -n "$ACTIVATE" ]; then
    coproc HOLDER { cd "$work" && exec python3 "$root/benches/hold_sockets.py" \
      "127.0.0.1:$UDP_PORT" "127.0.0.1:$HTTP_PORT" "$BIN" --config "$work/pinbad.toml"; }
    read -r _ready <&"${HOLDER[0]}"
  fi
  start first; wait_http first
  target/release/pinbad-blast --target "127.0.0.1:$UDP_PORT" --rate "$RATE" \
    --duration "$((FILL + AFTER))s" --json > "$work/blast.json" &
  BPID=$!
  sleep "$FILL"
  stopped=$(date +%s.%N)
  stop TERM
  exited=$(date +%s.%N)
  start second; wait_http second
  up=$(date +%s.%N)
  wait "$BPID"; BPID=""
  # Everything the second daemon accepted is merged or counted as dropped, twice in a row.
  prev=""
  for _ in $(seq 600); do
    now=$(status | python3 -c 'import json,sys; s=json.load(sys.stdin); print(s["requests_accepted"] == s["requests_merged"] + s["temp_pool_dropped"], s["requests_merged"])')
    [ "${now%% *}" = True ] && [ "$now" = "$prev" ] && break
    prev=$now; sleep 0.5
  done
  curl -s "http://127.0.0.1:$HTTP_PORT/api/v1/info" > "$work/info.json"
  status > "$work/status.json"
  stop TERM
  PID=""
  if [ -n "$ACTIVATE" ]; then
    eval "exec ${HOLDER[1]}>&-"
    wait "$HOLDER_PID" 2>/dev/null || true
    HOLDER_PID=""
  fi
  python3 - "$work" "$stopped" "$exited" "$up" "$RATE" "$BIN" "${ACTIVATE:+1}" >> "$OUT" <<'PY'
import json, re, sys
work, stopped, exited, up, rate, binary, activate = sys.argv[1:]
b = json.load(open(f"{work}/blast.json"))
s = json.load(open(f"{work}/status.json"))
info = json.load(open(f"{work}/info.json"))
kept = info["rows"][0]["req_count"]
sent = b["packets_sent"]
second = s["kernel_drops"] + s["temp_pool_dropped"]
row = {"binary": binary, "activate": activate == "1", "rate": int(rate), "sent": sent, "refused_then_dropped": b["packets_dropped"],
       "kept": kept, "lost": sent - kept,
       "second_kernel_drops": s["kernel_drops"], "second_temp_pool_dropped": s["temp_pool_dropped"],
       "first_lost": sent - kept - second,
       "stop_s": round(float(exited) - float(stopped), 2),
       "start_s": round(float(up) - float(exited), 2),
       "restore_s": round(s["snapshot"]["restore_ms"] / 1000, 2),
       "restored_requests": s["snapshot"]["restored_requests"]}
print(json.dumps(row))
print(f"{binary}{' (sockets held)' if activate == '1' else ''}: sent {sent}, kept {kept}, lost {row['lost']} "
      f"(second daemon: kernel {row['second_kernel_drops']}, temp ring {row['second_temp_pool_dropped']}; "
      f"first daemon and between: {row['first_lost']}); stop {row['stop_s']} s, "
      f"start {row['start_s']} s (restore {row['restore_s']} s, {row['restored_requests']} requests)",
      file=sys.stderr)
PY
  # What both daemons said about the restart (snapshot, saved and dropped requests).
  grep -hE 'Snapshot|Requests|dropped' "$work/first.stderr" "$work/second.stderr" | cut -c1-240 >&2 || true
  rm -rf "$work"; work=""
done
