"""Pilot: fall candidates on the real Intel 5300 captures, scored as pilot/falls_multiclass_protocol.md says.

Input: the dump of pilot/profile_events_dump.mjs (every judged event of every sample, all 81 features).
Families: A binary logistic (what ships), B multinomial logistic over fall and its confusers, C binary with
stronger L2, D per-person z-scored features, E kNN; F = inner selection over A, B and C. Outer leave one
person out; every choice by inner leave-one-person-out. Each family's outer figure is printed, then what
F picks on all persons (what would ship).
Run: node plugins/sensing/pilot/profile_events_dump.mjs /tmp/events.json && python3 plugins/sensing/pilot/falls_multiclass.py /tmp/events.json
"""
import json, sys, collections
import numpy as np
from scipy.optimize import minimize
from logistic import fit_newton, standardise

D = json.load(open(sys.argv[1] if len(sys.argv) > 1 else '/tmp/events.json'))
NAMES = D['features']
SAMPLES = [s for s in D['samples'] if s['events']]
SMALL = '--small' in sys.argv
CONFUSERS = ['squat', 'pick up', 'sit down', 'stand up']
CLASSES = ['fall', *CONFUSERS, 'rest']
THRESHOLDS = np.round(np.arange(0.30, 0.995, 0.01), 2)
PERSONS = sorted({s['person'] for s in SAMPLES})

for s in SAMPLES:
    s['X'] = np.array([e['features'] for e in s['events']], float)
    s['strength'] = np.array([e['strength'] for e in s['events']])
    s['fall'] = s['label'] == 'fall'
    s['cls'] = CLASSES.index(s['label']) if s['label'] in CLASSES else CLASSES.index('rest')

# Per-person statistics of all judged events, labels unused (family D).
PSTAT = {}
for p in PERSONS:
    X = np.vstack([s['X'] for s in SAMPLES if s['person'] == p])
    PSTAT[p] = (X.mean(0), X.std(0) + 1e-9)


def columns(groups):
    return [i for i, n in enumerate(NAMES) if n[0] in groups]


def rows_of(samples, cols, norm=False):
    X, y, c = [], [], []
    for s in samples:
        Xs = s['X']
        if norm:
            m, sd = PSTAT[s['person']]
            Xs = (Xs - m) / sd
        if s['fall']:
            Xs = Xs[[int(np.argmax(s['strength']))]]
        X.append(Xs[:, cols])
        y += [1 if s['fall'] else 0] * len(Xs)
        c += [s['cls']] * len(Xs)
    return np.vstack(X), np.array(y), np.array(c)



def fit_binary(X, y, l2):
    """As src/model/logistic.ts fitLogistic (pilot/logistic.py)."""
    return ('bin', *fit_newton(X, y, l2))


def fit_multi(X, c, l2):
    m, sd = standardise(X)
    Z = np.hstack([(X - m) / sd, np.ones((len(X), 1))])
    K = len(CLASSES)
    n = len(c)
    counts = np.bincount(c, minlength=K).astype(float)
    present = counts > 0
    cw = np.where(present, (1 / present.sum()) / np.maximum(counts, 1) * n, 0)
    w = cw[c]
    Y = np.zeros((n, K))
    Y[np.arange(n), c] = 1
    d = Z.shape[1]
    pen = np.full(d, l2)
    pen[-1] = 0

    def f(theta):
        B = theta.reshape(d, K)
        S = Z @ B
        S -= S.max(1, keepdims=True)
        logp = S - np.log(np.exp(S).sum(1, keepdims=True))
        loss = -(w * (Y * logp).sum(1)).sum() + 0.5 * (pen[:, None] * B * B).sum()
        G = Z.T @ (w[:, None] * (np.exp(logp) - Y)) + pen[:, None] * B
        return loss, G.ravel()

    r = minimize(f, np.zeros(d * K), jac=True, method='L-BFGS-B', options={'maxiter': 500})
    return ('multi', m, sd, r.x.reshape(d, K))


def fit_knn(X, y, k):
    m, sd = standardise(X)
    return ('knn', m, sd, ((X - m) / sd, y, k))


def predict(model, X):
    kind, m, sd, p = model
    Zs = (X - m) / sd
    if kind == 'bin':
        return 1 / (1 + np.exp(-(Zs @ p[:-1] + p[-1])))
    if kind == 'multi':
        S = Zs @ p[:-1] + p[-1]
        S -= S.max(1, keepdims=True)
        P = np.exp(S)
        return P[:, 0] / P.sum(1)
    T, ty, k = p
    d2 = (Zs ** 2).sum(1)[:, None] + (T ** 2).sum(1)[None, :] - 2 * Zs @ T.T
    idx = np.argpartition(d2, k - 1, axis=1)[:, :k]
    f = ty[idx].sum(1) / max(1, ty.sum())
    o = (k - ty[idx].sum(1)) / max(1, (1 - ty).sum())
    return f / (f + o + 1e-12)


SETTINGS = []
for g in ['p', 'ap', 'ps', 'aps']:
    for l2 in [1, 10]:
        SETTINGS.append(('A', g, l2))
for g in ['p', 'ap', 'ps', 'aps']:
    for l2 in [1, 10, 100]:
        SETTINGS.append(('B', g, l2))
for g in ['p', 'ap', 'ps', 'aps']:
    for l2 in [30, 100, 300, 1000]:
        SETTINGS.append(('C', g, l2))
for g in ['p', 'ap', 'ps', 'aps']:
    for l2 in [1, 10]:
        SETTINGS.append(('D', g, l2))
for k in [5, 15, 45]:
    SETTINGS.append(('E', 'p', k))
if SMALL:
    SETTINGS = [s for s in SETTINGS if s[1] in ('p', 'ap')]


def fit(setting, train):
    fam, g, h = setting
    cols = columns(g)
    X, y, c = rows_of(train, cols, norm=fam == 'D')
    if fam in ('A', 'C', 'D'):
        return fit_binary(X, y, h)
    if fam == 'B':
        return fit_multi(X, c, h)
    return fit_knn(X, y, h)


def score(setting, model, samples):
    fam, g, _ = setting
    cols = columns(g)
    out = []
    for s in samples:
        Xs = s['X']
        if fam == 'D':
            m, sd = PSTAT[s['person']]
            Xs = (Xs - m) / sd
        out.append(float(predict(model, Xs[:, cols]).max()))
    return np.array(out)


def threshold_and_key(sc, falls):
    neg = sc[~falls]
    t = THRESHOLDS[-1]
    for th in THRESHOLDS:
        if (neg >= th).mean() <= 0.05:
            t = th
            break
    sens = (sc[falls] >= t).mean()
    far = (neg >= t).mean()
    return t, sens - 10 * max(0, far - 0.05), sens, far


def inner(train):
    """Inner leave-one-person-out scores of every setting on the training persons: {setting: (threshold, key)}."""
    persons = sorted({s['person'] for s in train})
    res = {}
    falls = np.array([s['fall'] for q in persons for s in train if s['person'] == q])
    for st in SETTINGS:
        sc = []
        for q in persons:
            model = fit(st, [s for s in train if s['person'] != q])
            sc.append(score(st, model, [s for s in train if s['person'] == q]))
        res[st] = threshold_and_key(np.concatenate(sc), falls)[:2]
    return res


def pick(res, families):
    best = None
    for st in SETTINGS:
        if st[0] in families and (best is None or res[st][1] > res[best][1]):
            best = st
    return best


FAMILIES = {'A': 'A', 'B': 'B', 'C': 'C', 'D': 'D', 'E': 'E', 'F': 'ABC'}
outer = {f: {'tp': 0, 'fa': collections.Counter(), 'picks': []} for f in FAMILIES}
# Samples with no judged event (too short) are never flagged; counted as eval:real counts them.
n_fall = sum(s['label'] == 'fall' for s in D['samples'])
n_neg = len(D['samples']) - n_fall
for p in PERSONS:
    train = [s for s in SAMPLES if s['person'] != p]
    test = [s for s in SAMPLES if s['person'] == p]
    res = inner(train)
    for fam, allowed in FAMILIES.items():
        st = pick(res, allowed)
        if st is None:
            continue
        t = res[st][0]
        sc = score(st, fit(st, train), test)
        hits = [s['fall'] for s, v in zip(test, sc) if v >= t]
        o = outer[fam]
        o.setdefault('folds', []).append(f'{p} {sum(hits)}/{sum(s["fall"] for s in test)}, {len(hits) - sum(hits)}/{len(test) - sum(s["fall"] for s in test)}')
        for s, v in zip(test, sc):
            if v >= t:
                if s['fall']:
                    outer[fam]['tp'] += 1
                else:
                    outer[fam]['fa'][s['label']] += 1
        outer[fam]['picks'].append(f'{p}:{st[0]}/{st[1]}/{st[2]}@{t:.2f}')
    print(f'outer {p} done', flush=True)

print(f'\n{n_fall} falls, {n_neg} other samples, {len(PERSONS)} persons; settings {len(SETTINGS)}')
for fam in FAMILIES:
    o = outer[fam]
    fa = sum(o['fa'].values())
    print(f"{fam}: falls {o['tp']}/{n_fall} ({100 * o['tp'] / n_fall:.0f} %), false alarms {fa}/{n_neg} ({100 * fa / n_neg:.1f} %): {dict(o['fa'])}; picks {' '.join(o['picks'])}")
    print(f"   per outer person (falls found, false alarms): {'; '.join(o['folds'])}")
res = inner(SAMPLES)
st = pick(res, 'ABC')
print(f'F on all persons picks {st} at threshold {res[st][0]:.2f} (inner key {res[st][1]:.3f}); A alone would pick {pick(res, "A")} at {res[pick(res, "A")][0]:.2f}')
