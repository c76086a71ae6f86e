#!/usr/bin/env python3
"""A loopback TCP proxy in front of a ClickHouse server, for the fleet's
fault tests. Usage: fleet_proxy.py UPSTREAM_PORT PORT_FILE MODE_FILE LOG

It writes the port it listens on to PORT_FILE and logs the first line of
every request to LOG. What it does is the first line of MODE_FILE, read
at every request:
  forward               pass bytes both ways
  blackhole             accept, read, never answer (a port that hangs)
  kill PATTERN PIDFILE  the first request holding PATTERN: SIGKILL the pid
                        in PIDFILE (the server) and close; then forward
  hold PATTERN          a request holding PATTERN is never forwarded nor
                        answered (a server that stops in mid-upload)
  cut PATTERN           the first request holding PATTERN reaches the
                        server, its answer is cut after 12 bytes (the
                        connection closes); then forward
"""
import os
import signal
import socket
import sys
import threading

upstream_port = int(sys.argv[1])
port_file, mode_file, log_file = sys.argv[2], sys.argv[3], sys.argv[4]
log_lock = threading.Lock()


def mode():
    try:
        with open(mode_file) as f:
            return f.readline().split()
    except OSError:
        return ["forward"]


def log(line):
    with log_lock, open(log_file, "a") as f:
        f.write(line + "\n")


def pump(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def hang(conn):
    try:
        while conn.recv(65536):
            pass
    except OSError:
        pass


def swallow(up, conn):
    """The server's answer cut after its first bytes and the client's
    connection closed: the request was done, the client never hears."""
    try:
        data = up.recv(65536)
        if data:
            # a few bytes of it: libcurl re-sends a request whose reused
            # connection closed before any answer, not one cut in its answer
            conn.sendall(data[:12])
            log("cut: the answer was dropped")
    except OSError:
        pass
    for s in (conn, up):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def client(conn):
    """Each request (a chunk that starts one: libcurl keeps connections
    alive, so a connection carries many) meets the mode first."""
    up = None
    try:
        while True:
            data = conn.recv(65536)
            if not data:
                break
            if data.startswith((b"POST ", b"GET ")):
                line = data.split(b"\r\n", 1)[0].decode("latin-1")
                m = mode() or ["forward"]
                log("%s %s" % (m[0], line))
                if m[0] == "blackhole" or (m[0] == "hold" and m[1] in line):
                    log("held " + line)
                    hang(conn)
                    break
                if m[0] == "kill" and m[1] in line:
                    with open(m[2]) as f:
                        pid = int(f.read().split()[0])
                    os.kill(pid, signal.SIGKILL)
                    with open(mode_file, "w") as f:
                        f.write("forward\n")
                    log("killed %d at %s" % (pid, line))
                    break
                if m[0] == "cut" and m[1] in line:
                    with open(mode_file, "w") as f:
                        f.write("forward\n")
                    log("cut " + line)
                    # the earlier upstream is left open: closing it would
                    # close the client before the cut answer
                    up = socket.create_connection(("127.0.0.1", upstream_port))
                    threading.Thread(target=swallow, args=(up, conn),
                                     daemon=True).start()
                    up.sendall(data)
                    continue
            if up is None:
                up = socket.create_connection(("127.0.0.1", upstream_port))
                threading.Thread(target=pump, args=(up, conn),
                                 daemon=True).start()
            up.sendall(data)
    except OSError:
        pass
    for s in (conn, up):
        if s is not None:
            try:
                s.close()
            except OSError:
                pass


def main():
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    with open(port_file + ".tmp", "w") as f:
        f.write("%d\n" % srv.getsockname()[1])
    os.rename(port_file + ".tmp", port_file)
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=client, args=(conn,), daemon=True).start()


main()
