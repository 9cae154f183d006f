"""Pilot (not shipped): a fall as a fast burst that ends in stillness, read from the phase between receive chains.

Input: the dump of pilot/sim_burst_dump.mjs (training and validation rooms and the demo home; no test room).
Per link, packet by packet: the step of the chains' conjugate-product phasors, d(t) = mean over channels of
|z(t) - z(t-1)| (how fast the body paths turn: Doppler energy, whatever the aliasing at 20 Hz), and its mean over
0.5 s windows every 0.25 s, E(t), divided by the link's floor (10th percentile of E so far, at least 30 s).
Part 1 (what separates): for each truth movement, the largest E in its window and the median E over 2-8 s after
it and over 4-1 s before it, by kind (falls, fall-like, getting up, walking).
Part 2 (candidates): a candidate on a link is a half second where the 0.5-s E has its maximum over +-2 s, passes
`burst` x floor, and the median E over [t+2, t+8] s is under `still` x floor; all links' candidates within 2 s
are one. Reported per setting: falls with a candidate (sensitivity) and other candidates per simulated day,
on the training rooms and separately on the validation rooms and the demo home.
Run: node plugins/sensing/pilot/sim_burst_dump.mjs /tmp/sb && python3 plugins/sensing/pilot/sim_burst.py /tmp/sb
"""
import json, os, sys
import numpy as np
from burst_features import burst_candidates, fit, merge_links

DIR = sys.argv[1] if len(sys.argv) > 1 else 'simburst'
D = json.load(open(os.path.join(DIR, 'index.json')))
HOP = 0.25
WIN = 0.5


SMOOTH = int(os.environ.get('SMOOTH', '1'))
LAG = int(os.environ.get('LAG', '1'))


def series(link):
    a = np.fromfile(os.path.join(DIR, link['file']), dtype=np.float32).reshape(link['rows'], link['width'])
    t = a[:, 0].astype(float)
    z = a[:, 1::2] + 1j * a[:, 2::2]
    if SMOOTH > 1:
        # Mean phasor of the last SMOOTH packets: averages the packet noise, keeps what the body turns.
        c = np.cumsum(np.vstack([np.zeros((1, z.shape[1])), z]), axis=0)
        z = np.vstack([z[:SMOOTH - 1], (c[SMOOTH:] - c[:-SMOOTH]) / SMOOTH])
    d = np.r_[np.zeros(LAG), np.abs(z[LAG:] - z[:-LAG]).mean(1)]
    grid = np.arange(0, t[-1] + 1e-9, HOP)
    # Mean step over the window ending at each grid time.
    c = np.r_[0, np.cumsum(d)]
    hi = np.searchsorted(t, grid, side='right')
    lo = np.searchsorted(t, grid - WIN, side='right')
    n = np.maximum(1, hi - lo)
    e = (c[hi] - c[lo]) / n
    e[hi - lo < 3] = np.nan
    # Online floor: 10th percentile of everything so far (first 30 s: of the first 30 s).
    floor = np.empty_like(e)
    start = int(30 / HOP)
    for i in range(len(e)):
        w = e[: max(i + 1, start)]
        floor[i] = np.nanpercentile(w, 10) if np.isfinite(w).any() else np.nan
    return grid, e / (floor + 1e-6)


for s in D:
    s['series'] = [series(l) for l in s['links']]


def window_stat(g, e, a, b, f):
    m = (g >= a) & (g <= b) & np.isfinite(e)
    return float(f(e[m])) if m.any() else float('nan')


def movements(s):
    out = []
    for w in s['falls']:
        out.append(('fall ' + w[2], w[0], w[1]))
        out.append(('get-up', w[1] + 15, w[1] + 18.5))
    for w in s['fallLike']:
        out.append(('fall-like ' + w[2], w[0], w[1]))
    return out


def part1():
    rows = {}
    for s in D:
        if s['split'] == 'demo':
            continue
        for kind, a, b in movements(s):
            best = None
            for g, e in s['series']:
                pk = window_stat(g, e, a - 0.25, b + 0.5, np.max)
                post = window_stat(g, e, b + 2, b + 8, np.median)
                pre = window_stat(g, e, a - 4, a - 1, np.median)
                if best is None or pk > best[0]:
                    best = (pk, post, pre)
            rows.setdefault(kind.split(' ')[0] if kind.startswith('fall ') else kind, []).append(best)
    print('best link per movement: median [10th-90th percentile] of peak E, post E (2-8 s after), pre E (4-1 s before), E in floor units')
    for k, v in sorted(rows.items()):
        v = np.array(v)
        cells = [f'{np.nanmedian(v[:, i]):6.1f} [{np.nanpercentile(v[:, i], 10):5.1f}-{np.nanpercentile(v[:, i], 90):6.1f}]' for i in range(3)]
        print(f'  {k:22s} n={len(v):3d}  peak {cells[0]}  post {cells[1]}  pre {cells[2]}')


def candidates(s, burst, still, ratio):
    found = []
    for g, e in s['series']:
        k = int(2 / HOP)
        for i in range(k, len(e) - int(8 / HOP)):
            v = e[i]
            if not np.isfinite(v) or v < burst:
                continue
            if np.nanmax(e[i - k:i + k + 1]) > v:
                continue
            post = np.nanmedian(e[i + int(2 / HOP):i + int(8 / HOP) + 1])
            if post > still or v < ratio * post:
                continue
            found.append(g[i])
    found.sort()
    return [t for j, t in enumerate(found) if j == 0 or t - found[j - 1] >= 2]


def score(sessions, burst, still, ratio):
    total = hit = alarms = 0
    secs = 0.0
    for s in sessions:
        c = candidates(s, burst, still, ratio)
        secs += max(g[-1] for g, _ in s['series'])
        for w in s['falls']:
            total += 1
            hit += any(w[0] - 2 <= t <= w[1] + 3 for t in c)
        alarms += sum(not any(w[0] - 2 <= t <= w[1] + 3 for w in s['falls']) for t in c)
    return hit, total, alarms, alarms / max(secs, 1) * 86400


ONLY_ROOM = os.environ.get('ONLY_ROOM') == '1'
if not ONLY_ROOM:
    part1()
train = [s for s in D if s['split'] == 'train']
val = [s for s in D if s['split'] == 'validation']
demo = [s for s in D if s['split'] == 'demo']
if not ONLY_ROOM:
    print('\ncandidates: burst x floor, still x floor (post median), peak/post ratio -> train falls, false/day | validation | demo')
for burst in ([] if ONLY_ROOM else [3, 5, 8, 12]):
    for still in [1.5, 2, 3]:
        for ratio in [3]:
            a = score(train, burst, still, ratio)
            b = score(val, burst, still, ratio)
            c = score(demo, burst, still, ratio)
            print(f'  burst {burst:4} still {still:4} ratio {ratio}: train {a[0]}/{a[1]} {a[3]:.0f}/day | val {b[0]}/{b[1]} {b[3]:.0f}/day | demo {c[0]}/{c[1]} +{c[2]}')


# Part 3 (scoring): every candidate of the chosen generator (env BURST, STILL) with features; a logistic model
# (classes weighted equally, L2 1, as src/model/logistic.ts) fitted on training-room candidates only; the threshold
# is the lowest whose validation false alarms stay within 1 per simulated day; validation and demo scored there.
FEATURES = ['log_peak', 'log_post', 'log_pre', 'log_peak_over_pre', 'log_shift', 'width', 'still_share']


def raw(link):
    a = np.fromfile(os.path.join(DIR, link['file']), dtype=np.float32).reshape(link['rows'], link['width'])
    return a[:, 0].astype(float), a[:, 1::2] + 1j * a[:, 2::2]


def cand_rows(s, burst, still):
    out = []
    for (g, e), link in zip(s['series'], s['links']):
        t, z = raw(link)
        for tc, x in burst_candidates(g, e, t, z, burst, still, HOP):
            out.append(dict(s=s, t=tc, x=x, y=any(w[0] - 2 <= tc <= w[1] + 3 for w in s['falls'])))
    return out


def score_kept(rows, sessions, probs, thr):
    found = total = alarms = 0
    secs = 0.0
    by = {}
    for s in sessions:
        kept = sorted(r['t'] for r, p in zip(rows, probs) if r['s'] is s and p >= thr)
        merged = [t for j, t in enumerate(kept) if j == 0 or t - kept[j - 1] >= 2]
        secs += max(g[-1] for g, _ in s['series'])
        for w in s['falls']:
            total += 1
            found += any(w[0] - 2 <= t <= w[1] + 3 for t in merged)
        for t in merged:
            if not any(w[0] - 2 <= t <= w[1] + 3 for w in s['falls']):
                alarms += 1
                by[s['kind']] = by.get(s['kind'], 0) + 1
    return found, total, alarms, alarms / max(secs, 1) * 86400, by


BURST = float(os.environ.get('BURST', '3'))
STILL = float(os.environ.get('STILL', '2'))
rows = [r for s in D for r in cand_rows(s, BURST, STILL)]
print(f'\ncandidates (burst {BURST}, still {STILL}): ' + ', '.join(f"{sp} {sum(r['s']['split'] == sp for r in rows)} ({sum(r['y'] for r in rows if r['s']['split'] == sp)} at falls)" for sp in ['train', 'validation', 'demo']))
for i, n in enumerate(FEATURES):
    f = [r['x'][i] for r in rows if r['y'] and r['s']['split'] == 'train']
    o = [r['x'][i] for r in rows if not r['y'] and r['s']['split'] == 'train']
    print(f'  {n:18s} fall median {np.median(f):+.2f}, other {np.median(o):+.2f}, AUC {np.mean([(x > np.asarray(o)).mean() + 0.5 * (x == np.asarray(o)).mean() for x in f]):.2f}')
SETS = {} if ONLY_ROOM else {'all': list(range(len(FEATURES))), 'no shift': [0, 1, 2, 3, 5, 6], 'peak+shift+still': [0, 4, 6], 'peak+pre+shift': [0, 2, 4]}
tr = [r for r in rows if r['s']['split'] == 'train']
for name, idx in SETS.items():
    model, _ = fit([[r['x'][i] for i in idx] for r in tr], [r['y'] for r in tr])
    probs = model([[r['x'][i] for i in idx] for r in rows])
    cells = []
    for thr in [0.5, 0.8, 0.9, 0.95, 0.99, 0.999]:
        f, n, a, d, _ = score_kept(rows, val, probs, thr)
        df, dn, da, _, _ = score_kept(rows, demo, probs, thr)
        cells.append(f'{thr}: val {f}/{n} {d:.0f}/day demo {df}/{dn} +{da}')
    print(f'  {name}: ' + ' | '.join(cells))
    ft, nt, at, dt, byt = score_kept(rows, train, probs, 0.9)
    print(f'     train at 0.9: {ft}/{nt} {dt:.0f}/day, false by kind {byt}')


# Part 4 (one decision per room): the candidates of all links within 2 s of each other become one; its features
# are each feature's largest value over those links (the stillness after: the smallest), plus the number of
# links that saw it. Fitted on training rooms, threshold rule and scores as in part 3.
def room_rows(rows):
    out = []
    for s in D:
        for g, feats, best in merge_links([r for r in rows if r['s'] is s]):
            out.append(dict(s=s, t=best['t'], x=feats, y=any(r['y'] for r in g)))
    return out


R = room_rows(rows)
names = FEATURES + ['links']
trR = [r for r in R if r['s']['split'] == 'train']
print(f'\nroom candidates: ' + ', '.join(f"{sp} {sum(r['s']['split'] == sp for r in R)} ({sum(r['y'] for r in R if r['s']['split'] == sp)} at falls)" for sp in ['train', 'validation', 'demo']))
for i, n in enumerate(names):
    f = [r['x'][i] for r in trR if r['y']]
    o = np.asarray([r['x'][i] for r in trR if not r['y']])
    print(f'  {n:18s} AUC {np.mean([(x > o).mean() + 0.5 * (x == o).mean() for x in f]):.2f}')
for name, idx in {'all + links': list(range(len(names))), 'pre+shift+width': [2, 4, 5], 'pre+shift+width+links': [2, 4, 5, 7]}.items():
    for l2 in [1.0, 10.0]:
        model, _ = fit([[r['x'][i] for i in idx] for r in trR], [r['y'] for r in trR], l2)
        probs = model([[r['x'][i] for i in idx] for r in R])
        cells = []
        for thr in [0.5, 0.8, 0.9, 0.95, 0.99, 0.999]:
            f, n, a, d, by = score_kept(R, val, probs, thr)
            df, dn, da, _, _ = score_kept(R, demo, probs, thr)
            cells.append(f'{thr}: val {f}/{n} {d:.0f}/day demo {df}/{dn} +{da}')
        print(f'  {name} (L2 {l2}): ' + ' | '.join(cells))
