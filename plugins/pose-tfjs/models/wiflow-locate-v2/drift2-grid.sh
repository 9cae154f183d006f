#!/bin/sh
# drift2-protocol.md's candidates on validation rooms: each a copy of the shipped locator.json with
# its `imaging` changed (S: unchanged, the shipped model measured in the same session), through
# `wiflow locate eval --split val` (realism v2 and none).
# Usage, in plugins/pose-tfjs (package built): sh models/wiflow-locate-v2/drift2-grid.sh OUTDIR [CANDIDATES]
set -e
out=${1:?output folder}; mkdir -p "$out"
shipped=models/wiflow-locate-v2/locator.json
for c in ${2:-S Dd B}; do
  dir="$out/model-$c"; mkdir -p "$dir"
  node -e '
    const fs = require("fs"); const [src, dst, c] = process.argv.slice(1);
    const m = JSON.parse(fs.readFileSync(src, "utf8"));
    if (c.includes("D")) m.imaging.staticChainGain = { windowS: 30, minDeviation: c.includes("Dd") ? 0.2 : 0 };
    if (c.includes("B")) m.imaging.liveNoise = true;
    fs.writeFileSync(dst + "/locator.json", JSON.stringify(m, null, 1));
  ' "$shipped" "$dir" "$c"
  for realism in v2 none; do
    uptime > "$out/$c-$realism.uptime"
    /usr/bin/time -f "%e %U %S" -o "$out/$c-$realism.cpu" nice npx wiflow locate eval --split val --realism $realism --json --model "$dir" > "$out/$c-$realism.json"
    uptime >> "$out/$c-$realism.uptime"
  done
done
