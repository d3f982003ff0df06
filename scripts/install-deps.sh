#!/usr/bin/env bash
# Installs every Debian 12 package pipewave needs to build, test and run.
set -euo pipefail

packages=(
  cmake ninja-build g++ ccache git pkg-config python3 python3-numpy
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libopenmpi-dev openmpi-bin libopenblas-dev
  libgtest-dev
  libonnx-dev libprotobuf-dev protobuf-compiler libonnx-testdata python3-onnx
  clang-22 libclang-rt-22-dev clang-format-22
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "pipewave: all dependencies are installed"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "pipewave: run as root or install sudo" >&2; exit 1; }
  sudo=sudo
fi
echo "pipewave: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
