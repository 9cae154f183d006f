"""Pilot (not shipped): falls from the height of the change, scored as fallheight-protocol.md says.

Reads the dumps of fallheight_dump.mjs (training rooms for the secondary fit, validation rooms for every figure):
    python3 plugins/sensing/pilot/fallheight.py /tmp/fallheight-train /tmp/fallheight-val
`TRACE=DIR` prints, per fall and fall-like session of DIR, the height index at the person's spot over time.
"""
import json, os, sys
import numpy as np

MATCH_BEFORE, MATCH_AFTER = 2.0, 3.0
MERGE_S = 2.0
DAY = 86400.0
# The shipped `sim` fall model's threshold (src/model/defaults.ts, fallByFamily.sim).
SHIPPED_THRESHOLD = 0.95


def load(d):
    idx = json.load(open(os.path.join(d, 'index.json')))
    for s in idx['sessions']:
        raw = np.fromfile(os.path.join(d, s['file']), dtype=np.float32).reshape(-1, s['width']) if s['rows'] else np.zeros((0, s['width']), np.float32)
        s['t'] = raw[:, 0]
        s['img'] = raw[:, 1:].reshape(len(raw), len(s['cells']), len(s['heights']))
    return idx


def mean_image(s, a, b):
    m = (s['t'] >= a) & (s['t'] <= b)
    return s['img'][m].mean(axis=0) if m.any() else None


def height_index(img_cell, heights):
    w = img_cell / (img_cell.sum() or 1)
    return float((w * np.array(heights)).sum())


def features(s, T):
    A, B = mean_image(s, T + 2, T + 6), mean_image(s, T - 3, T - 1)
    if A is None or B is None:
        return None
    spot = int(np.argmax(A.sum(axis=1)))
    za, zb = height_index(A[spot], s['heights']), height_index(B[spot], s['heights'])
    return zb - za, za


def room_candidates(s):
    """Today's candidates of all links within 2 s are one room candidate, at its most probable member."""
    cs = sorted(s['candidates'], key=lambda c: c['second'])
    groups, cur = [], []
    for c in cs:
        if cur and c['second'] - cur[-1]['second'] > MERGE_S:
            groups.append(cur); cur = []
        cur.append(c)
    if cur:
        groups.append(cur)
    return [max(g, key=lambda c: c['probability']) for g in groups]


def label(s, T):
    for f in s['falls']:
        if f[0] - MATCH_BEFORE <= T <= f[1] + MATCH_AFTER:
            return 'fall'
    if s['kind'] == 'fall':
        return 'getting up' if s['falls'] and T > s['falls'][0][1] + MATCH_AFTER else 'walk before'
    if s['kind'] == 'fall-like':
        return 'fall-like'
    return s['kind']  # still (fidgets) or empty (fan, cat, door)


def rows(idx):
    out = []
    for si, s in enumerate(idx['sessions']):
        for c in room_candidates(s):
            f = features(s, c['second'])
            if f is None:
                continue
            p = min(max(c['probability'], 1e-6), 1 - 1e-6)
            out.append(dict(session=si, T=c['second'], label=label(s, c['second']), drop=f[0], zafter=f[1], logit=np.log(p / (1 - p)), p=c['probability']))
    return out


def auc(pos, neg):
    pos, neg = np.asarray(pos), np.asarray(neg)
    if not len(pos) or not len(neg):
        return float('nan')
    return float(((pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()) / (len(pos) * len(neg)))


def fit_logistic(X, y, iters=50, l2=1e-3):
    mu, sd = X.mean(0), X.std(0) + 1e-9
    Z = np.hstack([np.ones((len(X), 1)), (X - mu) / sd])
    w_pos, w_neg = 0.5 / max(1, y.sum()), 0.5 / max(1, (1 - y).sum())
    sw = np.where(y == 1, w_pos, w_neg)
    b = np.zeros(Z.shape[1])
    for _ in range(iters):
        p = 1 / (1 + np.exp(-Z @ b))
        g = Z.T @ (sw * (p - y)) + l2 * b
        Hm = (Z * (sw * p * (1 - p))[:, None]).T @ Z + l2 * np.eye(len(b))
        b -= np.linalg.solve(Hm, g)
    return lambda X2: 1 / (1 + np.exp(-np.hstack([np.ones((len(X2), 1)), (X2 - mu) / sd]) @ b))


def end_to_end(idx, rs, scores, threshold):
    """Falls found and false alarms per day: (a) over every session's time, (b) alarms and time of still and empty sessions only."""
    found, false_all, false_living = 0, 0, 0
    total = sum(s['seconds'] for s in idx['sessions'])
    living = sum(s['seconds'] for s in idx['sessions'] if s['kind'] in ('still', 'empty'))
    nfalls = sum(len(s['falls']) for s in idx['sessions'])
    for si, s in enumerate(idx['sessions']):
        alarms = [r['T'] for r, sc in zip(rs, scores) if r['session'] == si and sc >= threshold]
        hit = set()
        for T in alarms:
            m = [k for k, f in enumerate(s['falls']) if f[0] - MATCH_BEFORE <= T <= f[1] + MATCH_AFTER]
            if m:
                hit.update(m)
            else:
                false_all += 1
                false_living += s['kind'] in ('still', 'empty')
        found += len(hit)
    return found, nfalls, false_all / total * DAY, false_living / living * DAY


def pick_threshold(idx, rs, scores):
    for th in sorted(set(scores)):
        f = end_to_end(idx, rs, scores, th)
        if f[2] <= 1:
            return th, f
    return float('inf'), end_to_end(idx, rs, scores, float('inf'))


def trace(d):
    idx = load(d)
    for s in idx['sessions']:
        if s['kind'] not in ('fall', 'fall-like'):
            continue
        events = s['falls'] or s['fallLike']
        print(s['name'], [(round(a, 1), round(b, 1)) for a, b, _ in events], 'candidates', [round(c['second'], 1) for c in room_candidates(s)])
        for k in range(0, len(s['t']), 2):
            I = s['img'][k]
            spot = int(np.argmax(I.sum(axis=1)))
            print(f"  t={s['t'][k]:5.1f} spot={s['cells'][spot][0]:.2f},{s['cells'][spot][1]:.2f} z={height_index(I[spot], s['heights']):.3f} shares={np.round(I[spot] / I[spot].sum(), 3)}")


def main():
    if os.environ.get('TRACE'):
        return trace(os.environ['TRACE'])
    train, val = load(sys.argv[1]), load(sys.argv[2])
    rt, rv = rows(train), rows(val)
    for name, idx, rs in (('training', train, rt), ('validation', val, rv)):
        print(f"== {name}: {len(idx['sessions'])} sessions, {sum(s['seconds'] for s in idx['sessions'])} s; falls {sum(len(s['falls']) for s in idx['sessions'])}; room candidates {len(rs)}; imaging {idx['imagingCpuS']:.1f} CPU-s = {idx['imagingCpuS'] / idx['simulatedSeconds']:.4f} per room-second (total {idx['totalCpuS']:.0f} CPU-s, wall {idx['wallS']:.0f} s)")
        labels = sorted(set(r['label'] for r in rs))
        for lab in labels:
            sel = [r for r in rs if r['label'] == lab]
            print(f"  {lab:12s} n={len(sel):4d}  drop median {np.median([r['drop'] for r in sel]):+.3f} [{np.percentile([r['drop'] for r in sel], 10):+.3f}, {np.percentile([r['drop'] for r in sel], 90):+.3f}]  zAfter median {np.median([r['zafter'] for r in sel]):.3f}  p median {np.median([r['p'] for r in sel]):.2f}")
        falls_with_candidate = sum(len({k for r in rs if r['session'] == si and r['label'] == 'fall' for k, f in enumerate(s['falls']) if f[0] - MATCH_BEFORE <= r['T'] <= f[1] + MATCH_AFTER}) for si, s in enumerate(idx['sessions']))
        print(f"  falls with a room candidate: {falls_with_candidate}")
    # Diagnostic (no choice made on it): the height index where the person is, lying on the floor after a fall
    # (3-13 s after its end) vs standing after getting up (the session's last 8-1 s), per fall session.
    for name, idx in (('training', train), ('validation', val)):
        lying, standing = [], []
        for s in idx['sessions']:
            if s['kind'] != 'fall' or not s['falls']:
                continue
            e = s['falls'][0][1]
            for (a, b), bucket in (((e + 3, e + 13), lying), ((s['seconds'] - 8, s['seconds'] - 1), standing)):
                I = mean_image(s, a, b)
                if I is not None:
                    spot = int(np.argmax(I.sum(axis=1)))
                    bucket.append((height_index(I[spot], s['heights']), I[spot] / I[spot].sum()))
        zl, zs = [x[0] for x in lying], [x[0] for x in standing]
        print(f"== {name} truth phases of fall sessions: z lying {np.median(zl):.3f} [{np.percentile(zl, 10):.3f}-{np.percentile(zl, 90):.3f}] vs standing {np.median(zs):.3f} [{np.percentile(zs, 10):.3f}-{np.percentile(zs, 90):.3f}]; AUC standing above lying {auc(zs, zl):.2f}; shares at the spot (0.3/0.9/1.5 m) lying {np.round(np.median([x[1] for x in lying], axis=0), 3)} standing {np.round(np.median([x[1] for x in standing], axis=0), 3)}; paired: lower when lying in {np.mean([a < b for a, b in zip(zl, zs)]) * 100:.0f} % of {len(zl)}")
    y_t = np.array([r['label'] == 'fall' for r in rt], float)
    X = lambda rs: np.array([[r['drop'], r['zafter'], r['logit']] for r in rs])
    secondary = fit_logistic(X(rt), y_t)
    pos = [r for r in rv if r['label'] == 'fall']
    neg = [r for r in rv if r['label'] != 'fall']
    sec_v = secondary(X(rv))
    isf_t = np.array([r['label'] == 'fall' for r in rt])
    for name, score in (('drop', [r['drop'] for r in rt]), ('zAfter (low = fall)', [-r['zafter'] for r in rt]), ("today's p", [r['p'] for r in rt])):
        sc = np.array(score)
        print(f"== training AUC {name}: {auc(sc[isf_t], sc[~isf_t]):.3f}")
    print('== validation AUC, falls vs every other candidate (and vs each group)')
    groups = sorted(set(r['label'] for r in neg))
    for name, score in (('drop', [r['drop'] for r in rv]), ('zAfter (low = fall)', [-r['zafter'] for r in rv]), ("today's p", [r['p'] for r in rv]), ('secondary (drop, zAfter, logit p)', list(sec_v))):
        sc = np.array(score)
        isf = np.array([r['label'] == 'fall' for r in rv])
        per = ', '.join(f"{g} {auc(sc[isf], sc[np.array([r['label'] == g for r in rv])]):.2f}" for g in groups)
        print(f"  {name:36s} all {auc(sc[isf], sc[~isf]):.3f}  ({per})")
    print('== validation end to end (threshold: lowest with (a) <= 1 false alarm per day)')
    today = end_to_end(val, rv, [r['p'] for r in rv], SHIPPED_THRESHOLD)
    print(f"  today's detector on these candidates (p >= its shipped threshold {SHIPPED_THRESHOLD}): {today[0]}/{today[1]} found, {today[2]:.1f}/day (a), {today[3]:.1f}/day (b)")
    for name, score in (("today's p", [r['p'] for r in rv]), ('drop', [r['drop'] for r in rv]), ('secondary', list(sec_v))):
        th, f = pick_threshold(val, rv, score)
        print(f"  {name:12s} threshold {th:.3f}: {f[0]}/{f[1]} found, {f[2]:.1f}/day (a), {f[3]:.1f}/day (b)")
        for q in (0.5, 0.8, 0.9, 0.95):
            tq = float(np.quantile(score, q))
            f = end_to_end(val, rv, score, tq)
            print(f"      at the {int(q * 100)}th percentile ({tq:.3f}): {f[0]}/{f[1]} found, {f[2]:.1f}/day (a), {f[3]:.1f}/day (b)")


if __name__ == '__main__':
    main()
