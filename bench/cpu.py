"""CPU time as Linux's ``/proc`` counts it, for the benchmarks that say where a run's CPU
went (the server's processes, PostgreSQL's, the whole machine). Elsewhere every reader
here gives None or 0, and the benchmarks leave those figures out."""

from __future__ import annotations

import os

TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def machine_busy_s() -> float | None:
    """CPU-seconds the whole machine has spent busy since boot (every core; Linux's
    /proc/stat, None elsewhere): what the database server and everything else used."""
    try:
        with open("/proc/stat") as f:
            ticks = [int(x) for x in f.readline().split()[1:]]
    except OSError:
        return None
    # user, nice, system, irq, softirq: not idle, iowait, steal (another guest's) or guest (in user already)
    return sum(ticks[i] for i in (0, 1, 2, 5, 6)) / TICKS


def processes() -> dict[int, tuple[str, int, float]]:
    """Every process now: pid -> (command name, parent pid, CPU-seconds used so far)."""
    out: dict[int, tuple[str, int, float]] = {}
    try:
        pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return out
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
                raw = f.read()
        except OSError:  # gone meanwhile
            continue
        fields = raw[raw.rindex(")") + 2:].split()  # fields[0] is the state (stat's third field)
        out[pid] = raw[raw.index("(") + 1:raw.rindex(")")], int(fields[1]), (int(fields[11]) + int(fields[12])) / TICKS
    return out


def tree_cpu_s(root: int, procs: dict[int, tuple[str, int, float]] | None = None) -> float:
    """CPU-seconds used so far by ``root`` and every process under it (a server and its
    workers, a postmaster and its backends)."""
    procs = processes() if procs is None else procs
    tree, grown = {root}, True
    while grown:
        more = {pid for pid, (_, ppid, _) in procs.items() if ppid in tree} - tree
        grown, tree = bool(more), tree | more
    return sum(procs[p][2] for p in tree if p in procs)


def named_cpu_s(prefix: str, procs: dict[int, tuple[str, int, float]] | None = None) -> float:
    """CPU-seconds used so far by the processes whose name starts with ``prefix``."""
    procs = processes() if procs is None else procs
    return sum(cpu for name, _, cpu in procs.values() if name.startswith(prefix))
