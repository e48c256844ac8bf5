package ensemble

import "gallop/internal/shard"

// BuildPlan is how `gallop ensemble build` runs in shards: a prepared
// stage (the levels loaded and the model fitted, once), then two rounds,
// the first's shards running their blocks of the tasks within levels, the
// second's (which read all of the first) their blocks of the tasks between
// levels and checking their share of the transitions.
var BuildPlan = shard.Plan{Command: "ensemble build", Prepared: true, Rounds: 2}
