#!/usr/bin/env python3
"""ctest: runs client/python/car_example.py against a real atoll-server.

    python_car_example_test.py ATOLL_SERVER CAR_EXAMPLE_PY SCENE_JSON

Checks that the example's car, driven by wheel-joint motor commands, moved
forward (found by ray casts before and after), that its one spawn command
made a four-body ragdoll, and that it finished. Exit 0 on success.
"""

import os
import re
import subprocess
import sys

from real_server import RealServer


def main():
    server_bin, example, scene = sys.argv[1], sys.argv[2], sys.argv[3]
    try:
        with RealServer(server_bin) as address:
            result = subprocess.run([sys.executable, example, address, scene, "240"],
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
    if "with 4 bodies" not in result.stdout:
        print("the scene should start with 4 bodies", file=sys.stderr)
        return 1
    moved = re.search(r"the car moved (-?[0-9.]+) m", result.stdout)
    # Two seconds at up to 12 rad/s on 0.4 m wheels: well over 3 m.
    if moved is None or float(moved.group(1)) < 3.0:
        print("the driven car should have moved more than 3 m forward", file=sys.stderr)
        return 1
    if "bodies 8" not in result.stdout:
        print("one spawn command should have added the ragdoll's 4 bodies",
              file=sys.stderr)
        return 1
    if not result.stdout.rstrip().endswith("ok"):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
