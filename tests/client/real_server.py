"""Starts the real atoll-server binary on a free loopback port for the Python
client's ctest scripts."""

import re
import subprocess
import time


class RealServer:
    """`with RealServer(path) as address:` runs the server for the block."""

    def __init__(self, server_bin):
        self._bin = server_bin
        self._process = None

    def __enter__(self):
        self._process = subprocess.Popen([self._bin, "--listen=127.0.0.1:0"],
                                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                         text=True)
        deadline = time.time() + 10
        while time.time() < deadline:
            line = self._process.stdout.readline()
            if not line:
                break
            match = re.search(r"listening on (\S+)", line)
            if match:
                return match.group(1)
        self.__exit__(None, None, None)
        raise RuntimeError("atoll-server did not start")

    def __exit__(self, *exc):
        self._process.terminate()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
        return False
