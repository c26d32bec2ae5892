#!/usr/bin/env bash
# The native row of bench:sim, measured on this machine: the same fixture scenes as bench:sim, built as
# box2d-engine.ts builds them (world/box2d-recipe.ts), on Debian's Box2D 2.4.1. Needs g++ and libbox2d-dev (apt-get install g++ libbox2d-dev).
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
g++ -O2 -std=c++17 -o "$work/box2d-native" bench/native/box2d-native.cpp -lbox2d
node --import tsx bench/native/dump-recipes.ts "${1:-20}" > "$work/recipes.txt"
echo "level steps-per-CPU-second (native Box2D $(dpkg-query -W -f '${Version}' libbox2d-dev), best of 5 passes, ${1:-20} scenes per level)"
"$work/box2d-native" "$work/recipes.txt" 5
