#!/usr/bin/env python3
"""ctest: runs client/python/example.py against a real atoll-server.

    python_example_test.py ATOLL_SERVER EXAMPLE_PY

Starts the server on a free loopback port, runs the example (stock Python
gRPC over the generated stubs), and checks that it printed one hash per tick,
that its ray cast and overlap found the floor, and that it finished. Exit 0
on success.
"""

import os
import re
import subprocess
import sys

from real_server import RealServer


def main():
    server_bin, example = sys.argv[1], sys.argv[2]
    try:
        with RealServer(server_bin) as address:
            result = subprocess.run([sys.executable, example, address, "40"],
                                    capture_output=True, text=True, timeout=60,
                                    env=os.environ)
    except RuntimeError as error:
        print(error, file=sys.stderr)
        return 1
    sys.stdout.write(result.stdout)
    sys.stderr.write(result.stderr)
    if result.returncode != 0:
        print(f"example exited with {result.returncode}", file=sys.stderr)
        return 1
    hashes = re.findall(r"^tick (\d+) hash ([0-9a-f]{16})", result.stdout, re.M)
    ticks = [int(t) for t, _ in hashes]
    if len(hashes) != 40 or ticks != list(range(ticks[0], ticks[0] + 40)):
        print("expected 40 consecutive ticks with hashes", file=sys.stderr)
        return 1
    pushed = re.findall(r"commands [1-9]", result.stdout)
    if not pushed:
        print("no input of the example was confirmed", file=sys.stderr)
        return 1
    if "ray hit body 0 at fraction 0.450" not in result.stdout:
        print("the ray cast did not find the floor 4.5 m down", file=sys.stderr)
        return 1
    if "overlap [0]" not in result.stdout:
        print("the circle overlap did not find the floor alone", file=sys.stderr)
        return 1
    if not result.stdout.rstrip().endswith("ok"):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
