#!/usr/bin/env python3
"""Holds pinbad's sockets as a systemd .socket unit does, for benches/restart.sh (ACTIVATE=1).

Usage: hold_sockets.py UDP_ADDR HTTP_ADDR BIN [ARGS...]
Binds UDP_ADDR (datagrams) and HTTP_ADDR (a listening stream) once, prints "ready", then for
each line "start NAME" on stdin runs `BIN ARGS...` with the sockets as descriptors 3 and 4,
LISTEN_FDS=2 and LISTEN_PID naming it (sd_listen_fds(3)), its stdout and stderr in NAME.stdout
and NAME.stderr of the current directory, and prints its PID. Exits, stopping any daemon still
running, at end of input. The sockets live as long as this process, so what is sent while no
daemon runs waits in them.
"""
import os
import socket
import subprocess
import sys
import threading


def addr(text):
    host, port = text.rsplit(":", 1)
    return host.strip("[]"), int(port)


def main():
    udp_addr, http_addr, binary, *args = sys.argv[1:]
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(addr(udp_addr))
    http = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    http.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    http.bind(addr(http_addr))
    http.listen(1024)
    # Copies above the range they go to (not inherited themselves), so that no dup2 overwrites
    # another.
    high = [os.dup(s.fileno()) for s in (udp, http)]
    for i, fd in enumerate(high):
        moved = os.dup2(fd, 100 + i, inheritable=False)
        os.close(fd)
        high[i] = moved

    def pass_sockets():
        for i, fd in enumerate(high):
            os.dup2(fd, 3 + i)  # inheritable

    children = []
    print("ready", flush=True)
    for line in sys.stdin:
        words = line.split()
        if len(words) != 2 or words[0] != "start":
            continue
        name = words[1]
        child = subprocess.Popen(
            ["sh", "-c", 'export LISTEN_PID=$$; exec "$0" "$@"', binary, *args],
            env=dict(os.environ, LISTEN_FDS="2"),
            stdin=subprocess.DEVNULL,
            stdout=open(f"{name}.stdout", "wb"),
            stderr=open(f"{name}.stderr", "wb"),
            preexec_fn=pass_sockets,
            close_fds=False,
        )
        children.append(child)
        # Reaped as soon as it exits, so that `kill -0 PID` tells the caller it is gone.
        threading.Thread(target=child.wait, daemon=True).start()
        print(child.pid, flush=True)
    for child in children:
        if child.poll() is None:
            child.kill()
            child.wait()


if __name__ == "__main__":
    main()
