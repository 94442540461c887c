#!/usr/bin/env bash
# Receive-buffer benchmark: how long pinbad may be off the CPU at a given rate before the kernel
# drops datagrams. For each buffer size and stall, a release pinbad (default report set, its own
# temporary state directory) is loaded by pinbad-blast on loopback for DURATION; STALL_AT into
# the run the whole daemon is stopped (SIGSTOP) for the stall and continued (SIGCONT, from the same
# perl process, so the stall is the sleep between the two), and the run's loss is read back from
# the daemon (blast --check): everything lost here is counted by the kernel (RcvbufErrors).
#
# Usage: benches/stall.sh [BUFFERS...]   (default: 8MiB 32MiB; `udp.recv_buffer`)
# Env:   STALLS="50 100 150 300" (ms)  RATE=100000  DURATION=6s  STALL_AT=3 (s)
#        OUT=target/stall.json (one JSON row per run)
# Bounded: every blast run stops by itself after DURATION; only 127.0.0.1 is targeted; the daemon
# is stopped by PID at the end of each run.
set -euo pipefail
cd "$(dirname "$0")/.."
BUFFERS=("$@")
[ ${#BUFFERS[@]} -gt 0 ] || BUFFERS=(8MiB 32MiB)
STALLS=${STALLS:-50 100 150 300}
RATE=${RATE:-100000}
DURATION=${DURATION:-6s}
STALL_AT=${STALL_AT:-3}
OUT=${OUT:-target/stall.json}
UDP_PORT=${UDP_PORT:-39102}
HTTP_PORT=${HTTP_PORT:-39180}
# The daemon as it ships; pinbad-blast needs the `corpus` feature (its datagram generator).
cargo build --release --bin pinbad >&2
cargo build --release --features corpus --bin pinbad-blast >&2
: > "$OUT"
# Whatever ends the script (an error included), the daemon and the sender are stopped by PID.
PID=""; BPID=""; work=""
trap 'kill $PID $BPID 2>/dev/null || true; wait 2>/dev/null; [ -z "$work" ] || rm -rf "$work"' EXIT
for buffer in "${BUFFERS[@]}"; do
  for stall in $STALLS; do
    work=$(mktemp -d)
    printf 'state_dir = "%s/state"\n[udp]\nrecv_buffer = "%s"\n' "$work" "$buffer" > "$work/pinbad.toml"
    target/release/pinbad --config "$work/pinbad.toml" --udp "127.0.0.1:$UDP_PORT" \
      --http "127.0.0.1:$HTTP_PORT" > "$work/stdout" 2> "$work/stderr" &
    PID=$!
    for _ in $(seq 100); do grep -q "listening http" "$work/stdout" 2>/dev/null && break; sleep 0.1; done
    if ! kill -0 "$PID" 2>/dev/null; then
      echo "pinbad did not start:" >&2; cat "$work/stderr" >&2; exit 1
    fi
    target/release/pinbad-blast --target "127.0.0.1:$UDP_PORT" --rate "$RATE" --duration "$DURATION" \
      --check "http://127.0.0.1:$HTTP_PORT" --json > "$work/blast.json" &
    BPID=$!
    sleep "$STALL_AT"
    perl -e 'kill "STOP", $ARGV[0]; select(undef, undef, undef, $ARGV[1] / 1000); kill "CONT", $ARGV[0];' \
      "$PID" "$stall"
    wait "$BPID"
    granted=$(curl -s "http://127.0.0.1:$HTTP_PORT/api/v1/status" |
      python3 -c 'import json, sys; print(json.load(sys.stdin)["receive_buffer_bytes"])')
    kill "$PID"; wait "$PID" 2>/dev/null || true
    PID=""; BPID=""
    python3 - "$work/blast.json" "$buffer" "$stall" "$RATE" "$granted" >> "$OUT" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
row = {"recv_buffer": sys.argv[2], "granted_bytes": int(sys.argv[5]), "stall_ms": int(sys.argv[3]),
       "rate": int(sys.argv[4]), "sent": b["packets_sent"], "received": b["received"],
       "kernel_drops": b["kernel_drops"], "loss_percent": round(b["loss_percent"], 3)}
print(json.dumps(row))
print(f"recv_buffer {row['recv_buffer']:>6} stall {row['stall_ms']:4} ms: sent {row['sent']}, "
      f"lost in the kernel {row['kernel_drops']} ({row['loss_percent']} %)", file=sys.stderr)
PY
    rm -rf "$work"
  done
done
echo "results in $OUT" >&2
