package rig

import "gallop/internal/shard"

// Plan is how `gallop rig` runs in shards: one round, each shard rigging
// its block of the animations.
var Plan = shard.Plan{Command: "rig", Rounds: 1}
