#!/usr/bin/env bash
# Calibration of the hybrid engine's switch point (LIST_AT in
# src/game/hybrid.rs): times one node's max-models choice symbolically
# (phase 1/2 from the backbone, #SAT counts per outcome) and explicitly
# (listing the codes through SAT, then choosing on them) over the nodes
# of a few plays, so over a range of codes still possible. Release build.
#
# usage: [CALIBRATE="GAME ..."] [CALIBRATE_MIN=N] scripts/calibrate-hybrid.sh
#   CALIBRATE      games (default: mastermind:5x6 black-peg:5x6)
#   CALIBRATE_MIN  skip nodes with fewer codes (symbolic nodes deep in a
#                  play take minutes each)
# Prints: game, depth, codes, symbolic ms, listing ms, explicit ms.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release -q --lib calibrate_switch_point -- --ignored --nocapture 2>/dev/null |
  grep -P '\t'
