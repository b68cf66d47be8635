#!/usr/bin/env python3
"""Creates a world, joins it as player 1, pushes its circle every tick,
prints the server's state hashes, then ray-casts and overlaps against the
world.

    PYTHONPATH=build/rel/python:client/python \
        python3 client/python/example.py HOST:PORT [TICKS]
"""

import sys

from atoll.v1 import common_pb2
from atoll.v1 import scene_pb2
from atoll_client import Client


def scene():
    """Zero gravity: a static floor and one circle owned by slot 1."""
    spec = scene_pb2.SceneSpec()
    spec.physics.gravity.CopyFrom(scene_pb2.Vec2(x=0, y=0))
    floor = spec.bodies.add(type=scene_pb2.BODY_TYPE_STATIC)
    floor.shapes.add().box.CopyFrom(scene_pb2.BoxGeometry(half_width=10, half_height=0.5))
    ball = spec.bodies.add(type=scene_pb2.BODY_TYPE_DYNAMIC, owner_slot=1)
    ball.position.CopyFrom(scene_pb2.Vec2(x=0, y=2))
    ball.shapes.add().circle.CopyFrom(scene_pb2.CircleGeometry(radius=0.5))
    return spec


def main():
    address = sys.argv[1]
    ticks = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    client = Client(address)
    created = client.create_world(scene(), player_slots=1, tick_rate_hz=120)
    world_id = created.world.world_id
    print(f"created {world_id} with {created.world.body_count} bodies")
    player = client.join(world_id, 1, created.tokens[0].token)
    print(f"joined at tick {player.joined.tick}")
    ball = common_pb2.BodyRef(index=1, generation=1)
    seen = 0
    sent = 0
    while seen < ticks:
        message = player.next(timeout=10)
        if message is None:
            raise SystemExit("the stream ended early")
        if message.HasField("snapshot"):
            player.ack(message.snapshot.tick)
        elif message.HasField("error"):
            raise SystemExit(f"server error: {message.error.message}")
        elif message.HasField("frame"):
            frame = message.frame
            if sent < ticks // 2:
                push = common_pb2.Command(apply_impulse=common_pb2.ApplyImpulse(
                    body=ball, impulse=scene_pb2.Vec2(x=0.5, y=0)))
                player.send([push])
                sent += 1
            mine = sum(len(i.commands) for i in frame.inputs if i.slot == 1)
            print(f"tick {frame.tick} hash {frame.state_hash:016x} commands {mine}")
            seen += 1
    player.leave()
    # What lies below (-5, 5)? The floor's top (y = 0.5), 4.5 m down.
    below = client.ray_cast(world_id, (-5, 5), (0, -10))
    print(f"ray hit body {below.hit.body.index} at fraction {below.hit.fraction:.3f}"
          f" (tick {below.tick})")
    near = client.overlap_circle(world_id, (-5, 1), 0.6)
    print(f"overlap {[s.body.index for s in near.shapes]} (tick {near.tick})")
    client.destroy_world(world_id)
    client.close()
    print("ok")


if __name__ == "__main__":
    main()
