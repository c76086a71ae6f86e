#!/usr/bin/env python3
"""Hostile debuginfod servers on loopback, for t2031-debuginfod-limits.

    dind_hostile.py DIR PORT=MODE[:FILE] ...

Each PORT answers every connection by MODE:
  hang     accept, never read, never answer
  syn      never accept, with a full queue: a connect that never ends
  trickle  a 200 answer announcing 1 MB, then 20 bytes every 0.1 s
  big      300 MB of zeros without a length, until the connection closes
  biglen   the same with Content-Length: 300000000
  headers  a 200 answer whose X-DEBUGINFOD- headers never end
  file     the bytes of FILE with their length (not ELF, another build...)
Bodies are streamed, never held. Each connection appends the bytes of
body it got into the kernel to DIR/sent.PORT; DIR/ready appears once
every port listens. The servers run until killed.
"""
import socket
import sys
import threading
import time

BIG = 300 * 1000 * 1000


def read_request(conn):
    data = b''
    while b'\r\n\r\n' not in data:
        chunk = conn.recv(4096)
        if not chunk:
            return False
        data += chunk
    return True


def answer(conn, mode, path, sent):
    """Answer one connection, counting the body bytes sent in sent[0]."""
    if mode == 'hang':
        while True:
            time.sleep(3600)
    if not read_request(conn):
        return
    if mode == 'trickle':
        conn.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n')
        while True:
            conn.sendall(b'x' * 20)
            sent[0] += 20
            time.sleep(0.1)
    if mode == 'headers':
        conn.sendall(b'HTTP/1.1 200 OK\r\n')
        line = b'X-DEBUGINFOD-JUNK: ' + b'j' * 1000 + b'\r\n'
        while True:
            conn.sendall(line * 64)
            sent[0] += len(line) * 64
    if mode in ('big', 'biglen'):
        head = 'HTTP/1.0 200 OK\r\nConnection: close\r\n'
        if mode == 'biglen':
            head += 'Content-Length: %d\r\n' % BIG
        conn.sendall((head + '\r\n').encode())
        chunk = bytes(65536)
        while sent[0] < BIG:
            n = min(len(chunk), BIG - sent[0])
            conn.sendall(chunk[:n])
            sent[0] += n
        return
    with open(path, 'rb') as f:
        body = f.read()
    conn.sendall(b'HTTP/1.0 200 OK\r\nConnection: close\r\n'
                 b'Content-Length: %d\r\n\r\n' % len(body) + body)
    sent[0] = len(body)


def connection(conn, port, mode, path, logdir):
    sent = [0]
    try:
        answer(conn, mode, path, sent)
    except OSError:
        pass  # the client gave up
    finally:
        conn.close()
    with open('%s/sent.%d' % (logdir, port), 'a') as f:
        f.write('%d\n' % sent[0])


def listen(port, mode, path, logdir):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(('127.0.0.1', port))
    if mode == 'syn':
        # a backlog of 0 holds one connection: fill it, SYNs then go
        # unanswered
        s.listen(0)
        held = []
        for _ in range(2):
            c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            c.setblocking(False)
            c.connect_ex(('127.0.0.1', port))
            held.append(c)
        time.sleep(0.5)

        def hold():
            while held and s:
                time.sleep(3600)
        return hold
    s.listen(16)

    def loop():
        while True:
            conn, _ = s.accept()
            threading.Thread(target=connection, daemon=True,
                             args=(conn, port, mode, path, logdir)).start()
    return loop


def main():
    logdir = sys.argv[1]
    loops = []
    for spec in sys.argv[2:]:
        port, rest = spec.split('=', 1)
        mode, _, path = rest.partition(':')
        loops.append(listen(int(port), mode, path, logdir))
    for loop in loops:
        threading.Thread(target=loop, daemon=True).start()
    open(logdir + '/ready', 'w').close()
    while True:
        time.sleep(3600)


if __name__ == '__main__':
    main()
