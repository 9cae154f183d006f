# Pilot (not shipped): what tells a person's arrival from a cat, a door or a wandering link, per moving run of a
# link; validation rooms only. Inputs: the empty sessions of the plain dump and the still and leaving sessions
# dumped with a 60-s empty lead-in (so a person's entry has a before):
#   node plugins/sensing/pilot/sim_pets_dump.mjs 18 > /tmp/pets/dump18.jsonl
#   LEAD=60 KINDS=still,leave node plugins/sensing/pilot/sim_pets_dump.mjs 18 > /tmp/pets/lead18.jsonl
#   python3 plugins/sensing/pilot/sim_pets_events.py /tmp/pets/dump18.jsonl /tmp/pets/lead18.jsonl
# A run: moving seconds (motion >= 0.5) with gaps of at most 2 s, from 30 s on. Per run: what moved (a person
# walking if any second has them at >= 0.2 m/s, else the door, else the cat, else nothing; person runs of the
# lead-in sessions split into the entry and the rest), its duration, peak size (pair spread / floor), the share
# of the room's links moving during it, the static step (RMS over the conjugate-product profile of the mean
# 5-15 s after the run minus the mean 2-12 s before it) over the quiet step (the same 12 s earlier, where
# nothing moved), and whether a breathing rate follows within 60 s.
import json, sys
from collections import defaultdict
import numpy as np

sess = defaultdict(lambda: defaultdict(dict))
for path, kinds in ((sys.argv[1], {'empty'}), (sys.argv[2], {'still', 'leave'})):
    for line in open(path):
        r = json.loads(line)
        if r['kind'] in kinds:
            sess[(r['kind'], r['room'])][r['link']][r['s']] = r

def mean_prof(secs, a, b):
    rows = [secs[s]['prof'] for s in range(a, b) if s in secs and secs[s]['prof']]
    return np.mean(rows, axis=0) if rows else None

runs = defaultdict(list)
for (kind, room), links in sess.items():
    for link, secs in links.items():
        n = max(secs) + 1
        mov = [s for s in range(30, n) if s in secs and secs[s]['mo'] >= 0.5]
        groups = []
        for s in mov:
            if groups and s - groups[-1][-1] <= 3: groups[-1].append(s)
            else: groups.append([s])
        for g in groups:
            a, b = g[0], g[-1] + 1
            rows = [secs[s] for s in range(a, b) if s in secs]
            if any(r['pp'] and r['v'] >= 0.2 for r in rows):
                first = min(s for s in secs if secs[s]['pp'])
                what = 'person entry' if a <= first + 5 else 'person other (exit, fidget)'
            elif any(r['pp'] for r in rows): what = 'person still (fidget)'
            elif any(r['door'] for r in rows): what = 'door'
            elif any(r['cat'] for r in rows): what = 'cat'
            else: what = 'nothing'
            peak = max(r['ps'] / max(r['pf'], 1e-9) for r in rows)
            others = [l for l in links if l != link]
            share = np.mean([any(t in links[l] and links[l][t]['mo'] >= 0.5 for t in range(a, b)) for l in others]) if others else None
            before, after, earlier = mean_prof(secs, a - 12, a - 2), mean_prof(secs, b + 5, b + 15), mean_prof(secs, a - 24, a - 14)
            step = quiet = None
            if before is not None and after is not None: step = float(np.sqrt(np.mean((after - before) ** 2)))
            if before is not None and earlier is not None: quiet = float(np.sqrt(np.mean((before - earlier) ** 2)))
            breath = any(secs.get(t, {}).get('b') for t in range(b, b + 60))
            runs[what].append(dict(dur=b - a, peak=peak, share=share, step=step, quiet=quiet, breath=breath))

q = lambda xs: ' / '.join(f'{v:.3g}' for v in np.percentile(xs, [10, 50, 90])) if len(xs) else '-'
print('what: runs | duration s | peak size | share of other links moving | static step | step / quiet step | breathing follows (10/50/90 %)')
for what, rs in sorted(runs.items()):
    dur = [r['dur'] for r in rs]; peak = [r['peak'] for r in rs]
    share = [r['share'] for r in rs if r['share'] is not None]
    step = [r['step'] for r in rs if r['step'] is not None]
    rel = [r['step'] / max(r['quiet'], 1e-6) for r in rs if r['step'] is not None and r['quiet'] is not None]
    print(f"{what}: {len(rs)} | {q(dur)} | {q(peak)} | {q(share)} ({len(share)} in 2-link rooms) | {q(step)} | {q(rel)} | {np.mean([r['breath'] for r in rs]):.2f}")
