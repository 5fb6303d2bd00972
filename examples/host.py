#!/usr/bin/env python3
"""host.py: drive prof-record as an IDE, a CI job or an agent would.

    host.py [options] -- COMMAND [ARGS...]    launch COMMAND and profile it
    host.py [options] -p PID                  attach to a running process

The host hands prof-record one end of each of two pipes. On --events fd:N
prof-record writes a JSON object a line ("event", "schema": 1): start,
progress (elapsed, samples, lost, threads, images, bytes), warning (code,
message), ack (command, ok, error) and, last, end (why, samples, lost,
bytes, bytes_per_sample, trace), or error (message, exit_code) alone if
the recording could not start. On --control fd:M the host writes a
command a line: stop, mark NAME (and cancel, pause, resume).

Progress is a bar when stderr is a terminal, else a line each. "stop" is
sent after --seconds, or on Enter when stdin is a terminal (a launched
command then reads /dev/null); otherwise the recording ends with the
target. After the end event, `prof-report top --json` gives the table.
A prof-record that dies without an end event is an error, and the trace
it flushed is still reported. prof-record also prints its warnings and
errors on the stderr it shares with a launched command, so a terminal
shows them twice. Python 3 alone; the fields are in prof-record(1),
sections CONTROL and EVENTS.
"""
import argparse
import json
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import time

PROG = "host.py"


def die(msg, code=1):
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(code)


def find(name, bindir):
    path = os.path.join(bindir, name) if bindir else shutil.which(name)
    if not path or not os.access(path, os.X_OK):
        die(f"cannot find '{name}'" + (f" in '{bindir}'" if bindir else " on PATH"))
    return path


def parse_args(argv):
    cmd = []
    if "--" in argv:
        cmd = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    p = argparse.ArgumentParser(prog=PROG, usage="%(prog)s [options] (-p PID | -- COMMAND [ARGS...])",
                                description="Record with prof-record, then print the top functions.")
    p.add_argument("-p", dest="pid", type=int, help="attach to the process PID")
    p.add_argument("-o", dest="trace", default="prof.trace", help="the trace (default prof.trace)")
    p.add_argument("-f", dest="force", action="store_true", help="overwrite the trace if it exists")
    p.add_argument("--seconds", type=float, help="stop after this long (default: when the target exits)")
    p.add_argument("--mark", action="append", default=[], metavar="NAME@SECONDS",
                   help="send 'mark NAME' this long after the start (repeatable)")
    p.add_argument("-n", dest="top", type=int, default=10, metavar="N",
                   help="functions in the table (default 10)")
    p.add_argument("--sort", choices=("self", "total"), default="self", help="the table's order")
    p.add_argument("--prof-bin", metavar="DIR", help="where prof-record and prof-report are (default: PATH)")
    a = p.parse_args(argv)
    if (a.pid is None) == (not cmd):
        p.error("give either -p PID or -- COMMAND")
    marks = [re.fullmatch(r"(.+)@([0-9]+(?:\.[0-9]*)?)", m) for m in a.mark]
    if not all(marks):
        p.error("--mark takes NAME@SECONDS")
    a.marks, a.cmd = sorted((float(m[2]), m[1]) for m in marks), cmd
    return a


class Display:
    """The progress bar on a terminal, plain lines elsewhere."""

    def __init__(self, seconds):
        self.tty, self.seconds, self.drawn = sys.stderr.isatty(), seconds, False

    def progress(self, ev):
        el, n, lost = ev["elapsed"], ev["samples"], ev["lost"]
        if not self.tty:
            print(f"{PROG}: {el:.2f} s, {n} samples, {lost} lost", file=sys.stderr, flush=True)
            return
        head = f"{el:.1f} s"
        if self.seconds:
            done = int(20 * min(el / self.seconds, 1))
            head = f"[{'#' * done}{'.' * (20 - done)}] {el:.1f}/{self.seconds:g} s"
        sys.stderr.write(f"\r{head}  {n} samples  {lost} lost\033[K")
        sys.stderr.flush()
        self.drawn = True

    def line(self, msg):
        if self.drawn:
            sys.stderr.write("\r\033[K")
            self.drawn = False
        print(f"{PROG}: {msg}", file=sys.stderr, flush=True)


def record(a, prof_record):
    """Runs the recording; returns (the end event or None, prof-record's exit status)."""
    ev_r, ev_w = os.pipe()
    ctl_r, ctl_w = os.pipe()
    enter = sys.stdin.isatty()
    args = [prof_record, "-q", "--events", f"fd:{ev_w}", "--control", f"fd:{ctl_r}", "-o", a.trace]
    args += ["-f"] if a.force else []
    args += ["-p", str(a.pid)] if a.pid is not None else ["--"] + a.cmd
    try:
        proc = subprocess.Popen(args, pass_fds=(ev_w, ctl_r), stdin=subprocess.DEVNULL if enter else None)
    except OSError as e:
        die(f"cannot run '{prof_record}': {e.strerror}")
    os.close(ev_w)  # prof-record's ends
    os.close(ctl_r)
    show = Display(a.seconds)

    def send(line):
        try:
            os.write(ctl_w, (line + "\n").encode())
        except OSError:  # prof-record is gone: its events say why
            pass

    # A terminal's Ctrl-C reaches prof-record too, which ends cleanly;
    # anyone else's SIGINT or SIGTERM becomes a stop.
    old = {s: signal.signal(s, lambda *_: send("stop")) for s in (signal.SIGINT, signal.SIGTERM)}
    sel = selectors.DefaultSelector()
    sel.register(ev_r, selectors.EVENT_READ)
    if enter:
        sel.register(sys.stdin, selectors.EVENT_READ)
        show.line("press Enter to stop")
    marks, t0, stopped, start, end, buf, eof = list(a.marks), None, False, None, None, b"", False
    while not eof:
        timeout = None
        if t0 is not None:
            due = [at for at, _ in marks[:1]] + ([a.seconds] if a.seconds and not stopped else [])
            timeout = max(0, min(due) - (time.monotonic() - t0)) if due else None
        for key, _ in sel.select(timeout):
            if key.fileobj is sys.stdin:
                sel.unregister(sys.stdin)
                if sys.stdin.readline():  # Enter; not end of file (^D)
                    send("stop")
                    stopped = True
            else:
                data = os.read(ev_r, 65536)
                eof = not data
                buf += data
        lines = buf.split(b"\n")
        buf = lines.pop()  # an unfinished line waits for the rest
        for raw in lines:
            try:
                ev = json.loads(raw)
            except ValueError:
                continue
            kind = ev.get("event")
            if kind == "start":
                t0, start = time.monotonic(), ev
                how = "launched" if ev["launched"] else "attached to"
                show.line(f"{how} {ev['pid']}, {ev['mode']} mode at {ev['rate']} Hz, writing '{ev['trace']}'")
            elif kind == "progress":
                show.progress(ev)
            elif kind == "warning":
                show.line(f"warning ({ev['code']}): {ev['message']}")
            elif kind == "ack" and not ev["ok"]:
                show.line(f"'{ev['command']}' refused: {ev['error']}")
            elif kind in ("end", "error"):
                end = ev
        if t0 is not None:
            now = time.monotonic() - t0
            while marks and marks[0][0] <= now:
                send(f"mark {marks.pop(0)[1]}")
            if a.seconds and not stopped and now >= a.seconds:
                send("stop")
                stopped = True
    status = proc.wait()
    for s, handler in old.items():
        signal.signal(s, handler)
    os.close(ctl_w)
    os.close(ev_r)
    if show.drawn:
        sys.stderr.write("\n")
    # A stop leaves the target running, a launched command too.
    if start and start["launched"] and end and end.get("running"):
        print(f"{PROG}: command {start['pid']} runs on", file=sys.stderr)
    return end, status


def top(a, prof_report, trace):
    cmd = [prof_report, "top", "--json", "--limit", str(a.top), "--sort", a.sort, trace]
    r = subprocess.run(cmd, stdout=subprocess.PIPE)
    if r.returncode != 0:
        die(f"prof-report top failed with exit status {r.returncode}")
    doc = json.loads(r.stdout)
    print(f"{'SELF%':>6} {'TOTAL%':>7}  FUNCTION")
    for f in doc["functions"]:
        print(f"{f['self_percent']:5.1f}% {f['total_percent']:6.1f}%  {f['name']}")


def main():
    a = parse_args(sys.argv[1:])
    prof_record, prof_report = find("prof-record", a.prof_bin), find("prof-report", a.prof_bin)
    end, status = record(a, prof_record)
    if end is None:
        how = f"killed by signal {-status}" if status < 0 else f"exit status {status}"
        print(f"{PROG}: prof-record ended without an end event ({how})", file=sys.stderr)
        if os.path.exists(a.trace):
            top(a, prof_report, a.trace)
        sys.exit(1)
    if end["event"] == "error":
        die(end["message"], end["exit_code"])
    print(f"{PROG}: {end['samples']} samples, {end['lost']} lost, "
          f"{end['bytes_per_sample']} bytes/sample ({end['why']})", file=sys.stderr)
    if end["why"] == "error":
        die(end["error"])
    if end["trace"]:
        top(a, prof_report, end["trace"])
    sys.exit(status)


if __name__ == "__main__":
    main()
