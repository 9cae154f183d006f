"""ESP32 quiet room vs movement with the chip's quiet reference from its other session (pilot/esp32cal-protocol.md).

Usage: python3 pilot/esp32cal.py /tmp/esp32cal-pilot/features.jsonl [baseline|outer]
`baseline` reproduces today's row (A0) only; `outer` runs the protocol's outer runs once.
"""
import json, sys
import numpy as np

from motion_inputs import SETS, fit, inputs, logit


files = [json.loads(l) for l in open(sys.argv[1])]
for f in files:
    f['X'] = np.array([inputs(s) for s in f['seconds']])
    f['y'] = 1 if f['label'] == 'movement' else 0
# The reference: the other session's baseline of the same chip.
for f in files:
    base = [g for g in files if g['chip'] == f['chip'] and g['label'] == 'baseline']
    # Sessions: each baseline is followed ~20 s later by its movement file; pair by time order.
    base.sort(key=lambda g: g['file'].split('_', 3)[3])
    moves = sorted([g for g in files if g['chip'] == f['chip'] and g['label'] == 'movement'], key=lambda g: g['file'].split('_', 3)[3])
    session = (base.index(f) if f in base else moves.index(f))
    f['session'] = session
    f['ref'] = base[1 - session]
for f in files:
    f['refX'] = f['ref']['X']


def rows(fs, form):
    X = np.vstack([form_inputs(f, form) for f in fs])
    y = np.concatenate([np.full(len(f['X']), f['y']) for f in fs])
    return X, y


def form_inputs(f, form):
    kind, cols = form
    a = f['X'][:, cols]
    if kind == 'abs':
        return a
    rel = a - np.median(f['refX'][:, cols], axis=0)
    return rel if kind == 'rel' else np.hstack([a, rel])


FORMS_A0 = [('abs', c) for c in SETS]
FORMS_R = [('rel', c) for c in SETS] + [('both', c) for c in SETS]
FORMS_T = [(q, m) for q in (0.5, 0.9, 1.0) for m in (0, 0.5, 1, 2)]


def decide_model(model, form, f, t=None):
    z = logit(model, form_inputs(f, form))
    if t is None:
        return z >= 0
    q, m = t
    zr = logit(model, f['refX'][:, form[1]])  # the reference's seconds through the same (absolute-input) model
    return z >= max(0.0, np.quantile(zr, q) + m)


def choose_a0(train):
    """Today's fitMotion: the set by inner leave-one-chip-out balanced accuracy (first best wins)."""
    return choose(train, FORMS_A0)[0]


def score(decisions):
    right = [0, 0]; count = [0, 0]
    for y, d in decisions:
        count[y] += len(d); right[y] += int((d == bool(y)).sum())
    return right[0] / max(1, count[0]) + right[1] / max(1, count[1])


def inner(train, evaluate):
    chips = sorted({f['chip'] for f in train})
    dec = []
    for c in chips:
        dec += evaluate([f for f in train if f['chip'] != c], [f for f in train if f['chip'] == c])
    return score(dec)


def plain(form):
    def ev(tr, te):
        model = fit(*rows(tr, form))
        return [(f['y'], decide_model(model, form, f)) for f in te]
    return ev


def thresholded(t):
    def ev(tr, te):
        form = choose_a0(tr) if len({f['chip'] for f in tr}) > 2 else FORMS_A0[0]
        model = fit(*rows(tr, form))
        return [(f['y'], decide_model(model, form, f, t)) for f in te]
    return ev


def choose(train, forms):
    best, best_score = forms[0], -1
    for form in forms:
        s = inner(train, plain(form))
        if s > best_score:
            best, best_score = form, s
    return best, best_score


def pipeline(train, family):
    """What a fold uses: ('A0', form) or the family's best form when its inner score beats A0's (the guard)."""
    a0, a0_score = choose(train, FORMS_A0)
    picks = [(a0_score, 'A0', a0)]
    if family in ('R', 'combined'):
        r, r_score = choose(train, FORMS_R)
        picks.append((r_score, 'R', r))
    if family in ('T', 'combined'):
        best_t, best_ts = None, -1
        for t in FORMS_T:
            s = inner(train, thresholded(t))
            if s > best_ts:
                best_t, best_ts = t, s
        picks.append((best_ts, 'T', best_t))
    best = picks[0]
    for p in picks[1:]:
        if p[0] > best[0]:
            best = p
    return best, picks


def outer(family):
    tp = fp = fn = 0; file_ok = 0; misses = []; used = []
    for chip in sorted({f['chip'] for f in files}):
        train = [f for f in files if f['chip'] != chip]
        test = [f for f in files if f['chip'] == chip]
        if family == 'A0':
            (s, kind, form), picks = (inner(train, plain(choose_a0(train))), 'A0', choose_a0(train)), []
        else:
            (s, kind, form), picks = pipeline(train, family)
        used.append(f"{chip}: {kind} {form} inner {s:.3f} ({', '.join(f'{k} {p:.3f}' for p, k, _ in picks)})")
        if kind == 'T':
            a0 = choose_a0(train)
            model = fit(*rows(train, a0))
            decs = [(f, decide_model(model, a0, f, form), logit(model, form_inputs(f, a0))) for f in test]
        else:
            model = fit(*rows(train, form))
            decs = [(f, decide_model(model, form, f), logit(model, form_inputs(f, form))) for f in test]
        for f, d, z in decs:
            y = bool(f['y'])
            tp += int((d & y).sum()); fp += int((d & (not y)).sum()); fn += int(((~d) & y).sum())
            file_ok += int(bool(d[np.argsort(z)[len(z) >> 1]]) == y)  # the file's median second, as real-eval.ts reads it
            wrong = [int(s['s']) for s, di in zip(f['seconds'], d) if di != y]
            if wrong:
                misses.append(f"{f['file'].split('/')[-1]} (session {f['session']}): seconds {wrong}")
    f1 = 2 * tp / max(1, 2 * tp + fp + fn)
    print(f"{family}: F1 {f1:.3f} TP {tp} FP {fp} FN {fn} per file {file_ok}/{len(files)}")
    for u in used:
        print('   ', u)
    for m in misses:
        print('    miss', m)


what = sys.argv[2] if len(sys.argv) > 2 else 'baseline'
if what == 'baseline':
    outer('A0')
elif what == 'outer':
    for fam in ('A0', 'R', 'T', 'combined'):
        outer(fam)
