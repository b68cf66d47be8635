#include "dynamics/island.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "atoll/assert.h"
#include "world/world_state.h"

namespace atl {
namespace {

void AddBodyToIsland(WorldState* w, int32_t island_index, int32_t body_index) {
  Island& island = w->islands[island_index];
  Body& body = w->bodies[body_index];
  body.island = island_index;
  body.island_prev = island.tail_body;
  body.island_next = kNullIndex;
  if (island.tail_body != kNullIndex) {
    w->bodies[island.tail_body].island_next = body_index;
  } else {
    island.head_body = body_index;
  }
  island.tail_body = body_index;
  ++island.body_count;
}

void AddContactToIsland(WorldState* w, int32_t island_index, int32_t contact_index) {
  Island& island = w->islands[island_index];
  Contact& contact = w->contacts[contact_index];
  contact.island = island_index;
  contact.island_prev = island.tail_contact;
  contact.island_next = kNullIndex;
  if (island.tail_contact != kNullIndex) {
    w->contacts[island.tail_contact].island_next = contact_index;
  } else {
    island.head_contact = contact_index;
  }
  island.tail_contact = contact_index;
  ++island.contact_count;
}

void AddJointToIsland(WorldState* w, int32_t island_index, int32_t joint_index) {
  Island& island = w->islands[island_index];
  Joint& joint = w->joints[joint_index];
  joint.island = island_index;
  joint.island_prev = island.tail_joint;
  joint.island_next = kNullIndex;
  if (island.tail_joint != kNullIndex) {
    w->joints[island.tail_joint].island_next = joint_index;
  } else {
    island.head_joint = joint_index;
  }
  island.tail_joint = joint_index;
  ++island.joint_count;
}

int32_t AllocIsland(WorldState* w) {
  const int32_t index = w->island_ids.Alloc();
  if (index >= static_cast<int32_t>(w->islands.size())) w->islands.resize(index + 1);
  w->islands[index] = Island();
  return index;
}

// Moves every body and contact of `from` into `into` and frees `from`.
void MergeInto(WorldState* w, int32_t into, int32_t from) {
  Island& src = w->islands[from];
  for (int32_t b = src.head_body; b != kNullIndex;) {
    const int32_t next = w->bodies[b].island_next;
    AddBodyToIsland(w, into, b);
    b = next;
  }
  for (int32_t c = src.head_contact; c != kNullIndex;) {
    const int32_t next = w->contacts[c].island_next;
    AddContactToIsland(w, into, c);
    c = next;
  }
  for (int32_t j = src.head_joint; j != kNullIndex;) {
    const int32_t next = w->joints[j].island_next;
    AddJointToIsland(w, into, j);
    j = next;
  }
  // Removed constraints of the absorbed island still may have split it.
  w->islands[into].constraint_remove_count += src.constraint_remove_count;
  w->island_ids.Free(from);
}

}  // namespace

bool IsIslandConstraint(const WorldState& w, int32_t contact_index) {
  const Contact& c = w.contacts[contact_index];
  if ((c.flags & kContactTouching) == 0 || (c.flags & kContactSensor) != 0) {
    return false;
  }
  return w.bodies[c.body_a].type == BodyType::kDynamic &&
         w.bodies[c.body_b].type == BodyType::kDynamic;
}

bool IsIslandJoint(const WorldState& w, int32_t joint_index) {
  const Joint& j = w.joints[joint_index];
  if (j.body_a == kNullIndex) return false;
  const Body& a = w.bodies[j.body_a];
  const Body& b = w.bodies[j.body_b];
  return a.type == BodyType::kDynamic && b.type == BodyType::kDynamic && a.enabled && b.enabled;
}

void CreateIslandForBody(WorldState* w, int32_t body_index) {
  const int32_t island = AllocIsland(w);
  w->islands[island].awake = w->bodies[body_index].awake;
  AddBodyToIsland(w, island, body_index);
}

void RemoveBodyFromIsland(WorldState* w, int32_t body_index) {
  Body& body = w->bodies[body_index];
  const int32_t island_index = body.island;
  if (island_index == kNullIndex) return;
  Island& island = w->islands[island_index];
  if (body.island_prev != kNullIndex) {
    w->bodies[body.island_prev].island_next = body.island_next;
  } else {
    island.head_body = body.island_next;
  }
  if (body.island_next != kNullIndex) {
    w->bodies[body.island_next].island_prev = body.island_prev;
  } else {
    island.tail_body = body.island_prev;
  }
  body.island = body.island_prev = body.island_next = kNullIndex;
  if (--island.body_count == 0) {
    ATOLL_ASSERT(island.contact_count == 0 && island.joint_count == 0);
    w->island_ids.Free(island_index);
  }
}

void WakeIsland(WorldState* w, int32_t island_index) {
  Island& island = w->islands[island_index];
  if (island.awake) return;
  island.awake = true;
  for (int32_t b = island.head_body; b != kNullIndex; b = w->bodies[b].island_next) {
    Body& body = w->bodies[b];
    body.awake = true;
    body.sleep_time = 0.0f;
    RefileBodyProxies(w, b);
  }
}

void SleepIsland(WorldState* w, int32_t island_index) {
  Island& island = w->islands[island_index];
  island.awake = false;
  for (int32_t b = island.head_body; b != kNullIndex; b = w->bodies[b].island_next) {
    Body& body = w->bodies[b];
    body.awake = false;
    body.linear_velocity = {0.0f, 0.0f};
    body.angular_velocity = 0.0f;
    body.force = {0.0f, 0.0f};
    body.torque = 0.0f;
    RefileBodyProxies(w, b);
  }
}

namespace {

// Wakes and merges the islands of two bodies joined by a new constraint;
// returns the surviving island.
int32_t MergeIslandsOf(WorldState* w, int32_t body_a, int32_t body_b) {
  int32_t a = w->bodies[body_a].island;
  int32_t b = w->bodies[body_b].island;
  ATOLL_ASSERT(a != kNullIndex && b != kNullIndex);
  // A new constraint wakes both sides at once (seed 002: merges are never
  // deferred, so waking propagates within the step).
  WakeIsland(w, a);
  WakeIsland(w, b);
  if (a != b) {
    // Union by size: relink the smaller island's members into the larger.
    // Ties go to the lower index so the result depends only on the data.
    const Island& ia = w->islands[a];
    const Island& ib = w->islands[b];
    if (ib.body_count > ia.body_count ||
        (ib.body_count == ia.body_count && b < a)) {
      std::swap(a, b);
    }
    MergeInto(w, a, b);
  }
  return a;
}

}  // namespace

void LinkContact(WorldState* w, int32_t contact_index) {
  ATOLL_ASSERT(IsIslandConstraint(*w, contact_index));
  const Contact& contact = w->contacts[contact_index];
  AddContactToIsland(w, MergeIslandsOf(w, contact.body_a, contact.body_b), contact_index);
}

void LinkJoint(WorldState* w, int32_t joint_index) {
  ATOLL_ASSERT(IsIslandJoint(*w, joint_index));
  const Joint& joint = w->joints[joint_index];
  AddJointToIsland(w, MergeIslandsOf(w, joint.body_a, joint.body_b), joint_index);
}

void UnlinkJoint(WorldState* w, int32_t joint_index) {
  Joint& joint = w->joints[joint_index];
  const int32_t island_index = joint.island;
  if (island_index == kNullIndex) return;
  Island& island = w->islands[island_index];
  if (joint.island_prev != kNullIndex) {
    w->joints[joint.island_prev].island_next = joint.island_next;
  } else {
    island.head_joint = joint.island_next;
  }
  if (joint.island_next != kNullIndex) {
    w->joints[joint.island_next].island_prev = joint.island_prev;
  } else {
    island.tail_joint = joint.island_prev;
  }
  joint.island = joint.island_prev = joint.island_next = kNullIndex;
  --island.joint_count;
  ++island.constraint_remove_count;
}

void UnlinkContact(WorldState* w, int32_t contact_index) {
  Contact& contact = w->contacts[contact_index];
  const int32_t island_index = contact.island;
  if (island_index == kNullIndex) return;
  Island& island = w->islands[island_index];
  if (contact.island_prev != kNullIndex) {
    w->contacts[contact.island_prev].island_next = contact.island_next;
  } else {
    island.head_contact = contact.island_next;
  }
  if (contact.island_next != kNullIndex) {
    w->contacts[contact.island_next].island_prev = contact.island_prev;
  } else {
    island.tail_contact = contact.island_prev;
  }
  contact.island = contact.island_prev = contact.island_next = kNullIndex;
  --island.contact_count;
  ++island.constraint_remove_count;
}

void SplitIsland(WorldState* w, int32_t chosen) {
  // Gather the members, then rebuild islands from them by depth-first
  // search. The search cannot leave the old island: no constraint links it
  // to any other.
  std::vector<int32_t> bodies;
  bodies.reserve(w->islands[chosen].body_count);
  for (int32_t b = w->islands[chosen].head_body; b != kNullIndex;
       b = w->bodies[b].island_next) {
    bodies.push_back(b);
  }
  for (int32_t c = w->islands[chosen].head_contact; c != kNullIndex;) {
    const int32_t next = w->contacts[c].island_next;
    w->contacts[c].island = w->contacts[c].island_prev =
        w->contacts[c].island_next = kNullIndex;
    c = next;
  }
  for (int32_t j = w->islands[chosen].head_joint; j != kNullIndex;) {
    const int32_t next = w->joints[j].island_next;
    w->joints[j].island = w->joints[j].island_prev = w->joints[j].island_next = kNullIndex;
    j = next;
  }
  for (int32_t b : bodies) {
    w->bodies[b].island = w->bodies[b].island_prev = w->bodies[b].island_next =
        kNullIndex;
  }
  w->island_ids.Free(chosen);

  std::vector<int32_t> stack;
  for (int32_t seed : bodies) {
    if (w->bodies[seed].island != kNullIndex) continue;
    const int32_t island = AllocIsland(w);
    w->islands[island].awake = true;
    AddBodyToIsland(w, island, seed);
    stack.push_back(seed);
    while (!stack.empty()) {
      const int32_t body = stack.back();
      stack.pop_back();
      for (int32_t c : w->bodies[body].contacts) {
        Contact& contact = w->contacts[c];
        if (contact.island != kNullIndex || !IsIslandConstraint(*w, c)) continue;
        AddContactToIsland(w, island, c);
        const int32_t other = contact.body_a == body ? contact.body_b : contact.body_a;
        if (w->bodies[other].island == kNullIndex) {
          AddBodyToIsland(w, island, other);
          stack.push_back(other);
        }
      }
      for (int32_t j : w->bodies[body].joints) {
        Joint& joint = w->joints[j];
        if (joint.island != kNullIndex || !IsIslandJoint(*w, j)) continue;
        AddJointToIsland(w, island, j);
        const int32_t other = OtherJointBody(joint, body);
        if (w->bodies[other].island == kNullIndex) {
          AddBodyToIsland(w, island, other);
          stack.push_back(other);
        }
      }
    }
  }
}

void UpdateSleep(WorldState* w, const std::vector<uint8_t>& restless) {
  if (!w->def.enable_sleep) return;
  int32_t split = kNullIndex;
  for (int32_t i = 0; i < w->island_ids.Capacity(); ++i) {
    if (!w->island_ids.IsAlive(i)) continue;
    const Island& island = w->islands[i];
    if (!island.awake || (i < static_cast<int32_t>(restless.size()) && restless[i] != 0)) {
      continue;
    }
    if (island.constraint_remove_count == 0) {
      SleepIsland(w, i);
    } else if (split == kNullIndex || island.body_count > w->islands[split].body_count) {
      split = i;
    }
  }
  if (split != kNullIndex) SplitIsland(w, split);
}

std::string ValidateIslands(const WorldState& w) {
  // Records agree with the lists.
  std::vector<int32_t> body_seen(w.bodies.size(), 0), contact_seen(w.contacts.size(), 0);
  std::vector<int32_t> joint_seen(w.joints.size(), 0);
  for (int32_t i = 0; i < w.island_ids.Capacity(); ++i) {
    if (!w.island_ids.IsAlive(i)) continue;
    const Island& island = w.islands[i];
    int32_t count = 0;
    for (int32_t b = island.head_body; b != kNullIndex; b = w.bodies[b].island_next) {
      if (w.bodies[b].island != i) return absl::StrCat("body ", b, " listed in island ", i, " but says ", w.bodies[b].island);
      if (w.bodies[b].awake != island.awake) return absl::StrCat("body ", b, " awake flag differs from island ", i);
      ++body_seen[b];
      ++count;
    }
    if (count != island.body_count) return absl::StrCat("island ", i, " body count ", island.body_count, " but lists ", count);
    count = 0;
    for (int32_t c = island.head_contact; c != kNullIndex; c = w.contacts[c].island_next) {
      if (w.contacts[c].island != i) return absl::StrCat("contact ", c, " listed in island ", i);
      ++contact_seen[c];
      ++count;
    }
    if (count != island.contact_count) return absl::StrCat("island ", i, " contact count mismatch");
    count = 0;
    for (int32_t j = island.head_joint; j != kNullIndex; j = w.joints[j].island_next) {
      if (w.joints[j].island != i) return absl::StrCat("joint ", j, " listed in island ", i);
      ++joint_seen[j];
      ++count;
    }
    if (count != island.joint_count) return absl::StrCat("island ", i, " joint count mismatch");
  }
  for (int32_t b = 0; b < w.body_ids.Capacity(); ++b) {
    if (!w.body_ids.IsAlive(b)) continue;
    const Body& body = w.bodies[b];
    const bool wants_island = body.type == BodyType::kDynamic && body.enabled;
    if (wants_island != (body_seen[b] == 1)) return absl::StrCat("body ", b, " island membership wrong");
    if (!body.awake && (body.linear_velocity != Vec2{0.0f, 0.0f} || body.angular_velocity != 0.0f)) {
      return absl::StrCat("sleeping body ", b, " has velocity");
    }
  }
  for (int32_t c = 0; c < w.contact_ids.Capacity(); ++c) {
    if (!w.contact_ids.IsAlive(c)) continue;
    if (IsIslandConstraint(w, c) != (contact_seen[c] == 1)) {
      return absl::StrCat("contact ", c, " island membership wrong");
    }
    if (IsIslandConstraint(w, c) &&
        w.bodies[w.contacts[c].body_a].island != w.bodies[w.contacts[c].body_b].island) {
      return absl::StrCat("contact ", c, " joins two islands");
    }
  }
  for (int32_t j = 0; j < w.joint_ids.Capacity(); ++j) {
    if (!w.joint_ids.IsAlive(j)) continue;
    if (IsIslandJoint(w, j) != (joint_seen[j] == 1)) {
      return absl::StrCat("joint ", j, " island membership wrong");
    }
    if (IsIslandJoint(w, j) &&
        w.bodies[w.joints[j].body_a].island != w.bodies[w.joints[j].body_b].island) {
      return absl::StrCat("joint ", j, " joins two islands");
    }
  }
  // Components by DFS; each must be one island, and an unflagged island one
  // component.
  std::vector<int32_t> component(w.bodies.size(), kNullIndex);
  std::vector<int32_t> components_in_island(w.islands.size(), 0);
  std::vector<int32_t> stack;
  int32_t next_component = 0;
  for (int32_t seed = 0; seed < w.body_ids.Capacity(); ++seed) {
    if (!w.body_ids.IsAlive(seed) || w.bodies[seed].island == kNullIndex ||
        component[seed] != kNullIndex) {
      continue;
    }
    const int32_t id = next_component++;
    ++components_in_island[w.bodies[seed].island];
    component[seed] = id;
    stack.push_back(seed);
    while (!stack.empty()) {
      const int32_t b = stack.back();
      stack.pop_back();
      if (w.bodies[b].island != w.bodies[seed].island) {
        return absl::StrCat("bodies ", seed, " and ", b, " are connected but in different islands");
      }
      for (int32_t c : w.bodies[b].contacts) {
        if (!IsIslandConstraint(w, c)) continue;
        const int32_t other = w.contacts[c].body_a == b ? w.contacts[c].body_b : w.contacts[c].body_a;
        if (component[other] == kNullIndex) {
          component[other] = id;
          stack.push_back(other);
        }
      }
      for (int32_t j : w.bodies[b].joints) {
        if (!IsIslandJoint(w, j)) continue;
        const int32_t other = OtherJointBody(w.joints[j], b);
        if (component[other] == kNullIndex) {
          component[other] = id;
          stack.push_back(other);
        }
      }
    }
  }
  for (int32_t i = 0; i < w.island_ids.Capacity(); ++i) {
    if (!w.island_ids.IsAlive(i)) continue;
    if (components_in_island[i] > 1 && w.islands[i].constraint_remove_count == 0) {
      return absl::StrCat("island ", i, " holds ", components_in_island[i], " components but is not flagged for splitting");
    }
  }
  return "";
}

}  // namespace atl
