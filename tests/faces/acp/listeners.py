"""The sockets a process tree listens on, read from /proc (Linux): for tests that a face speaks only over its
pipes. Hardening round three, advisory class: every local listener is found and guarded."""

from __future__ import annotations

import os
from pathlib import Path


def process_tree(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    tree, todo = [], [pid]
    while todo:
        current = todo.pop()
        tree.append(current)
        todo += children.get(current, [])
    return tree


def listening(pid: int) -> list[str]:
    """`tcp ADDRESS:PORT` or `unix PATH` for every socket `pid` or a descendant listens on."""
    inodes: set[str] = set()
    for member in process_tree(pid):
        try:
            names = os.listdir(f"/proc/{member}/fd")
        except OSError:
            continue
        for name in names:
            try:
                link = os.readlink(f"/proc/{member}/fd/{name}")
            except OSError:
                continue
            if link.startswith("socket:["):
                inodes.add(link[len("socket:["):-1])
    found = []
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                found.append(f"{table} {fields[1]}")
    for line in Path("/proc/net/unix").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[3], 16) & 0x10000 and fields[6] in inodes:  # __SO_ACCEPTCON: a listening socket
            found.append(f"unix {fields[7] if len(fields) > 7 else '(unnamed)'}")
    return found
