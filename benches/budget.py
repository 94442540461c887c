#!/usr/bin/env python3
"""Memory budget benchmark at full scale (issue 42): the two runs that once took pinbad past any
bound, against a release pinbad with the default configuration and `limits.max_memory` = BUDGET
("auto" by default: half the host's memory; e.g. BUDGET=2GiB for a modest host).

1. flood: NAMES unique script names (3M), sent by pinbad-blast from a replay file at RATE (100k/s);
   then a real new script, sent until report_by_script_name has its row: how long that took.
2. reports: REPORTS reports (256) created through the API (2-4 keys each, script, host, server,
   status), then TRAFFIC_RATE (20k/s) requests over 20,000 scripts for TRAFFIC_S (60 s);
   DEFINE=startup: the same reports as [[report]] tables in the configuration instead.
3. restart: RESTART_NAMES unique names (1M) as in 1, then a stop (SIGTERM): how long it took, RSS
   when signalled and at the stop's peak, the snapshot's size; then a start on the same state
   directory: how long until the snapshot was restored and /healthz answered, RSS after the
   restore, and the first RESTART_S seconds (40 s: two 15-second ticks, whose folds move the
   restored stages into their reports) with TRAFFIC_RATE requests over 20,000 scripts, sampled
   as in the other runs. Not in the default RUNS (RUNS=restart).

While each runs, every 0.5 s: the process's RSS (VmRSS), what the budget accounts, whether it is
tight, and how long /healthz took to answer. Prints one line per run: peak RSS, the budget,
refusals, /healthz's p50/p99/max and the requests merged vs sent.

Usage: benches/budget.py   (cargo builds the binaries first)
Env:   RUNS=flood,reports BUDGET=auto NAMES=3000000 NAME_BYTES=0 (a query string of that many bytes
       after each flood name: long names make the dictionary the budget's largest share) RATE=100000 REPORTS=256 TRAFFIC_RATE=20000 TRAFFIC_S=60
       DEFINE=api MAX_REPORTS=1000 (limits.max_reports) RESTART_NAMES=1000000 RESTART_S=40
       DUMP=1 (what is accounted, by part, at its peak and every sample) NO_BUILD=1 PINBAD_BIN= BLAST_BIN=
Bounded: every sender stops by itself; only 127.0.0.1 is targeted; pinbad is stopped by PID.
"""
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUDGET = os.environ.get("BUDGET", "auto")
NAMES = int(os.environ.get("NAMES", 3_000_000))
NAME_BYTES = int(os.environ.get("NAME_BYTES", 0))
RATE = int(os.environ.get("RATE", 100_000))
REPORTS = int(os.environ.get("REPORTS", 256))
TRAFFIC_RATE = int(os.environ.get("TRAFFIC_RATE", 20_000))
TRAFFIC_S = int(os.environ.get("TRAFFIC_S", 60))
BIN = os.environ.get("PINBAD_BIN", os.path.join(ROOT, "target/release/pinbad"))
BLAST = os.environ.get("BLAST_BIN", os.path.join(ROOT, "target/release/pinbad-blast"))
DUMP = bool(os.environ.get("DUMP"))
DEFINE = os.environ.get("DEFINE", "api")
MAX_REPORTS = int(os.environ.get("MAX_REPORTS", 1000))
RESTART_NAMES = int(os.environ.get("RESTART_NAMES", 1_000_000))
RESTART_S = int(os.environ.get("RESTART_S", 40))
SHAPES = [["script_name", "hostname"], ["script_name", "server_name", "status"],
          ["hostname", "script_name", "server_name"], ["script_name", "status", "hostname", "server_name"]]


def free_port(kind):
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_bytes(number, value):
    return varint(number << 3 | 2) + varint(len(value)) + value


def field_varint(number, value):
    return varint(number << 3) + varint(value)


def field_float(number, value):
    return varint(number << 3 | 5) + struct.pack("<f", value)


def request(script):
    """A Pinba.Request (proto/pinba.proto) with every required field."""
    return (
        field_bytes(1, b"web1")
        + field_bytes(2, b"example.com")
        + field_bytes(3, script)
        + field_varint(4, 1)
        + field_varint(5, 1000)
        + field_varint(6, 2 << 20)
        + field_float(7, 0.05)
        + field_float(8, 0.01)
        + field_float(9, 0.001)
        + field_varint(16, 200)
    )


class Pinbad:
    def __init__(self, work, reports=()):
        self.work = work
        self.udp, self.http = free_port(socket.SOCK_DGRAM), free_port(socket.SOCK_STREAM)
        with open(os.path.join(work, "pinbad.toml"), "w") as f:
            f.write(f'state_dir = "{work}/state"\n[limits]\nmax_memory = "{BUDGET}"\nmax_reports = {MAX_REPORTS}\n[mysql]\nlisten = \"\"\n')
            for name, keys in reports:
                f.write(f'[[report]]\nname = "{name}"\nkeys = {json.dumps(keys)}\n')
        self.stderr = open(os.path.join(work, "stderr"), "w")
        self.proc = subprocess.Popen(
            [BIN, "--config", os.path.join(work, "pinbad.toml"),
             "--udp", f"127.0.0.1:{self.udp}", "--http", f"127.0.0.1:{self.http}"],
            stdout=subprocess.DEVNULL, stderr=self.stderr)
        deadline = time.time() + 60
        while True:
            try:
                self.get("/healthz")
                return
            except (urllib.error.URLError, ConnectionError):
                if time.time() > deadline or self.proc.poll() is not None:
                    sys.exit("pinbad did not start: " + open(os.path.join(work, "stderr")).read())
                time.sleep(0.1)

    def get(self, path, timeout=30):
        with urllib.request.urlopen(f"http://127.0.0.1:{self.http}{path}", timeout=timeout) as r:
            return r.read()

    def post(self, path, body):
        req = urllib.request.Request(f"http://127.0.0.1:{self.http}{path}", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def status(self):
        return json.loads(self.get("/api/v1/status"))

    def rss(self):
        return (proc_kib(self.proc.pid, "VmRSS:") or 0) << 10

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(120)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class Sampler(threading.Thread):
    """Every 0.5 s: RSS, the budget's figures, /healthz's time."""

    def __init__(self, d):
        super().__init__(daemon=True)
        self.d, self.stop_flag = d, threading.Event()
        self.peak_rss, self.peak_used, self.health, self.tight_seen = 0, 0, [], False
        self.t0, self.at_peak, self.series = time.monotonic(), None, []

    def run(self):
        while not self.stop_flag.is_set():
            self.peak_rss = max(self.peak_rss, self.d.rss())
            t = time.monotonic()
            try:
                self.d.get("/healthz", timeout=10)
                self.health.append(time.monotonic() - t)
            except Exception:
                self.health.append(float("inf"))
            st = self.d.status()
            m = st["memory"]
            if DUMP and m["used_bytes"] > self.peak_used:
                self.at_peak = parts(st)
            if DUMP:
                self.series.append((time.monotonic() - self.t0, parts(st, brief=True)))
            self.peak_used = max(self.peak_used, m["used_bytes"])
            self.tight_seen |= m["tight"] == 1
            self.stop_flag.wait(0.5)

    def finish(self):
        self.stop_flag.set()
        self.join()


def parts(st, brief=False):
    """DUMP=1: what the budget accounts, by part: the reserved part, the dictionary, the reports
    (by their published memory_bytes) and the rest (family stages, taps' holdings)."""
    m, mib = st["memory"], lambda b: round(b / (1 << 20), 1)
    reports = sum(r["memory_bytes"] for r in st["reports"])
    out = {"used": mib(m["used_bytes"]), "rss": mib(m["resident_bytes"]), "tight": m["tight"],
           "reserved": mib(m["reserved_bytes"]), "dictionary": mib(st.get("dictionary_bytes", 0)),
           "reports": mib(reports), "rows": sum(r["rows"] or 0 for r in st["reports"]),
           "rest": mib(m["used_bytes"] - m["reserved_bytes"] - st.get("dictionary_bytes", 0) - reports
                       - sum(st.get(t, {}).get("memory_bytes", 0) for t in ("history", "ticklog"))
                       - m.get("outliving_bytes", 0))}
    for tap in ("history", "ticklog"):
        if "memory_bytes" in st.get(tap, {}):
            out[tap] = mib(st[tap]["memory_bytes"])
    if "outliving_bytes" in m:
        out["outliving"] = mib(m["outliving_bytes"])
    if not brief:
        rs = sorted(st["reports"], key=lambda r: -r["memory_bytes"])
        out["top"] = [(r["name"], mib(r["memory_bytes"]), r["rows"]) for r in rs[:8]]
    return out


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))] * 1000 if xs else float("nan")


def summary(name, d, s, extra):
    st = d.status()
    m = st["memory"]
    mib = lambda b: b / (1 << 20)
    share = lambda b: 100 * b / m["limit_bytes"]
    print(f"{name}: RSS peak {mib(s.peak_rss):,.0f} MiB ({share(s.peak_rss):.0f} %), accounted peak "
          f"{mib(s.peak_used):,.0f} MiB ({share(s.peak_used):.0f} %), "
          f"budget {mib(m['limit_bytes']):,.0f} MiB (tight seen: {s.tight_seen}, episodes "
          f"{m['tight_episodes']}); refused: names {m['names_refused']:,}, rows {m['rows_refused']:,}, "
          f"reports {m['reports_refused']:,}; /healthz p50 {pct(s.health, 0.5):.1f} ms, p99 "
          f"{pct(s.health, 0.99):.1f} ms, max {pct(s.health, 1.0):.1f} ms over {len(s.health)} polls; "
          f"merged {st['requests_merged']:,} (temp ring dropped {st['temp_pool_dropped']:,}); {extra}",
          flush=True)


def dump(s):
    """DUMP=1: the parts at the accounted peak, and the series (MiB), one sample a line."""
    if not DUMP:
        return
    print("at the accounted peak:", s.at_peak)
    for t, p in s.series:
        print(f"  {t:6.1f} s", p)


def send_flood(work, d, names):
    """Sends `names` unique script names at RATE from a replay file and waits until the daemon
    merged (or dropped at its temporary ring) every request it accepted: the seconds it took."""
    path = os.path.join(work, "flood.replay")
    with open(path, "wb") as f:
        for i in range(names):
            r = request(b"/flood/%08d.php" % i + (b"?" + b"q" * NAME_BYTES if NAME_BYTES else b""))
            f.write(struct.pack("<I", len(r)) + r)
    t = time.monotonic()
    subprocess.run([BLAST, "--target", f"127.0.0.1:{d.udp}", "--replay", path, "--rate", str(RATE),
                    "--count", str(names)], check=True, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        st = d.status()
        if st["requests_accepted"] == st["requests_merged"] + st["temp_pool_dropped"]:
            break
        time.sleep(0.5)
    os.remove(path)
    return time.monotonic() - t


def flood(work):
    d = Pinbad(work)
    s = Sampler(d)
    s.start()
    took = send_flood(work, d, NAMES)
    # After the flood: a real new script, sent every 0.1 s until report_by_script_name has its
    # row (the budget eased: the flood's names no row holds evicted, the reports' rows folded).
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    real, t_real, got = request(b"/real.php"), time.monotonic(), None
    tight_at_stop = d.status()["memory"]["tight"]
    while time.monotonic() - t_real < 180:
        sock.sendto(real, ("127.0.0.1", d.udp))
        rows = json.loads(d.get("/api/v1/reports/report_by_script_name?filter=script_name:/real.php"))["rows"]
        if rows:
            got = time.monotonic() - t_real
            break
        time.sleep(0.1)
    s.finish()
    st = d.status()
    ev = next((i for i in json.loads(d.get("/api/v1/instruments"))["instruments"] if i["name"] == "evict"),
              {"count": 0, "mean_ns": 0})
    summary("flood", d, s, f"{NAMES:,} unique names sent in {took:.1f} s, dictionary "
            f"{st['dictionary_size']:,} strings; evicted {st['memory'].get('names_evicted', 0):,} in "
            f"{ev['count']} passes of {ev['mean_ns'] / 1e6:.1f} ms on average; "
            f"tight when it stopped: {tight_at_stop}; a new script's row "
            + (f"{got:.1f} s after" if got is not None else "not within 180 s"))
    dump(s)
    d.stop()


def reports(work):
    defs = [(f"api_{i}", SHAPES[i % 4]) for i in range(REPORTS)]
    d = Pinbad(work, defs if DEFINE == "startup" else ())
    s = Sampler(d)
    s.start()
    created, refused = (REPORTS, None) if DEFINE == "startup" else (0, None)
    for name, keys in defs if DEFINE != "startup" else ():
        code, body = d.post("/api/v1/reports", {"name": name, "keys": keys})
        if code == 201:
            created += 1
        elif code == 409:
            refused = body
        else:
            sys.exit(f"POST /api/v1/reports: {code} {body}")
    blast = subprocess.run([BLAST, "--target", f"127.0.0.1:{d.udp}", "--rate", str(TRAFFIC_RATE),
                            "--duration", f"{TRAFFIC_S}s", "--scripts", "20000", "--hosts", "50",
                            "--check", f"http://127.0.0.1:{d.http}", "--json"],
                           check=True, capture_output=True, text=True)
    blast = json.loads(blast.stdout)
    s.finish()
    summary("reports", d, s, f"{created} of {REPORTS} reports {'defined at start-up' if DEFINE == 'startup' else 'created'} ({'a 409: ' + refused['error'] if refused else 'none refused'}); "
            f"{TRAFFIC_S} s at {TRAFFIC_RATE:,}/s: sent {blast.get('packets_sent'):,}, lost {blast.get('loss_packets')}")
    dump(s)
    d.stop()


def proc_kib(pid, field):
    """A field (kB) of /proc/PID/status; None once the process is gone (or a zombie)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def restart(work):
    d = Pinbad(work)
    took = send_flood(work, d, RESTART_NAMES)
    st = d.status()
    pid = d.proc.pid
    before = proc_kib(pid, "VmRSS:")
    with open(f"/proc/{pid}/clear_refs", "w") as f:
        f.write("5")  # VmHWM from here on: the stop's own peak
    peak, t = before, time.monotonic()
    d.proc.terminate()
    while d.proc.poll() is None:
        hwm = proc_kib(pid, "VmHWM:")
        peak = max(peak, hwm or 0)
        time.sleep(0.01)
    stop_s = time.monotonic() - t
    with open(os.path.join(work, "stderr")) as f:
        stop_log = [l.strip() for l in f if any(w in l for w in ("Snapshot written", "Stopped", "deadline"))]
    snapshot = os.path.join(work, "state", "snapshot.bin")
    size = os.path.getsize(snapshot) if os.path.exists(snapshot) else 0
    print(f"restart: {RESTART_NAMES:,} unique names sent and merged in {took:.1f} s (dictionary "
          f"{st['dictionary_size']:,} strings); the stop took {stop_s:.2f} s (rc {d.proc.returncode}), "
          f"RSS {before >> 10:,} MiB when signalled, {peak >> 10:,} MiB at its peak; snapshot "
          f"{size / (1 << 20):,.0f} MiB", flush=True)
    for line in stop_log:
        print("  " + line, flush=True)

    t = time.monotonic()
    d = Pinbad(work)
    healthy = time.monotonic() - t
    restored = None
    while restored is None and time.monotonic() - t < 300:
        with open(os.path.join(work, "stderr")) as f:
            restored = next((l.strip() for l in f if "Snapshot restored" in l), None)
        time.sleep(0.05)
    restored_s = time.monotonic() - t
    after = d.rss()
    s = Sampler(d)
    s.start()
    blast = subprocess.run([BLAST, "--target", f"127.0.0.1:{d.udp}", "--rate", str(TRAFFIC_RATE),
                            "--duration", f"{RESTART_S}s", "--scripts", "20000", "--hosts", "50",
                            "--json"], check=True, capture_output=True, text=True)
    blast = json.loads(blast.stdout)
    s.finish()
    summary("restart's first rounds", d, s,
            f"/healthz {healthy:.1f} s and the snapshot restored {restored_s:.1f} s after the start, "
            f"RSS {after >> 20:,} MiB then; {RESTART_S} s at {TRAFFIC_RATE:,}/s: sent "
            f"{blast.get('packets_sent'):,}; restored: {restored}")
    dump(s)
    d.stop()


def main():
    if not os.environ.get("NO_BUILD"):
        subprocess.run(["cargo", "build", "--release", "--bin", "pinbad"], cwd=ROOT, check=True)
        subprocess.run(["cargo", "build", "--release", "--features", "corpus", "--bin",
                        "pinbad-blast"], cwd=ROOT, check=True)
    runs = {"flood": flood, "reports": reports, "restart": restart}
    for run in [runs[r] for r in os.environ.get("RUNS", "flood,reports").split(",")]:
        with tempfile.TemporaryDirectory() as work:
            run(work)


if __name__ == "__main__":
    main()
