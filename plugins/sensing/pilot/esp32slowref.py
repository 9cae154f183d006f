"""ESP32 movement on slower links read against the empty-room reference (pilot/esp32slowref-protocol.md).

Usage: python3 pilot/esp32slowref.py /tmp/slowref/features.jsonl [baseline|outer]
`baseline` reproduces eval-real's not-shipped slow model (abs) only; `outer` runs the protocol's outer run once.
"""
import json, sys
import numpy as np

from motion_inputs import SETS, choose_by_chip, fit, inputs, logit
THIN = [2, 5, 10, 20]


units = [json.loads(l) for l in open(sys.argv[1])]
for u in units:
    u['X'] = np.array([inputs(s) for s in u['seconds']]).reshape(-1, 4)
    u['y'] = 1 if u['label'] == 'movement' else 0
for u in units:
    same = lambda g, lab: g['chip'] == u['chip'] and g['k'] == u['k'] and g['label'] == lab
    base = sorted([g for g in units if same(g, 'baseline')], key=lambda g: g['file'].split('_', 3)[3])
    moves = sorted([g for g in units if same(g, 'movement')], key=lambda g: g['file'].split('_', 3)[3])
    u['session'] = base.index(u) if u in base else moves.index(u)
    u['refMedian'] = np.median(base[1 - u['session']]['X'], axis=0)
thinned = [u for u in units if u['k'] in THIN]


def form_inputs(u, form):
    kind, cols = form
    a = u['X'][:, cols]
    if kind == 'abs':
        return a
    rel = a - u['refMedian'][cols]
    return rel if kind == 'rel' else np.hstack([a, rel])


def rows(us, form):
    return np.vstack([form_inputs(u, form) for u in us]), np.concatenate([np.full(len(u['X']), u['y']) for u in us])


FORMS = {'abs': [('abs', c) for c in SETS], 'rel': [('rel', c) for c in SETS], 'both': [('both', c) for c in SETS]}


def choose(train, forms):
    return choose_by_chip(train, forms, form_inputs)


def outer(family):
    tp = fp = fn = 0; ok = 0; per = {k: [0, 0, 0] for k in THIN}; used = []; misses = []
    for chip in sorted({u['chip'] for u in thinned}):
        train = [u for u in thinned if u['chip'] != chip]
        if family == 'ref':
            (f1_, s1), (f2_, s2) = choose(train, FORMS['rel']), choose(train, FORMS['both'])
            form, s = (f1_, s1) if s1 >= s2 else (f2_, s2)
            used.append(f"{chip}: {form} inner {s:.3f} (rel {s1:.3f}, both {s2:.3f})")
        else:
            form, s = choose(train, FORMS[family])
            used.append(f"{chip}: {form} inner {s:.3f}")
        model = fit(*rows(train, form))
        for u in [u for u in thinned if u['chip'] == chip]:
            z = logit(model, form_inputs(u, form)); d = z >= 0; y = bool(u['y'])
            a, b, c = int((d & y).sum()), int((d & (not y)).sum()), int(((~d) & y).sum())
            tp += a; fp += b; fn += c; per[u['k']][0] += a; per[u['k']][1] += b; per[u['k']][2] += c
            ok += int(bool(np.median(1 / (1 + np.exp(-z))) >= 0.5) == y)
            wrong = [int(s['s']) for s, di in zip(u['seconds'], d) if di != y]
            if wrong:
                misses.append(f"{u['file'].split('/')[-1]} 1 in {u['k']}: seconds {wrong}")
    f1 = lambda t, p, n: 2 * t / max(1, 2 * t + p + n)
    print(f"{family}: pooled F1 {f1(tp, fp, fn):.3f} TP {tp} FP {fp} FN {fn}; per file {ok}/{len(thinned)}; " + '; '.join(f"1 in {k}: F1 {f1(*per[k]):.3f}" for k in THIN))
    for x in used:
        print('   ', x)
    for m in misses:
        print('    miss', m)


what = sys.argv[2] if len(sys.argv) > 2 else 'baseline'
if what == 'baseline':
    outer('abs')
else:
    outer('abs'); outer('ref')
