package gallery

import "gallop/internal/shard"

// SamplePlan is how `gallop sample` runs in shards: one round, each shard
// running its block of the chains.
var SamplePlan = shard.Plan{Command: "sample", Rounds: 1}
