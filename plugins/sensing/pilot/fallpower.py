"""Pilot (issue 22, branch fallpower): does each packet's total power (what the card's AGC lets through and
LinkSensor's per-packet normalisation discards) add to the velocity-profile fall detector on the real Intel 5300
captures? Protocol, features and bar: pilot/fallpower-protocol.md (committed before any figure).

Input: the dump of pilot/profile_events_dump.mjs (every judged event, the 81 shipped features) and of
pilot/fallpower_dump.mjs (each packet's time, total power and AGC field), both of eval:real's falls set.
Model and inner rule as the shipped fitProfileNested (falls_multiclass.py family A, which reproduces 37/50 at 51/800).
Run: node plugins/sensing/pilot/profile_events_dump.mjs /tmp/fallpower-events.json &&
     node plugins/sensing/pilot/fallpower_dump.mjs /tmp/fallpower-power.json &&
     python3 plugins/sensing/pilot/fallpower.py /tmp/fallpower-events.json /tmp/fallpower-power.json
"""
import collections, json, os, sys
import numpy as np
from logistic import fit_newton

EV_PATH = sys.argv[1] if len(sys.argv) > 1 else '/tmp/fallpower-events.json'
PW_PATH = sys.argv[2] if len(sys.argv) > 2 else '/tmp/fallpower-power.json'
if not (os.path.exists(EV_PATH) and os.path.exists(PW_PATH)):
    print(f'dumps not found ({EV_PATH}, {PW_PATH}; the real captures may be absent): nothing to score')
    sys.exit(0)
EV = json.load(open(EV_PATH))
PW = {d['file']: d for d in json.load(open(PW_PATH))}
W_NAMES = ['w_peak', 'w_over_median', 'w_shift', 'w_agc_steps']
NAMES = EV['features'] + W_NAMES
THRESHOLDS = np.round(np.arange(0.30, 0.995, 0.01), 2)
E = 1e-9


def power_motion(t, r):
    """fall_noise.mjs' series on one stream: std / mean of r over 1-s windows every 0.25 s; (centre times, motion)."""
    n = len(r)
    rate = max(1, int(round(1 / np.median(np.diff(t))))) if n > 2 else 20
    hop = max(1, int(round(rate / 4)))
    starts = np.arange(0, n - rate + 1, hop)
    if len(starts) == 0:
        return np.array([t.mean() if n else 0.0]), np.array([r.std() / (r.mean() + E) if n else 0.0])
    cen = np.array([t[s:s + rate].mean() for s in starts])
    mot = np.array([r[s:s + rate].std() / (r[s:s + rate].mean() + E) for s in starts])
    return cen, mot


def stretch_median(t, r, lo, hi, side):
    m = (t >= lo) & (t < hi)
    if not m.any():  # cut by the sample's end: that side's nearest 1 s
        m = (t < t[0] + 1) if side == 'before' else (t >= t[-1] - 1)
    return np.median(r[m])


def power_features(d, seconds):
    t = np.asarray(d['t'], float)
    r = np.asarray(d['power'], float)
    agc = np.array([np.nan if a is None else a for a in d['agc']], float)
    if len(t) < 3:
        return np.zeros((len(seconds), len(W_NAMES))), False
    cen, mot = power_motion(t, r)
    med_m, med_r = np.median(mot) + E, np.median(r) + E
    steps = np.zeros(len(t))
    ok = np.isfinite(agc[1:]) & np.isfinite(agc[:-1])
    steps[1:] = ok & (agc[1:] != agc[:-1])
    out = []
    for s in seconds:
        near = (cen >= s - 2) & (cen <= s + 2)
        peak = mot[near].max() if near.any() else mot[np.argmin(np.abs(cen - s))]
        after = stretch_median(t, r, s + 2, s + 4, 'after')
        before = stretch_median(t, r, s - 4, s - 2, 'before')
        win = (t >= s - 2) & (t <= s + 2)
        out.append([np.log(peak + E), np.log((peak + E) / med_m), np.log(abs(after - before) / med_r + 1e-4), np.log1p(steps[win].sum())])
    return np.array(out), True


SAMPLES = EV['samples']
missing = 0
for s in SAMPLES:
    X = np.array([e['features'] for e in s['events']], float).reshape(len(s['events']), len(EV['features']))
    Wf, ok = power_features(PW[s['file']], [e['second'] for e in s['events']])
    missing += (not ok) and len(s['events']) > 0
    s['X'] = np.hstack([X, Wf.reshape(len(X), len(W_NAMES))])
    s['strength'] = np.array([e['strength'] for e in s['events']])
    s['fall'] = s['label'] == 'fall'
N_FALL = sum(s['fall'] for s in SAMPLES)
N_NEG = len(SAMPLES) - N_FALL
SCORED = [s for s in SAMPLES if s['events']]
PERSONS = sorted({s['person'] for s in SAMPLES})


def columns(groups):
    return [i for i, n in enumerate(NAMES) if n[0] in groups]


def fit_binary(samples, cols, l2):
    """As src/model/logistic.ts fitLogistic (pilot/logistic.py): Newton, L2 on standardised weights,
    classes weighted equally; falls' strongest event vs every event of the other samples."""
    X = np.vstack([s['X'][[int(np.argmax(s['strength']))]] if s['fall'] else s['X'] for s in samples])[:, cols]
    y = np.concatenate([[1.0] if s['fall'] else np.zeros(len(s['X'])) for s in samples])
    return fit_newton(X, y, float(l2))


def score(model, samples, cols):
    m, sd, beta = model
    return np.array([float((1 / (1 + np.exp(-(((s['X'][:, cols] - m) / sd) @ beta[:-1] + beta[-1])))).max()) for s in samples])


def threshold_and_key(sc, falls):
    neg = sc[~falls]
    t = next((th for th in THRESHOLDS if (neg >= th).mean() <= 0.05), THRESHOLDS[-1])
    sens, far = (sc[falls] >= t).mean(), (neg >= t).mean()
    return t, sens - 10 * max(0, far - 0.05)


BASE = [(g, l2) for g in ['p', 'ap', 'ps', 'aps'] for l2 in [1, 10]]
WITH_W = [(g + 'w', l2) for g, l2 in BASE]
ARMS = {'baseline (today)': BASE, 'power (inner choice over today + w)': BASE + WITH_W, 'power forced (w settings only; diagnostic)': WITH_W}
ALL = BASE + WITH_W


def inner(train):
    persons = sorted({s['person'] for s in train})
    ordered = [s for q in persons for s in train if s['person'] == q]
    falls = np.array([s['fall'] for s in ordered])
    res = {}
    for st in ALL:
        cols = columns(st[0])
        sc = np.concatenate([score(fit_binary([s for s in train if s['person'] != q], cols, st[1]), [s for s in train if s['person'] == q], cols) for q in persons])
        res[st] = threshold_and_key(sc, falls)
    return res


def auc(pos, neg):
    pos, neg = np.asarray(pos, float), np.asarray(neg, float)
    if not len(pos) or not len(neg):
        return float('nan')
    return float(((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()) / (len(pos) * len(neg)))


outer = {a: {'tp': 0, 'fa': collections.Counter(), 'picks': [], 'score': {}} for a in ARMS}
for p in PERSONS:
    train = [s for s in SCORED if s['person'] != p]
    test = [s for s in SCORED if s['person'] == p]
    res = inner(train)
    for arm, settings in ARMS.items():
        st = max(settings, key=lambda x: (res[x][1], -settings.index(x)))
        t = res[st][0]
        cols = columns(st[0])
        sc = score(fit_binary(train, cols, st[1]), test, cols)
        o = outer[arm]
        o['picks'].append(f'{p}:{st[0]}/{st[1]}@{t:.2f}')
        for s, v in zip(test, sc):
            o['score'][s['file']] = v
            if v >= t:
                if s['fall']:
                    o['tp'] += 1
                else:
                    o['fa'][s['label']] += 1
    print(f'outer {p} done', flush=True)

print(f'\n{N_FALL} falls, {N_NEG} other samples ({len(SAMPLES) - len(SCORED)} with no judged event: never flagged), '
      f'{sum(len(s["events"]) for s in SAMPLES)} judged events; samples with events but no packets read: {missing}')
print('\n1. Single-feature look: AUC fall vs each activity on each sample\'s strongest judged event (larger = fall);'
      '\n   last column: today\'s detector\'s out-of-fold score (baseline arm, outer folds)')
labels = sorted({s['label'] for s in SAMPLES if not s['fall']})
strongest = {s['file']: s['X'][int(np.argmax(s['strength']))] for s in SCORED}
print('| activity | ' + ' | '.join(W_NAMES) + ' | velocity-profile score |')
print('|---|' + '---|' * (len(W_NAMES) + 1))
for lab in labels + ['all others']:
    neg = [s for s in SCORED if not s['fall'] and (lab == 'all others' or s['label'] == lab)]
    pos = [s for s in SCORED if s['fall']]
    cells = [auc([strongest[s['file']][NAMES.index(n)] for s in pos], [strongest[s['file']][NAMES.index(n)] for s in neg]) for n in W_NAMES]
    base = outer['baseline (today)']['score']
    cells.append(auc([base[s['file']] for s in pos], [base[s['file']] for s in neg]))
    print(f'| {lab} | ' + ' | '.join(f'{c:.2f}' for c in cells) + ' |')
print('\nmedians of the strongest event\'s power features by activity: ' + ', '.join(W_NAMES) + ' (w_peak, w_over_median as motion, not log)')
for lab in ['fall'] + labels:
    v = np.array([strongest[s['file']][[NAMES.index(n) for n in W_NAMES]] for s in SCORED if s['label'] == lab])
    med = np.median(v, 0)
    print(f'  {lab:10s} {np.exp(med[0]):.3f}  {np.exp(med[1]):.2f}  {med[2]:.2f}  {np.expm1(med[3]):.1f}')

print('\n2. Outer leave-one-person-out (falls found of 50, false alarms of 800)')
for arm in ARMS:
    o = outer[arm]
    fa = sum(o['fa'].values())
    print(f"{arm}: falls {o['tp']}/{N_FALL} ({100 * o['tp'] / N_FALL:.0f} %), false alarms {fa}/{N_NEG} ({100 * fa / N_NEG:.1f} %): {dict(o['fa'])}; picks {' '.join(o['picks'])}")
b, w = outer['baseline (today)'], outer['power (inner choice over today + w)']
passes = w['tp'] >= b['tp'] + 3 and sum(w['fa'].values()) <= sum(b['fa'].values())
print(f"bar (power arm ≥ baseline + 3 falls, false alarms ≤ baseline's): {'passes' if passes else 'not met'}")
