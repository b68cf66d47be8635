// atoll::sim — the deterministic part of a hosted world, shared by the
// server and the client.
//
// A Simulation is an engine World plus the little server state that
// influences future ticks (which player slot owns which body, the scene's
// spawn templates, the body limit). Everything that changes it goes through
// Step() with confirmed inputs, so the server, a predicting client, a replay
// and a test re-simulating a recording all make the same engine calls in the
// same order and get the same hash chain.

#ifndef ATOLL_SIM_SIMULATION_H_
#define ATOLL_SIM_SIMULATION_H_

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "atoll/scene.h"
#include "atoll/v1/common.pb.h"
#include "atoll/v1/recording.pb.h"
#include "atoll/v1/scene.pb.h"
#include "atoll/world.h"

namespace atl::sim {

/// Ticks ahead of the current tick an Input may target.
inline constexpr uint64_t kMaxTicksAhead = 120;

/// Fills in the defaults of `config` and checks every field; returns the
/// effective configuration or InvalidArgument naming "config.<field>".
/// `server_max_bodies` caps config.max_bodies.
absl::StatusOr<v1::WorldConfig> NormalizeWorldConfig(
    const v1::WorldConfig& config, uint32_t server_max_bodies);

/// A spawn template (v1::BodyTemplate) as engine data: one body, or a
/// group of bodies posed in the spawn point's frame and the joints between
/// them (SceneJoint body indices count the group's bodies).
struct SpawnTemplate {
  bool group = false;
  std::vector<SceneBody> bodies;
  std::vector<SceneJoint> joints;
};

/// A scene spec turned into engine data: the SceneDesc, the owner slot of
/// each body and joint (0 = none) and the spawn templates by name.
struct BuiltScene {
  SceneDesc desc;
  std::vector<uint32_t> owners;
  /// The owner slot of each joint of desc.joints (0 = none).
  std::vector<uint32_t> joint_owners;
  std::map<std::string, SpawnTemplate> templates;
};

/// Converts a spec. InvalidArgument naming the field ("scene.bodies[2].
/// shapes[0].circle.radius: ...", "scene.joints[3].revolute.lower_angle:
/// ...") for anything the engine would refuse, a joint naming a missing
/// body, one body twice or two static bodies, an owner slot above
/// `player_slots`, duplicate material or template names; NotFound for an
/// unknown built-in scene or material. A spec it accepts builds a world.
absl::StatusOr<BuiltScene> BuildScene(const v1::SceneSpec& spec,
                                      uint32_t player_slots);

/// BodyRef <-> engine BodyId (worlds hosted by the server have world_id 1).
BodyId ToBodyId(const v1::BodyRef& ref);
v1::BodyRef ToBodyRef(BodyId id);
/// JointRef <-> engine JointId.
JointId ToJointId(const v1::JointRef& ref);
v1::JointRef ToJointRef(JointId id);

/// A command the step could not carry out (the body died meanwhile, ...).
/// Deterministic: every replica fails the same commands.
struct CommandFailure {
  uint32_t slot = 0;
  uint64_t sequence = 0;
  int command_index = 0;
  absl::Status status;
};

class Simulation {
 public:
  /// A world at tick 0 built from `spec` with the effective `config`
  /// (see NormalizeWorldConfig). Errors as BuildScene, and
  /// ResourceExhausted when the scene has more than config.max_bodies bodies.
  static absl::StatusOr<std::unique_ptr<Simulation>> Create(
      const v1::SceneSpec& spec, const v1::WorldConfig& config);

  /// A world in the state of `checkpoint`, for the scene and config the
  /// checkpoint was taken under. InvalidArgument / DataLoss for a bad
  /// snapshot.
  static absl::StatusOr<std::unique_ptr<Simulation>> Restore(
      const v1::SceneSpec& spec, const v1::WorldConfig& config,
      const v1::Checkpoint& checkpoint);

  /// Ticks stepped so far (the engine's step count).
  uint64_t tick() const;
  /// State hash of the current tick.
  uint64_t hash() const { return hash_; }
  const v1::WorldConfig& config() const { return config_; }
  const World& world() const { return *world_; }
  float time_step() const { return time_step_; }

  /// Checks the commands of an Input from `slot` against the current state
  /// without changing anything: known command kinds, finite values, bodies
  /// that exist (NotFound) and that `slot` owns (PermissionDenied), templates
  /// that exist, and the body limit counting `pending_spawns` bodies that
  /// spawns already queued will add (SpawnedBodies) (ResourceExhausted).
  /// Messages and *field start with the field path, e.g.
  /// "input.commands[1].apply_impulse.body".
  absl::Status CheckCommands(uint32_t slot,
                             const google::protobuf::RepeatedPtrField<v1::Command>& commands,
                             int pending_spawns, std::string* field) const;

  /// The bodies the spawn_body commands among `commands` would add (a group
  /// template counts its bodies; unknown templates count nothing).
  int SpawnedBodies(const google::protobuf::RepeatedPtrField<v1::Command>& commands) const;

  /// Applies `inputs` in the order given (callers sort by slot, sequence),
  /// each command re-checked against the state at that moment (a failing
  /// command does nothing and is appended to *failures), then steps the
  /// world once and updates the hash.
  absl::Status Step(std::span<const v1::ConfirmedInput> inputs,
                    std::vector<CommandFailure>* failures);

  /// Step without updating the hash: for a client's predicted replica,
  /// whose state is never compared (HashWorld serializes the whole world).
  /// hash() stays that of the last hashed state until a Step, a restore or
  /// CopyStateFrom.
  absl::Status StepUnhashed(std::span<const v1::ConfirmedInput> inputs,
                            std::vector<CommandFailure>* failures);

  /// Replaces this simulation's state (world, owners, hash) with the state of
  /// `checkpoint`, keeping its scene templates and config. InvalidArgument /
  /// DataLoss for a bad snapshot or a hash that does not match; the state is
  /// unchanged then.
  absl::Status RestoreCheckpoint(const v1::Checkpoint& checkpoint);

  /// Makes this simulation's state (world, owners, hash) equal to `other`'s,
  /// through a snapshot: the rollback of a predicting client. Both must come
  /// from the same scene and config. Errors as RestoreSnapshot.
  absl::Status CopyStateFrom(const Simulation& other);

  /// The checkpoint of the current tick. `last_sequence` is stored as is.
  /// After a hashed Step (or a create, restore or RestoreCheckpoint) its
  /// snapshot is the bytes the hash was computed from, not serialized again.
  v1::Checkpoint SaveCheckpoint(
      const std::vector<uint64_t>& last_sequence) const;

  /// The owner slot of a body, 0 when none (or the body is dead).
  uint32_t OwnerOf(BodyId id) const;
  /// Owned bodies in index order.
  std::vector<v1::OwnedBody> Owners() const;
  /// The owner slot of a joint (JointSpec.owner_slot), 0 when none (or the
  /// joint is gone: destroyed, broken, or with one of its bodies).
  uint32_t OwnerOf(JointId id) const;
  /// Owned live joints in index order.
  std::vector<v1::OwnedJoint> JointOwners() const;

 private:
  Simulation() = default;
  absl::Status ApplyCommand(uint32_t slot, const v1::Command& command);
  absl::Status ApplyAndStep(std::span<const v1::ConfirmedInput> inputs,
                            std::vector<CommandFailure>* failures);
  // Replaces the body and joint owners by the checkpoint's.
  void SetOwners(const v1::Checkpoint& checkpoint);

  v1::WorldConfig config_;
  float time_step_ = 1.0f / 60.0f;
  std::unique_ptr<World> world_;
  std::map<std::string, SpawnTemplate> templates_;
  // body index -> (generation, slot). Ordered: checkpoints list it in order.
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> owners_;
  // joint index -> (generation, slot), live joints only (see ApplyAndStep).
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> joint_owners_;
  uint64_t hash_ = 0;
  // HashWorld's working buffer (and CopyStateFrom's): it does not hold a
  // snapshot, since HashWorld hashes the bytes as it writes them.
  std::string scratch_;
};

}  // namespace atl::sim

#endif  // ATOLL_SIM_SIMULATION_H_
