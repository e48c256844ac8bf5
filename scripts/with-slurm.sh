#!/usr/bin/env bash
# Runs a command (its arguments) with a Slurm cluster answering: when no
# cluster does, it starts the single-node one of scripts/slurm-local.sh
# first and stops it afterwards, also when the command fails or is
# interrupted. The command's exit status is the script's.
set -euo pipefail
local_cluster="$(dirname "$0")/slurm-local.sh"
if timeout 3 sinfo -h -N -o '%T' 2>/dev/null | grep -Eq '^(idle|mixed)'; then
  exec "$@"
fi
"$local_cluster" start
trap '"$local_cluster" stop' EXIT
"$@"
