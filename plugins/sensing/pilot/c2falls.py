"""Pilot (not shipped): candidates (b) and (c) of pilot/c2falls-protocol.md, falls as a fast burst that ends in
stillness with the simulator's reverberant body on (C2).

Input: dumps of pilot/sim_burst_dump.mjs made with `--whatif C2` (training rooms with the demo home; validation
rooms 168-179 with `--falls-row --no-demo`). The burst feature E is the one of pilot/sim_burst.py (SMOOTH=5, LAG=5):
the 5-packet mean phasor's 5-packet step, mean over 0.5 s every 0.25 s, over the link's floor (10th percentile so far).
  python3 plugins/sensing/pilot/c2falls.py look TRAIN_DIR [SPLIT]       # step 2: training rooms only (SPLIT validation: information)
  python3 plugins/sensing/pilot/c2falls.py score TRAIN_DIR VAL_DIR      # step 3: fit and choose on training, score validation once
"""
import json, os, sys, time
import numpy as np
from burst_features import FEATURES, burst_candidates, fit
from burst_features import merge_links as merge_room

HOP, WIN, SMOOTH, LAG = 0.25, 0.5, 5, 5
DAY = 86400
GRID = [(b, s) for b in [3, 5, 8, 12] for s in [1.5, 2, 3]]
THRESHOLDS = [0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999]


def load(d):
    D = json.load(open(os.path.join(d, 'index.json')))
    for s in D:
        s['series'] = []
        for link in s['links']:
            a = np.fromfile(os.path.join(d, link['file']), dtype=np.float32).reshape(link['rows'], link['width'])
            t = a[:, 0].astype(float)
            z = a[:, 1::2] + 1j * a[:, 2::2]
            c = np.cumsum(np.vstack([np.zeros((1, z.shape[1])), z]), axis=0)
            zs = np.vstack([z[:SMOOTH - 1], (c[SMOOTH:] - c[:-SMOOTH]) / SMOOTH])
            dz = np.r_[np.zeros(LAG), np.abs(zs[LAG:] - zs[:-LAG]).mean(1)]
            grid = np.arange(0, t[-1] + 1e-9, HOP)
            cd = np.r_[0, np.cumsum(dz)]
            hi = np.searchsorted(t, grid, side='right')
            lo = np.searchsorted(t, grid - WIN, side='right')
            e = (cd[hi] - cd[lo]) / np.maximum(1, hi - lo)
            e[hi - lo < 3] = np.nan
            floor = np.empty_like(e)
            start = int(30 / HOP)
            for i in range(len(e)):
                w = e[: max(i + 1, start)]
                floor[i] = np.nanpercentile(w, 10) if np.isfinite(w).any() else np.nan
            s['series'].append((grid, e / (floor + 1e-6), t, zs))
        s['seconds'] = max(g[-1] for g, *_ in s['series'])
    return D


def is_fall(s, t):
    return any(w[0] - 2 <= t <= w[1] + 3 for w in s['falls'])


def group(s, t):
    """What a candidate at time t is at: the label used in the look and in the alarms by kind."""
    if is_fall(s, t):
        return 'fall'
    if any(w[1] + 12 <= t <= w[1] + 24 for w in s['falls']):
        return 'getting up'
    if any(w[0] - 2 <= t <= w[1] + 3 for w in s['fallLike']):
        return 'fall-like ' + next(w[2] for w in s['fallLike'] if w[0] - 2 <= t <= w[1] + 3)
    if s['kind'] in ('fall', 'fall-like'):
        return 'walk / stand (fall sessions)'
    return {'empty': 'empty room (fan, cat, door)', 'still': 'still person (fidgets)', 'leave': 'leave (walk, sit, leave)'}.get(s['kind'], s['kind'])


def candidates(s, burst, still):
    """Per link: the burst candidates of pilot/burst_features.py, with the session, truth and movement group."""
    return [dict(s=s, t=tc, x=x, y=is_fall(s, tc), g=group(s, tc)) for g, e, t, z in s['series'] for tc, x in burst_candidates(g, e, t, z, burst, still, HOP)]


def merge_links(rows):
    """(c): a room's candidates within 2 s across links are one; each feature's largest value (after: smallest), + links."""
    out = []
    by = {}
    for r in rows:
        by.setdefault(id(r['s']), []).append(r)
    for mine in by.values():
        for gr, f, best in merge_room(mine):
            out.append(dict(s=best['s'], t=best['t'], x=f, y=any(r['y'] for r in gr), g=best['g']))
    return out


def alarms(rows, probs, sessions, thr):
    """Kept candidates within 2 s are one alarm; found falls, false alarms, per day, by group (falls-row sessions)."""
    found = total = false = 0
    secs = 0.0
    by = {}
    for s in sessions:
        kept = sorted((r['t'], r['g']) for r, p in zip(rows, probs) if r['s'] is s and p >= thr)
        merged = [k for j, k in enumerate(kept) if j == 0 or k[0] - kept[j - 1][0] >= 2]
        secs += s['seconds']
        for w in s['falls']:
            total += 1
            found += any(w[0] - 2 <= t <= w[1] + 3 for t, _ in merged)
        for t, g in merged:
            if not is_fall(s, t):
                false += 1
                by[g] = by.get(g, 0) + 1
    return found, total, false, false / max(secs, 1) * DAY, by


def auc(f, o):
    o = np.asarray(o)
    return float(np.mean([(x > o).mean() + 0.5 * (x == o).mean() for x in f])) if len(f) and len(o) else float('nan')


def look(D, split='train'):
    train = [s for s in D if s['split'] == split]
    print(f"{split} rooms: {len({s['room'] for s in train})}, {len(train)} sessions, {sum(s['seconds'] for s in train):.0f} s")
    # Per truth movement, the best link: peak E, half-height width, median E 2-8 s after and 4-1 s before.
    moves = {}
    for s in train:
        ws = [('fall', w[0], w[1]) for w in s['falls']] + [('getting up', w[1] + 15, w[1] + 18.5) for w in s['falls']] + [('fall-like ' + w[2], w[0], w[1]) for w in s['fallLike']]
        ws += [('walk before a fall', w[0] - 6, w[0] - 2) for w in s['falls'] if s['kind'] == 'fall']
        for kind, a, b in ws:
            best = None
            for g, e, *_ in s['series']:
                m = (g >= a - 0.25) & (g <= b + 0.5) & np.isfinite(e)
                if not m.any():
                    continue
                i = np.where(m)[0][np.argmax(e[m])]
                v = e[i]
                lo, hi = i, i
                while lo > 0 and e[lo - 1] > v / 2:
                    lo -= 1
                while hi < len(e) - 1 and e[hi + 1] > v / 2:
                    hi += 1
                after = np.nanmedian(e[(g >= b + 2) & (g <= b + 8)]) if ((g >= b + 2) & (g <= b + 8)).any() else np.nan
                before = np.nanmedian(e[(g >= a - 4) & (g <= a - 1)]) if ((g >= a - 4) & (g <= a - 1)).any() else np.nan
                if best is None or v > best[0]:
                    best = (v, (hi - lo + 1) * HOP, after, before)
            if best:
                moves.setdefault(kind, []).append(best)
    print('\nper truth movement, best link (median [10th-90th]): peak E, width (s), after (2-8 s), before (4-1 s); E in floor units')
    for k in sorted(moves):
        v = np.array(moves[k])
        cells = [f'{np.nanmedian(v[:, i]):.1f} [{np.nanpercentile(v[:, i], 10):.1f}-{np.nanpercentile(v[:, i], 90):.1f}]' for i in range(4)]
        print(f'| {k} | {len(v)} | ' + ' | '.join(cells) + ' |')
    # Candidate generators on training.
    print('\ncandidate generator (burst, still): training falls with a candidate, other candidates per day')
    for burst, still in GRID:
        rows = [r for s in train for r in candidates(s, burst, still)]
        f, n, a, d, _ = alarms(rows, [1] * len(rows), [s for s in train if s['kind'] != 'leave'], 0.5)
        print(f'  {burst} {still}: {f}/{n}, {d:.0f} per day')
    rows = [r for s in train for r in candidates(s, 3, 2)]
    print('\ncandidates (3, 2) by what they are at, feature medians; AUC fall vs the group per feature')
    groups = sorted({r['g'] for r in rows})
    falls = [r for r in rows if r['y']]
    print('| group | n | ' + ' | '.join(FEATURES) + ' |')
    for gname in groups:
        G = [r for r in rows if r['g'] == gname]
        med = [np.median([r['x'][i] for r in G]) for i in range(len(FEATURES))]
        aucs = [auc([r['x'][i] for r in falls], [r['x'][i] for r in G]) if gname != 'fall' else float('nan') for i in range(len(FEATURES))]
        print(f'| {gname} | {len(G)} | ' + ' | '.join(f'{m:+.2f}' + ('' if np.isnan(u) else f' ({u:.2f})') for m, u in zip(med, aucs)) + ' |')


def choose_generator(train):
    best = None
    for burst, still in GRID:
        rows = [r for s in train for r in candidates(s, burst, still)]
        f, n, a, d, _ = alarms(rows, [1] * len(rows), [s for s in train if s['kind'] != 'leave'], 0.5)
        key = (f, -d)
        if best is None or key > best[0]:
            best = (key, burst, still)
    return best[1], best[2]


def thresholds_loro(rows, rooms, train_sessions, make):
    """Leave-one-room-out probabilities on training; T1, T5 = lowest thresholds with <= 1, <= 5 false alarms per day."""
    probs = np.zeros(len(rows))
    for room in rooms:
        fit_rows = [r for r in rows if r['s']['room'] != room]
        model, _ = fit([make(r) for r in fit_rows], [r['y'] for r in fit_rows])
        idx = [i for i, r in enumerate(rows) if r['s']['room'] == room]
        if idx:
            probs[idx] = model([make(rows[i]) for i in idx])
    scored = [s for s in train_sessions if s['kind'] != 'leave']
    table = {thr: alarms(rows, probs, scored, thr) for thr in THRESHOLDS}
    t1 = next((t for t in THRESHOLDS if table[t][3] <= 1), THRESHOLDS[-1])
    t5 = next((t for t in THRESHOLDS if table[t][3] <= 5), THRESHOLDS[-1])
    return t1, t5, table


def score(D, V):
    c0 = time.process_time()
    train = [s for s in D if s['split'] == 'train']
    demo = [s for s in D if s['split'] == 'demo']
    val = [s for s in V if s['split'] == 'validation']
    burst, still = choose_generator(train)
    print(f'generator chosen on training: burst {burst}, still {still}')
    rooms = sorted({s['room'] for s in train})
    per_link = {'train': [r for s in train for r in candidates(s, burst, still)], 'val': [r for s in val for r in candidates(s, burst, still)], 'demo': [r for s in demo for r in candidates(s, burst, still)]}
    variants = {'(b) per link': (lambda rows: rows), '(c) links merged': merge_links}
    result = {}
    for name, shape in variants.items():
        R = {k: shape(v) for k, v in per_link.items()}
        make = lambda r: r['x']
        t1, t5, table = thresholds_loro(R['train'], rooms, train, make)
        print(f'\n{name}: candidates train {len(R["train"])} ({sum(r["y"] for r in R["train"])} at falls), validation {len(R["val"])} ({sum(r["y"] for r in R["val"])} at falls), demo {len(R["demo"])}')
        print('  training, leave-one-room-out: ' + ' | '.join(f'{t}: {v[0]}/{v[1]} {v[3]:.1f}/day' for t, v in table.items()))
        print(f'  chosen on training: T1 = {t1}, T5 = {t5}')
        model, _ = fit([make(r) for r in R['train']], [r['y'] for r in R['train']])
        pv = model([make(r) for r in R['val']]) if R['val'] else []
        pd = model([make(r) for r in R['demo']]) if R['demo'] else []
        first6 = [s for s in val if s['room'] < min(s['room'] for s in val) + 6]
        out = {}
        for label, thr in (('T1', t1), ('T5', t5)):
            a = alarms(R['val'], pv, val, thr)
            b = alarms(R['val'], pv, first6, thr)
            c = alarms(R['demo'], pd, demo, thr)
            out[label] = dict(threshold=thr, validation=a[:4], by=a[4], first6=b[:4], demo=c[:3])
            print(f'  validation at {label} = {thr}: {a[0]}/{a[1]} found, {a[2]} false = {a[3]:.1f}/day (by kind {a[4]}); rooms of the first six: {b[0]}/{b[1]}, {b[3]:.1f}/day; demo {c[0]}/{c[1]} + {c[2]} false')
        # Information only (not a choice): the validation curve, with the false alarms by what they were at.
        for t in THRESHOLDS:
            a = alarms(R['val'], pv, val, t)
            print(f'  validation curve (information) {t}: {a[0]}/{a[1]} {a[3]:.1f}/day {a[4]}')
        result[name] = out
    print(f'\nanalysis CPU {time.process_time() - c0:.0f} s')
    return result


if __name__ == '__main__':
    mode = sys.argv[1]
    c0 = time.process_time()
    D = load(sys.argv[2])
    print(f'loaded {sys.argv[2]}: {time.process_time() - c0:.0f} CPU-s')
    if mode == 'look':
        look(D, sys.argv[3] if len(sys.argv) > 3 else 'train')
    else:
        V = load(sys.argv[3])
        json.dump(score(D, V), open(os.environ.get('OUT', '/tmp/c2falls-score.json'), 'w'), indent=1, default=float)
