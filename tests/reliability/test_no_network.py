"""No network surface: nothing engram starts binds, listens on or connects to a socket.

Every engram process of the test (hooks, the detached worker they start, `engram consolidate`,
`maintain`, `query`, `status`, and the stdio MCP server) runs with a `sitecustomize` that adds
a `sys.addaudithook` recording socket creation, bind, connect and name lookups; the hook is
inherited by every Python child through PYTHONPATH. While the MCP server runs, its open file
descriptors are also matched against /proc/net/{tcp,tcp6,udp,udp6,unix} for listeners.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from testing.reliability import make_project, session_script

SITECUSTOMIZE = r'''
import os, sys
_LOG = os.environ.get("ENGRAM_AUDIT_LOG")
_WATCH = ("socket.__new__", "socket.bind", "socket.connect", "socket.getaddrinfo",
          "socket.gethostbyname", "socket.sendto", "socket.sendmsg")
def _hook(event, args):
    if event in _WATCH:
        try:
            with open(_LOG, "a") as f:
                f.write("%d %s %r\n" % (os.getpid(), event, args[1:] if event == "socket.__new__" else args[1:2]))
        except Exception:
            pass
if _LOG:
    sys.addaudithook(_hook)
    try:
        with open("/proc/self/cmdline", "rb") as f:
            cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
        with open(_LOG, "a") as f:
            f.write("%d start %s\n" % (os.getpid(), cmd.strip()))
    except Exception:
        pass
'''


@pytest.fixture
def audited(tmp_path, monkeypatch):
    site = tmp_path / "audit-site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    log = tmp_path / "audit.log"
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("ENGRAM_AUDIT_LOG", str(log))
    monkeypatch.delenv("ENGRAM_NO_WORKER", raising=False)
    return log


def _hook(root: Path, event: str, body: dict) -> None:
    res = subprocess.run([sys.executable, "-m", "engram.hook", event], input=json.dumps(body).encode(),
                         capture_output=True, timeout=60)
    assert res.returncode == 0


def _listeners_of(pid: int) -> list[str]:
    """Listening sockets (TCP LISTEN, UDP bound, unix ACCEPTCON) among a process's descriptors."""
    inodes = set()
    fd_dir = Path(f"/proc/{pid}/fd")
    for fd in fd_dir.iterdir() if fd_dir.exists() else []:
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    found = []
    for table in ("tcp", "tcp6", "udp", "udp6"):
        path = Path(f"/proc/net/{table}")
        for line in path.read_text().splitlines()[1:] if path.exists() else []:
            cols = line.split()
            if cols[9] in inodes and (table.startswith("udp") or cols[3] == "0A"):
                found.append(f"{table} {cols[1]}")
    unix = Path("/proc/net/unix")
    for line in unix.read_text().splitlines()[1:] if unix.exists() else []:
        cols = line.split()
        if len(cols) > 6 and cols[6] in inodes and int(cols[3], 16) & 0x10000:  # __SO_ACCEPTCON
            found.append(f"unix {cols[-1] if len(cols) > 7 else ''}")
    return found


def _rpc(proc: subprocess.Popen, msg: dict) -> dict | None:
    proc.stdin.write((json.dumps(msg) + "\n").encode())
    proc.stdin.flush()
    if "id" not in msg:
        return None
    while True:
        line = proc.stdout.readline()
        assert line, "the MCP server closed stdout"
        reply = json.loads(line)
        if reply.get("id") == msg["id"]:
            return reply


def _drive_mcp(root: Path) -> list[str]:
    """Start `engram mcp`, call both tools over stdio, return the listeners seen meanwhile."""
    proc = subprocess.Popen([sys.executable, "-m", "engram", "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=str(root))
    try:
        init = _rpc(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}})
        assert "result" in init, init
        _rpc(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools = _rpc(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        names = {t["name"] for t in tools["result"]["tools"]}
        assert "query_knowledge" in names
        reply = _rpc(proc, {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                            "params": {"name": "query_knowledge", "arguments": {"query": "integer offsets"}}})
        assert "result" in reply
        seen = _listeners_of(proc.pid)
    finally:
        proc.stdin.close()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return seen


@pytest.mark.slow
def test_nothing_engram_starts_touches_the_network(tmp_path, engram_home, audited, figures):
    root = make_project(tmp_path)
    for event, body in session_script(root, "net", 1):
        _hook(root, event, body)  # Stop starts a real worker, which inherits the audit hook
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list(engram_home.glob("projects/*/episodes/net.episode.json")):
        time.sleep(0.1)
    assert list(engram_home.glob("projects/*/episodes/net.episode.json")), "the worker never consolidated"
    for args in (["consolidate", "--all", "--project", str(root)], ["maintain"], ["status"],
                 ["query", "integer offsets", "--cwd", str(root)]):
        res = subprocess.run([sys.executable, "-m", "engram", *args], capture_output=True, text=True,
                             timeout=120, cwd=str(root))
        assert res.returncode in (0, 1), (args, res.stderr[-500:])
    listeners = _drive_mcp(root)
    assert listeners == []
    lines = audited.read_text().splitlines()
    started = [ln for ln in lines if ln.split(" ", 2)[1] == "start"]
    assert any(" worker " in ln for ln in started), "the detached worker was not audited"
    assert any(" mcp" in ln for ln in started) and any("engram.hook" in ln for ln in started)
    sockets = [ln for ln in lines if ln.split(" ", 2)[1] != "start"]
    unix_pairs = f"({int(socket.AF_UNIX)}, "
    network = [ln for ln in sockets if not (" socket.__new__ " in ln and ln.split(" ", 2)[2].startswith(unix_pairs))]
    assert network == [], network[:10]
    figures.add("network", processes_audited=len(started), listeners=0, connections=0, binds=0)


def test_audit_hook_sees_a_listener(tmp_path, audited):
    """The instrument works: a process that does listen is caught by both checks."""
    code = "import socket,time; s=socket.socket(); s.bind(('127.0.0.1',0)); s.listen(); print(1, flush=True); time.sleep(5)"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    try:
        assert proc.stdout.readline().strip() == b"1"
        assert _listeners_of(proc.pid)
    finally:
        proc.kill()
        proc.wait()
    assert "socket.bind" in audited.read_text()
