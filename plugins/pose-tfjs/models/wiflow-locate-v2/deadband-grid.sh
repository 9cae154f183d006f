#!/bin/sh
# deadband-protocol.md: the shipped locator (S, dead band 0.2), the candidates (dead band 0.3, 0.4,
# 0.6: copies of locator.json with `imaging.staticChainGain.minDeviation` changed) and 2.2.0 (P:
# `staticChainGain` removed) through `wiflow locate eval --per-room --json` on `val` and `val2`,
# realism none and v2, one evaluation at a time under `nice`. A candidate that fails a guard on one
# split is not measured further (deadband-summary.mjs --alive).
# Usage, in plugins/pose-tfjs (package built): sh models/wiflow-locate-v2/deadband-grid.sh OUTDIR
set -e
out=${1:?output folder}; mkdir -p "$out"
here=models/wiflow-locate-v2
shipped=$here/locator.json
model() { # name minDeviation|none
  dir="$out/model-$1"; mkdir -p "$dir"
  node -e '
    const fs = require("fs"); const [src, dst, dev] = process.argv.slice(1);
    const m = JSON.parse(fs.readFileSync(src, "utf8"));
    if (dev === "none") { delete m.imaging.staticChainGain; m.version = "2.2.0"; }
    else if (dev !== "shipped") m.imaging.staticChainGain = { ...m.imaging.staticChainGain, minDeviation: Number(dev) };
    fs.writeFileSync(dst + "/locator.json", JSON.stringify(m, null, 1));
  ' "$shipped" "$dir" "$2"
}
run() { # name split realism
  f="$out/$1-$2-$3"; [ -s "$f.json" ] && return 0
  uptime > "$f.uptime"
  /usr/bin/time -f "%e %U %S" -o "$f.cpu" nice npx wiflow locate eval --split "$2" --realism "$3" --per-room --json --model "$out/model-$1" > "$f.json.part"
  mv "$f.json.part" "$f.json"; uptime >> "$f.uptime"
}
model S shipped; model P none
for c in 0.3 0.4 0.6; do model "$c" "$c"; done
for s in val val2; do for r in none v2; do run S $s $r; done; done
for c in 0.3 0.4 0.6; do
  for r in none v2; do for s in val val2; do
    node $here/deadband-summary.mjs "$out" --alive "$c" || continue 3
    run "$c" $s $r
  done; done
done
for s in val2 val; do for r in none v2; do run P $s $r; done; done
