"""The connection to the playground: every compile, allocation, copy and launch of a script goes to the app.

Under ``cuda-playground run script.py`` the app hands the script a socket (descriptor
``CUDA_PLAYGROUND_SCRIPT_FD``); a script started by ``python3`` itself (the package installed in a virtual
environment) starts ``cuda-playground script-serve`` and talks to it through a pipe. Messages: a little-endian u32
header length, a u64 payload length, the JSON header, the payload (app/core/session/script_host.h).
"""
import json
import os
import shutil
import socket
import struct
import subprocess
import sys

_LENGTHS = struct.Struct("<IQ")


class WireError(RuntimeError):
    """The playground went away or answered nonsense."""


class Connection:
    def __init__(self):
        self._proc = None
        fd = os.environ.get("CUDA_PLAYGROUND_SCRIPT_FD")
        if fd:
            sock = socket.socket(fileno=int(fd))
            self._rfile = sock.makefile("rb", buffering=0)
            self._wfile = sock.makefile("wb", buffering=0)
            self._sock = sock
        else:
            exe = os.environ.get("CUDA_PLAYGROUND_BIN") or shutil.which("cuda-playground")
            if not exe:
                raise WireError(
                    "cuda-playground was not found: run the script with `cuda-playground run script.py`, or put "
                    "cuda-playground on PATH (or name it with CUDA_PLAYGROUND_BIN)")
            backend = os.environ.get("CUDA_PLAYGROUND_BACKEND", "auto")
            self._proc = subprocess.Popen([exe, "script-serve", "--backend", backend],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            self._rfile = self._proc.stdout
            self._wfile = self._proc.stdin
            self._sock = None
        self.clock_ms = 0.0  # the device's time so far: every copy and launch added, in order
        hello, _ = self.call({"op": "hello"})
        self.device = hello["device"]
        self.script_path = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""

    def _read_exact(self, n):
        chunks = []
        while n:
            chunk = self._rfile.read(n)
            if not chunk:
                raise WireError("the playground closed the connection (it stopped the script, or it ended)")
            chunks.append(chunk)
            n -= len(chunk)
        return b"".join(chunks)

    def call(self, header, payload=b""):
        """Sends one request and returns (answer header, answer payload)."""
        text = json.dumps(header).encode()
        data = memoryview(payload).cast("B") if len(payload) else b""
        self._wfile.write(_LENGTHS.pack(len(text), len(data)))
        self._wfile.write(text)
        if len(data):
            self._wfile.write(data)
        if self._proc:
            self._wfile.flush()
        header_len, payload_len = _LENGTHS.unpack(self._read_exact(_LENGTHS.size))
        answer = json.loads(self._read_exact(header_len))
        body = self._read_exact(payload_len) if payload_len else b""
        if "ms" in answer:
            self.clock_ms += float(answer["ms"])
        return answer, body

    def close(self):
        try:
            self.call({"op": "bye"})
        except (WireError, OSError, ValueError):
            pass
        if self._proc:
            self._proc.stdin.close()
            self._proc.wait()


_connection = None


def connection():
    """The one connection of this process, opened on first use."""
    global _connection
    if _connection is None:
        _connection = Connection()
        import atexit
        atexit.register(_connection.close)
    return _connection
