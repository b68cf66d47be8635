"""Atoll's Python client: the stock gRPC runtime (Debian's python3-grpcio)
over stubs generated from proto/atoll/v1 at build time.

The stubs live in the build tree (build/<preset>/python/atoll/v1/*_pb2*.py);
put that directory and client/python on PYTHONPATH. See docs/client.md.
"""

from atoll_client.client import Client, Player  # noqa: F401
