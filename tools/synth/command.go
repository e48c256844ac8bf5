package synth

import "gallop/internal/shard"

// Plan is how `gallop synth` runs in shards: a prepared stage (the input
// loaded, its rig inferred and its figures measured, once), then one round
// of shards, each synthesising its block of the clips.
var Plan = shard.Plan{Command: "synth", Prepared: true, Rounds: 1}
