# Pilot (not shipped): what starts and extends false presence in the simulated empty rooms, and what tells a
# person from a cat, a fan or a door; validation rooms only. Reads the dump of pilot/sim_pets_dump.mjs:
#   node plugins/sensing/pilot/sim_pets_dump.mjs 18 > /tmp/pets/dump18.jsonl
#   python3 plugins/sensing/pilot/sim_pets.py /tmp/pets/dump18.jsonl [GRID=1 in the environment: the grid too]
# It replays the presence rules per link (as src/signal/presence.ts; on the dump of the shipped build the
# replay matches every link second's presence) and fuses links per room ("any link").
# Rooms 0-5 are the validation rooms `eval:sim --fit` chooses on; 6-17 are further rooms of the validation
# split (seeds 72006-72017), unseen by any fit. The first choice (on rooms 0-5 alone) lost recall on the test
# rooms; the shipped one is the recall-keeping end of the front over all 18 (docs/sensing.md, pets round).
import json, os, sys
from collections import defaultdict
import numpy as np

rows = [json.loads(l) for l in open(sys.argv[1] if len(sys.argv) > 1 else '/tmp/pets/dump.jsonl')]
sess = defaultdict(lambda: defaultdict(dict))
for r in rows:
    sess[(r['kind'], r['room'])][r['link']][r['s']] = r

def label(r):
    if r['pp']:
        return 'person-moving' if r['v'] >= 0.2 else 'person-still'
    if r['door'] and r['cat']:
        return 'door+cat'
    if r['door']:
        return 'door'
    if r['cat']:
        return 'cat'
    return 'nothing'

# 1. Distribution of features on moving seconds by what moved.
print('== moving seconds (motion >= 0.5) by source: n, quantiles 10/50/90 of ps/pf, ps, sp')
by = defaultdict(list)
for r in rows:
    if r['mo'] >= 0.5 and r['s'] >= 10:
        by[(r['kind'] if r['pp'] else 'empty', label(r))].append(r)
for k, v in sorted(by.items()):
    ratio = np.array([x['ps'] / max(x['pf'], 1e-6) for x in v]); ps = np.array([x['ps'] for x in v]); sp = np.array([x['sp'] for x in v])
    q = lambda a: ' '.join(f'{x:.3g}' for x in np.percentile(a, [10, 50, 90]))
    print(f'{k}: n={len(v)} ratio[{q(ratio)}] ps[{q(ps)}] sp[{q(sp)}]')

# 2. Per-link moving seconds share while nothing moves (a link that reads moving all the time).
print('== per link: share of moving seconds by label (empty sessions)')
for (kind, room), links in sorted(sess.items()):
    if kind != 'empty':
        continue
    for link, secs in links.items():
        c = defaultdict(lambda: [0, 0])
        for s, r in secs.items():
            if s < 10: continue
            c[label(r)][0] += r['mo'] >= 0.5; c[label(r)][1] += 1
        print(room, link, {k: f'{a}/{b}' for k, a, b in ((k, *v) for k, v in c.items())})

# 3. Replay of the presence rules, with optional discrimination; `rule` keys:
#   entryRatio: a moving second counts toward an entry only if pairSpread/pairFloor >= this (0: any)
#   keepRatio: a moving second extends presence only if pairSpread/pairFloor >= this
def latch(secs, rule):
    out = {}; mov = []; br = []; rat = []; present = False; last = -1e9; bases = {}
    n = max(secs) + 1 if secs else 0
    for s in range(n):
        r = secs.get(s)
        if r is None:
            out[s] = present; continue
        moving = r['mo'] >= 0.5
        ratio = r['ps'] / max(r['pf'], 1e-6)
        warm = s < rule.get('warmup', 0)
        big = moving and (warm or ratio >= rule.get('entryRatio', 0))
        keep = moving and (warm or ratio >= rule.get('keepRatio', 0))
        breathing = r['b']
        starts = breathing and rule.get('bmin', 0) <= (r['eb'] or 0) <= rule.get('bmax', 99)
        mov.append(1 if big else 0); br.append(1 if starts else 0); rat.append(ratio if big and not warm else (99 if big else 0))
        recent = sum(mov[-rule.get('win', 10):]); breathed = sum(br[-30:])
        if recent >= rule.get('entry', 3) and max(rat[-rule.get('win', 10):]) < rule.get('entryPeak', 0): recent = 0
        if keep or (big and recent >= rule.get('entry', 3)) or (moving and not rule): last = s
        basis = 'none'
        if big and recent >= rule.get('entry', 3): basis = 'entry'
        elif present and keep: basis = 'moving'
        elif breathing and (present or breathed >= rule.get('bstart', 20)): basis = 'breathing'
        elif present and s - last <= rule.get('hold', 300): basis = 'hold'
        present = basis != 'none'
        out[s] = present; bases[s] = basis
    return out, bases

def score(rule, verbose=False):
    still = [0, 0]; eps = 0; empty_s = 0; pres_s = 0; after = []
    detail = []
    for (kind, room), links in sorted(sess.items()):
        lat = {l: latch(secs, rule) for l, secs in links.items()}
        n = max(max(secs) for secs in links.values()) + 1
        fused = [any(lat[l][0].get(s, False) for l in links) for s in range(n)]
        truth = [any(links[l].get(s, {}).get('pp', False) for l in links) for s in range(n)]
        if kind == 'still':
            for s in range(10, n):
                if truth[s]: still[1] += 1; still[0] += fused[s]
            miss = sum(1 for s in range(10, n) if truth[s] and not fused[s])
            if miss: detail.append(f'still room {room}: {miss} s missed')
        elif kind == 'empty':
            was = False
            for s in range(10, n):
                empty_s += 1; pres_s += fused[s]
                if fused[s] and not was:
                    eps += 1
                    # who started it: links whose basis is entry/breathing at s, and their labels
                    why = [f"{l}:{lat[l][1].get(s)}:{label(links[l][s]) if s in links[l] else '-'}" for l in links if lat[l][0].get(s)]
                    end = s
                    while end < n and fused[end]: end += 1
                    ext = defaultdict(int)
                    for l in links:
                        for t in range(s, end):
                            if lat[l][1].get(t) in ('moving', 'entry'): ext[label(links[l][t])] += 1
                    detail.append(f'empty room {room} episode {s}-{end} ({end - s} s) started by {why}; moving seconds inside: {dict(ext)}')
                was = fused[s]
        elif kind == 'leave':
            left = max(s for s in range(n) if truth[s]) + 1
            after.append(sum(1 for s in range(left + 5, n) if fused[s]))
    rec = still[0] / max(1, still[1]); perday = eps / max(1, empty_s) * 86400
    after.sort()
    if verbose:
        for d in detail: print('  ', d)
    return rec, perday, pres_s / max(1, empty_s), after[len(after) // 2] if after else None, eps

if __name__ == '__main__':
    SHIPPED = dict(entryRatio=2, keepRatio=0, warmup=30, entry=4)
    FIRST = dict(entryRatio=2, keepRatio=2, warmup=30, entry=4, bmax=25)
    print('== replay: (recall, false presence per day, share of empty seconds present, after leaving median, episodes)')
    print('before (3 moving s in 10, any size):', score({}, verbose=True))
    print('first choice (rooms 0-5):', FIRST, score(FIRST))
    print('shipped:', SHIPPED, score(SHIPPED, verbose=True))
    if os.environ.get('GRID'):
        import itertools
        res = []
        for er, kr, wu, en, bmax in itertools.product([0, 2, 2.5, 3], [0, 1.5, 2], [20, 30, 60], [3, 4, 5], [25, 30, 35, 99]):
            rule = dict(entryRatio=er, keepRatio=kr, warmup=wu, entry=en, bmax=bmax)
            res.append((score(rule), rule))
        print('== front: the fewest episodes at each recall')
        front = []
        for sc, r in sorted(res, key=lambda x: (-x[0][0], x[0][4])):
            if not front or sc[4] < front[-1][0][4]:
                front.append((sc, r))
                print(f'recall {sc[0]:.3f} per day {sc[1]:.1f} ({sc[4]} ep) share {sc[2]:.2f} after {sc[3]}', r)
