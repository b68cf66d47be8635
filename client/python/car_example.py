#!/usr/bin/env python3
"""A car and a ragdoll over the wire: creates a world from
examples/car_on_chain.json, joins as slot 1 (the car's driver) and slot 2,
drives the car's wheel-joint motors, spawns a ragdoll (one command makes its
four bodies and three joints), and ray-casts along the road to find the
car's front before and after.

    PYTHONPATH=build/release/python:client/python \\
        python3 client/python/car_example.py HOST:PORT [SCENE_JSON] [TICKS]
"""

import os
import sys

from google.protobuf import json_format

from atoll.v1 import common_pb2
from atoll.v1 import scene_pb2
from atoll_client import Client

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_SCENE = os.path.join(HERE, "..", "..", "examples", "car_on_chain.json")
CHASSIS = 1  # body index of the scene's car
WHEEL_JOINTS = (0, 1)  # its wheel joints, owned by slot 1


def motor(joint_index, speed):
    """A JointCommand setting a wheel joint's motor speed (rad/s)."""
    return common_pb2.Command(joint=common_pb2.JointCommand(
        joint=common_pb2.JointRef(index=joint_index, generation=1), motor_speed=speed))


def spawn(template, x, y):
    return common_pb2.Command(spawn_body=common_pb2.SpawnBody(
        template_name=template, position=scene_pb2.Vec2(x=x, y=y)))


def car_front(client, world_id):
    """Casts a ray leftwards along the road through the chassis (on its
    springs, its middle is about 1 m up) and returns (x of the chassis'
    right side, tick), or None."""
    hits = client.ray_cast(world_id, (35, 1.0), (-70, 0), all_hits=True)
    for hit in hits.hits:
        if hit.body.index == CHASSIS:
            return hit.point.x, hits.tick
    return None


def pump(player, frames):
    """Reads until `frames` frames have arrived, acking snapshots; prints
    joint breaks."""
    seen = 0
    while seen < frames:
        message = player.next(timeout=10)
        if message is None:
            raise SystemExit("the stream ended early")
        if message.HasField("error"):
            raise SystemExit(f"server error: {message.error.field}: {message.error.message}")
        if message.HasField("snapshot"):
            player.ack(message.snapshot.tick)
        if message.HasField("frame"):
            for event in message.frame.joint_breaks:
                print(f"tick {message.frame.tick} joint {event.joint.index} broke")
            seen += 1


def main():
    address = sys.argv[1]
    scene_path = sys.argv[2] if len(sys.argv) > 2 else DEFAULT_SCENE
    ticks = int(sys.argv[3]) if len(sys.argv) > 3 else 240
    with open(scene_path) as f:
        scene = json_format.Parse(f.read(), scene_pb2.SceneSpec())
    client = Client(address)
    created = client.create_world(scene, player_slots=2, tick_rate_hz=120)
    world_id = created.world.world_id
    print(f"created {world_id} with {created.world.body_count} bodies")
    driver = client.join(world_id, 1, created.tokens[0].token)
    guest = client.join(world_id, 2, created.tokens[1].token)
    pump(driver, 20)
    start = car_front(client, world_id)
    print(f"car front at x={start[0]:.2f} (tick {start[1]})")
    # Wheels turning clockwise (negative) roll the car towards +x.
    driver.send([motor(j, -12.0) for j in WHEEL_JOINTS])
    guest.send([spawn("ragdoll", 5.0, 4.0)])
    pump(driver, ticks)
    end = car_front(client, world_id)
    print(f"car front at x={end[0]:.2f} (tick {end[1]})")
    print(f"the car moved {end[0] - start[0]:.2f} m")
    bodies = [w.body_count for w in client.list_worlds() if w.world_id == world_id][0]
    print(f"bodies {bodies}")
    driver.leave()
    guest.leave()
    client.destroy_world(world_id)
    client.close()
    print("ok")


if __name__ == "__main__":
    main()
