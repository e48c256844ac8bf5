#!/usr/bin/env bash
# Installs what Gallop needs to build, run and test, and nothing that is
# already there. Debian / Ubuntu (apt-get); run as root or with sudo.
# --test adds what only the tests use (Blender, a real glTF client).
set -euo pipefail

packages=(
  # cgo toolchain
  gcc g++ pkg-config
  # GLFW (window, OpenGL context) under giu / cimgui-go
  libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev libxinerama-dev libxi-dev libxxf86vm-dev
  # native file dialogs (sqweek/dialog uses GTK 3)
  libgtk-3-dev
  # rigid-body physics for the Gallery tool (ODE, the Open Dynamics Engine)
  libode-dev
  # GUI tests and benchmarks without a display: virtual X server, input, screenshots
  xvfb xdotool imagemagick
  # gallop farm's Slurm engine and its tests (scripts/slurm-local.sh starts a one-node cluster)
  slurm-wlm munge
)
if [ "${1:-}" = "--test" ]; then
  # Blender reads Gallop's glTF exports back in the tests, as an artist's
  # Blender would (gallop/assets/gltftest.Blender)
  packages+=(blender python3-numpy)
fi
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
