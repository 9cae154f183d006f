"""ESP32 movement on slower links against the link's own quiet floor (pilot/esp32floor-protocol.md).

Usage: python3 pilot/esp32floor.py /tmp/slowref/features.jsonl /tmp/slowref/breathing.jsonl [baseline|outer|native]
`baseline` reproduces the absolute slow model (0.897); `outer` runs the outer run and the breathing-set check once.
`native` (pilot/esp32floor-native-protocol.md) runs at the captures' own rate (k = 1): today's absolute sets, then
the inner choice among them and the floor forms.
"""
import json, sys
import numpy as np

from motion_inputs import SETS, choose_by_chip, fit, inputs, logit
THIN = [1] if len(sys.argv) > 3 and sys.argv[3] == 'native' else [2, 5, 10, 20]
QS = [0.0, 0.1, 0.25]
W = 300


def floors(X):
    """Per q: the q-quantile of each input over the stream's seconds t-W+1..t (causal, the second itself included)."""
    out = {}
    for q in QS:
        F = np.zeros_like(X)
        for t in range(len(X)):
            F[t] = np.quantile(X[max(0, t - W + 1):t + 1], q, axis=0)
        out[q] = F
    return out


units = [json.loads(l) for l in open(sys.argv[1])]
units = [u for u in units if u['k'] in THIN]
for u in units:
    u['X'] = np.array([inputs(s) for s in u['seconds']]).reshape(-1, 4)
    u['y'] = 1 if u['label'] == 'movement' else 0
# Sessions: per chip and k, baselines and movements paired in time order; the stream is baseline then movement.
for chip in sorted({u['chip'] for u in units}):
    for k in THIN:
        key = lambda g: g['file'].split('_', 3)[3]
        base = sorted([u for u in units if u['chip'] == chip and u['k'] == k and u['label'] == 'baseline'], key=key)
        moves = sorted([u for u in units if u['chip'] == chip and u['k'] == k and u['label'] == 'movement'], key=key)
        for b, m in zip(base, moves):
            stream = np.vstack([b['X'], m['X']])
            F = floors(stream)
            b['F'] = {q: F[q][:len(b['X'])] for q in QS}
            m['F'] = {q: F[q][len(b['X']):] for q in QS}
takes = [json.loads(l) for l in open(sys.argv[2])]
for u in takes:
    u['X'] = np.array([inputs(s) for s in u['seconds']]).reshape(-1, 4)
    u['F'] = floors(u['X'])


def form_inputs(u, form):
    kind, cols, q = form
    a = u['X'][:, cols]
    if kind == 'abs':
        return a
    rel = a - u['F'][q][:, cols]
    return rel if kind == 'floor' else np.hstack([a, rel])


def rows(us, form):
    return np.vstack([form_inputs(u, form) for u in us]), np.concatenate([np.full(len(u['X']), u['y']) for u in us])


FORMS = {'abs': [('abs', c, None) for c in SETS], 'floor': [(kind, c, q) for q in QS for kind in ('floor', 'both') for c in SETS]}
FORMS['all'] = FORMS['abs'] + FORMS['floor']


def choose(train, forms):
    return choose_by_chip(train, forms, form_inputs)


def outer(family):
    tp = fp = fn = 0; ok = 0; per = {k: [0, 0, 0] for k in THIN}; used = []; misses = []
    for chip in sorted({u['chip'] for u in units}):
        train = [u for u in units if u['chip'] != chip]
        form, s = choose(train, FORMS[family])
        used.append(f"{chip}: {form} inner {s:.3f}")
        model = fit(*rows(train, form))
        for u in [u for u in units if u['chip'] == chip]:
            z = logit(model, form_inputs(u, form)); d = z >= 0; y = bool(u['y'])
            a, b, c = int((d & y).sum()), int((d & (not y)).sum()), int(((~d) & y).sum())
            tp += a; fp += b; fn += c; per[u['k']][0] += a; per[u['k']][1] += b; per[u['k']][2] += c
            ok += int(bool(np.median(1 / (1 + np.exp(-z))) >= 0.5) == y)
            wrong = [int(s['s']) for s, di in zip(u['seconds'], d) if di != y]
            if wrong:
                misses.append(f"{u['file'].split('/')[-1]} 1 in {u['k']}: seconds {wrong}")
    f1 = lambda t, p, n: 2 * t / max(1, 2 * t + p + n)
    print(f"{family}: pooled F1 {f1(tp, fp, fn):.3f} TP {tp} FP {fp} FN {fn}; per file {ok}/{len(units)}; " + '; '.join(f"1 in {k}: F1 {f1(*per[k]):.3f}" for k in THIN))
    for x in used:
        print('   ', x)
    for m in misses:
        print('    miss', m)


def check(family):
    form, s = choose(units, FORMS[family])
    model = fit(*rows(units, form))
    still = [0, 0]; noise = [0, 0]; per = []
    for u in takes:
        d = logit(model, form_inputs(u, form)) >= 0
        tally = noise if u['label'] == 'noise' else still
        tally[0] += int(d.sum()); tally[1] += len(d)
        per.append(f"{u['file'][:22]} {int(d.sum())}/{len(d)}")
    print(f"check {family} (form on all 5 chips {form}, inner {s:.3f}): still takes moving {still[0]}/{still[1]} s ({still[0] / max(1, still[1]):.3f}); noise takes moving {noise[0]}/{noise[1]} s")
    print('    ' + '; '.join(per))


what = sys.argv[3] if len(sys.argv) > 3 else 'baseline'
if what == 'baseline':
    outer('abs')
elif what == 'native':
    outer('abs'); outer('all')
else:
    outer('abs'); outer('floor'); check('abs'); check('floor')
