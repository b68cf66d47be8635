"""A thin, synchronous wrapper over the generated atl.v1 stubs."""

import queue
import threading

import grpc

from atoll.v1 import common_pb2
from atoll.v1 import query_pb2
from atoll.v1 import query_pb2_grpc
from atoll.v1 import scene_pb2
from atoll.v1 import session_pb2
from atoll.v1 import session_pb2_grpc
from atoll.v1 import world_pb2
from atoll.v1 import world_pb2_grpc


def _vec2(xy):
    return scene_pb2.Vec2(x=xy[0], y=xy[1])


class Client:
    """WorldService and QueryService calls on one channel to an atoll-server
    ("HOST:PORT")."""

    def __init__(self, address, timeout=10.0):
        self.address = address
        self.timeout = timeout
        # Snapshots and recordings of large worlds exceed gRPC's 4 MiB
        # default receive limit.
        self.channel = grpc.insecure_channel(
            address, options=[("grpc.max_receive_message_length", -1)])
        self.worlds = world_pb2_grpc.WorldServiceStub(self.channel)
        self.queries = query_pb2_grpc.QueryServiceStub(self.channel)

    def create_world(self, scene, world_id="", **config):
        """Creates a world from a SceneSpec; config takes WorldConfig fields.
        Returns the CreateWorldResponse (world info and slot tokens)."""
        request = world_pb2.CreateWorldRequest(
            world_id=world_id, scene=scene, config=common_pb2.WorldConfig(**config))
        return self.worlds.CreateWorld(request, timeout=self.timeout)

    def list_worlds(self):
        return self.worlds.ListWorlds(world_pb2.ListWorldsRequest(),
                                      timeout=self.timeout).worlds

    def destroy_world(self, world_id):
        self.worlds.DestroyWorld(world_pb2.DestroyWorldRequest(world_id=world_id),
                                 timeout=self.timeout)

    def ray_cast(self, world_id, origin, translation, all_hits=False, filter=None):
        """Casts the ray from `origin` to origin + `translation` ((x, y), m)
        against the world's newest tick. Returns a CastRayClosestResponse
        (`hit` unset when nothing is hit) or, with all_hits, a
        CastRayAllResponse (`hits`, nearest first); both carry the `tick`
        queried. `filter`: a scene_pb2.FilterSpec, None for the default.
        Raises grpc.RpcError (INVALID_ARGUMENT naming the field, NOT_FOUND
        for an unknown world)."""
        request = query_pb2.CastRayRequest(
            world_id=world_id,
            ray=query_pb2.Ray(origin=_vec2(origin), translation=_vec2(translation)),
            filter=filter)
        call = self.queries.CastRayAll if all_hits else self.queries.CastRayClosest
        return call(request, timeout=self.timeout)

    def overlap_aabb(self, world_id, lower, upper, filter=None):
        """Shapes whose bounds overlap the box lower..upper ((x, y), m):
        an OverlapResponse (`tick`, `shapes` in index order)."""
        request = query_pb2.OverlapAabbRequest(
            world_id=world_id,
            aabb=query_pb2.Aabb(lower=_vec2(lower), upper=_vec2(upper)),
            filter=filter)
        return self.queries.OverlapAabb(request, timeout=self.timeout)

    def overlap_shape(self, world_id, shape, filter=None):
        """Shapes overlapping `shape`, a query_pb2.QueryShape (a circle,
        capsule, box or convex polygon placed at its position and angle):
        an OverlapResponse."""
        request = query_pb2.OverlapShapeRequest(world_id=world_id, shape=shape,
                                                filter=filter)
        return self.queries.OverlapShape(request, timeout=self.timeout)

    def overlap_circle(self, world_id, center, radius, filter=None):
        """overlap_shape with a circle of `radius` at `center` ((x, y), m)."""
        shape = query_pb2.QueryShape(
            circle=scene_pb2.CircleGeometry(radius=radius), position=_vec2(center))
        return self.overlap_shape(world_id, shape, filter)

    def join(self, world_id, slot, token):
        """Joins as a player; returns a Player once the server's Joined came."""
        return Player(self.channel, world_id, slot, token, self.timeout)

    def close(self):
        self.channel.close()


class Player:
    """A SessionService.Connect stream: send inputs, read server messages."""

    _END = object()

    def __init__(self, channel, world_id, slot, token, timeout):
        self._outgoing = queue.Queue()
        self._incoming = queue.Queue()
        self._sequence = 0
        stub = session_pb2_grpc.SessionServiceStub(channel)
        self._outgoing.put(session_pb2.ClientMessage(
            join=session_pb2.Join(world_id=world_id, slot=slot, token=token)))
        self._call = stub.Connect(self._requests())
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        first = self.next(timeout)
        if first is None or not first.HasField("joined"):
            raise RuntimeError("no Joined from the server")
        self.joined = first.joined

    def _requests(self):
        while True:
            message = self._outgoing.get()
            if message is self._END:
                return
            yield message

    def _read(self):
        try:
            for message in self._call:
                self._incoming.put(message)
        except grpc.RpcError as error:
            self._incoming.put(error)
        self._incoming.put(self._END)

    def next(self, timeout=None):
        """The next ServerMessage, None at the end of the stream. Raises the
        stream's grpc.RpcError when it failed (bad token, unknown world)."""
        item = self._incoming.get(timeout=timeout)
        if isinstance(item, grpc.RpcError):
            raise item
        return None if item is self._END else item

    def send(self, commands, target_tick=0):
        """Sends an Input (target_tick 0: as soon as the input delay allows)."""
        self._sequence += 1
        self._outgoing.put(session_pb2.ClientMessage(input=session_pb2.Input(
            target_tick=target_tick, sequence=self._sequence, commands=commands)))
        return self._sequence

    def ack(self, snapshot_tick):
        self._outgoing.put(session_pb2.ClientMessage(
            ack=session_pb2.Ack(snapshot_tick=snapshot_tick)))

    def leave(self):
        """Half-closes the stream (leaves the world)."""
        self._outgoing.put(self._END)
        self._reader.join(timeout=5)
