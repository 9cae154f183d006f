"""Pilot: CARM-style time–velocity profiles for the real Intel 5300 falls.

Input: the dump of pilot/carm_dump.mjs (raw CSI of every activity sample but lying/sitting).
Per sample: amplitudes of the 3×30 streams and the phase between receive chains (chain k against chain 0,
which cancels the card's common phase), low-passed, the static part removed, projected on the first
principal components; a short-time Fourier transform gives energy per velocity band over time; features
are that profile around the strongest event. Protocol as `npm run eval:real`: leave one person out;
the threshold is the lowest (0.30–0.99, step 0.01) whose inner leave-one-person-out false alarms are ≤ 5 %.
Run: node plugins/sensing/pilot/carm_dump.mjs /tmp/fr && python3 plugins/sensing/pilot/carm.py /tmp/fr

This file holds the pilot's second, streaming form (each event judged once from a 12-s window, 5–6 s after
its peak), which src/falls/ implements feature for feature; its figure is the one `npm run eval:real` measures
through LinkSensor (docs/sensing.md). This script's own run of that form (over 10 CPU-minutes on the shared
machine) was stopped before it printed. The first form's figures (one row per whole sample) are in docs/sensing.md.
"""
import json, sys, collections
import numpy as np

DIR = sys.argv[1] if len(sys.argv) > 1 else '/tmp/fr'
INDEX = json.load(open(f'{DIR}/index.json'))
RAW = np.fromfile(f'{DIR}/csi.bin', np.float32).reshape(-1, 181)
RATE = 20.0
E = 1e-9


def streams(x):
    h = x[:, 1:91] + 1j * x[:, 91:181]
    h = h.reshape(-1, 3, 30)
    amp = np.abs(h).reshape(len(h), -1)
    pd = np.angle(h[:, 1:, :] * np.conj(h[:, :1, :])).reshape(len(h), -1)
    return amp, np.unwrap(pd, axis=0)


def principal(s, k=4):
    """Streams with the slow static part (2-s moving mean) removed, each scaled to unit spread, the first k components."""
    kern = np.ones(41) / 41
    slow = np.apply_along_axis(lambda v: np.convolve(np.pad(v, 20, mode='edge'), kern, 'valid'), 0, s)
    d = s - slow
    d = d / (d.std(0) + E)
    u, sv, vt = np.linalg.svd(d - d.mean(0), full_matrices=False)
    return u[:, :k] * sv[:k], slow


WIN, HOP, NFFT = 16, 2, 32


def profile(pcs):
    """Energy per frequency bin over time (summed over components): shape (frames, NFFT/2+1)."""
    n = len(pcs)
    w = np.hanning(WIN)
    starts = np.arange(0, max(1, n - WIN + 1), HOP)
    frames = np.stack([pcs[s:s + WIN] * w[:, None] for s in starts])  # (t, WIN, k)
    spec = np.abs(np.fft.rfft(frames, NFFT, axis=1)) ** 2  # (t, f, k)
    return spec.sum(2), (starts + WIN / 2) / RATE


FREQ = np.fft.rfftfreq(NFFT, 1 / RATE)
BANDS = [(0.5, 1.5), (1.5, 3), (3, 5), (5, 8)]


WINDOW, JUDGE_FROM, JUDGE_TO, EVERY = 240, 100, 120, 20  # slots at 20 Hz: 12-s window, peak 5–6 s before its end, every second


def window_features(amp, pd):
    """Features of the strongest event of one window (its peak found on the phase-difference profile)."""
    out = {}
    prof = {}
    for name, s in (('p', pd), ('a', amp)):
        pcs, slow = principal(s)
        spec, t = profile(pcs)
        prof[name] = (spec, t, slow)
    step = int(round(1 / (HOP / RATE)))  # profile frames per second
    spec_p = prof['p'][0]
    tot_p = np.stack([spec_p[:, (FREQ >= lo) & (FREQ < hi)].sum(1) for lo, hi in BANDS], 1).sum(1)
    sm_p = np.convolve(tot_p, np.ones(5) / 5, 'same')
    p = int(np.argmax(sm_p))
    peak_slot = int(round(prof['p'][1][p] * RATE))
    for name in ('a', 'p'):
        spec, t, slow = prof[name]
        band = np.stack([spec[:, (FREQ >= lo) & (FREQ < hi)].sum(1) for lo, hi in BANDS], 1)
        tot = band.sum(1)
        sm = np.convolve(tot, np.ones(5) / 5, 'same')
        base = np.percentile(tot, 10) + E
        for off in range(-3, 5):
            lo, hi = p + off * step, p + (off + 1) * step
            seg = band[max(0, lo):max(0, min(len(band), hi))]
            v = seg.mean(0) if len(seg) else np.full(len(BANDS), base / len(BANDS))
            for j in range(len(BANDS)):
                out[f'{name}_b{j}_t{off}'] = np.log((v[j] + E) / base)
        c = np.cumsum(spec[p, FREQ >= 0.5]) / (spec[p, FREQ >= 0.5].sum() + E)
        f = FREQ[FREQ >= 0.5]
        out[f'{name}_f50'] = f[min(len(f) - 1, np.searchsorted(c, 0.5))]
        out[f'{name}_f90'] = f[min(len(f) - 1, np.searchsorted(c, 0.9))]
        half = base + 0.5 * (sm[p] - base)
        a = b = p
        while a > 0 and sm[a - 1] > half: a -= 1
        while b < len(sm) - 1 and sm[b + 1] > half: b += 1
        out[f'{name}_width'] = np.log((b - a + 1) / step)
        aft = tot[p + 2 * step:p + 6 * step]
        bef = tot[max(0, p - 6 * step):max(0, p - 2 * step)]
        out[f'{name}_after'] = np.log((np.median(aft) if len(aft) else tot[-1]) / base + E)
        out[f'{name}_before'] = np.log((np.median(bef) if len(bef) else tot[0]) / base + E)
        out[f'{name}_peak'] = np.log(sm[p] / base)
        ip = min(len(slow) - 1, peak_slot)
        sa = slow[min(len(slow) - 1, ip + int(3 * RATE))]
        sb = slow[max(0, ip - int(3 * RATE))]
        out[f'{name}_settled'] = np.log(np.linalg.norm(sa - sb) / (np.linalg.norm(slow.std(0)) + E) + E)
    return out, peak_slot, np.log(sm_p[p] + E)


def judged(d):
    """Every event the streaming detector judges in one sample: (features, strength)."""
    x = RAW[d['offset']:d['offset'] + d['frames']]
    amp, pd = streams(x)
    n = len(amp)
    rows = []
    last_end = None
    ends = list(range(JUDGE_TO, n + 1, EVERY))
    for e in ends:
        lo = max(0, e - WINDOW)
        f, ps, strength = window_features(amp[lo:e], pd[lo:e])
        if JUDGE_FROM < e - (lo + ps) <= JUDGE_TO:
            rows.append((f, strength))
        last_end = e
    # end of input: the last window judges a peak newer than any regular judge zone covered
    if n >= 60:
        lo = max(0, n - WINDOW)
        f, ps, strength = window_features(amp[lo:n], pd[lo:n])
        if last_end is None or lo + ps > last_end - JUDGE_FROM:
            rows.append((f, strength))
    return rows


class Logit:
    def __init__(self, l2=1.0):
        self.l2 = l2

    def fit(self, R, Y):
        R, Y = np.asarray(R, float), np.asarray(Y, float)
        self.mu, self.sd = R.mean(0), R.std(0)
        self.sd[self.sd == 0] = 1
        Z = np.hstack([(R - self.mu) / self.sd, np.ones((len(R), 1))])
        w = np.where(Y > 0, 0.5 / Y.mean(), 0.5 / (1 - Y.mean()))
        b = np.zeros(Z.shape[1])
        for _ in range(50):
            p = 1 / (1 + np.exp(-Z @ b))
            g = Z.T @ (w * (p - Y))
            H = (Z * (w * p * (1 - p))[:, None]).T @ Z
            g[:-1] += self.l2 * b[:-1]
            H[np.arange(len(b) - 1), np.arange(len(b) - 1)] += self.l2
            step = np.linalg.solve(H, g)
            b -= step
            if np.abs(step).max() < 1e-9: break
        self.b = b
        return self

    def prob(self, R):
        Z = np.hstack([(np.asarray(R, float) - self.mu) / self.sd, np.ones((len(R), 1))])
        return 1 / (1 + np.exp(-np.clip(Z @ self.b, -50, 50)))


THRESHOLDS = np.round(np.arange(0.30, 1.0, 0.01), 2)
CONFIGS = [(fs, l2) for fs in ('p', 'ap') for l2 in (1.0, 10.0)]


def columns(names, fs):
    return [i for i, n in enumerate(names) if n[0] in fs]


def fit(S, idx, l2):
    """Falls: each sample's strongest judged event; the other activities: every judged event."""
    R, Y = [], []
    for smp in S:
        if not smp['rows']: continue
        if smp['fall']:
            R.append(max(smp['rows'], key=lambda r: r[1])[0][idx]); Y.append(1)
        else:
            for r in smp['rows']: R.append(r[0][idx]); Y.append(0)
    return Logit(l2).fit(R, Y)


def score(model, smp, idx):
    return max((model.prob([r[0][idx]])[0] for r in smp['rows']), default=0.0)


def choose_threshold(scores, falls):
    neg = scores[~falls]
    for t in THRESHOLDS:
        if (neg >= t).mean() <= 0.05: return t
    return 0.99


def nested(S, names):
    """Config and threshold from an inner leave-one-person-out on S; returns (model, idx, threshold, config)."""
    people = sorted(set(s['person'] for s in S))
    falls = np.array([s['fall'] for s in S])
    best = None
    for fs, l2 in CONFIGS:
        idx = columns(names, fs)
        sc = np.zeros(len(S))
        for q in people:
            m = np.array([s['person'] == q for s in S])
            model = fit([s for s, k in zip(S, m) if not k], idx, l2)
            sc[m] = [score(model, s, idx) for s, k in zip(S, m) if k]
        t = choose_threshold(sc, falls)
        sens = (sc[falls] >= t).mean()
        far = (sc[~falls] >= t).mean()
        key = (sens - max(0, far - 0.05) * 10, -l2)
        if best is None or key > best[0]: best = (key, fs, l2, idx, t)
    _, fs, l2, idx, t = best
    return fit(S, idx, l2), idx, t, (fs, l2)


def main():
    S = []
    for d in INDEX:
        if d['frames'] < 60: continue
        rows = judged(d)
        S.append(dict(file=d['file'], label=d['label'], fall=d['label'] == 'fall', person='hhj' if d['person'] == 'hjj' else d['person'], rows=rows))
    names = list(next(s for s in S if s['rows'])['rows'][0][0])
    for s in S: s['rows'] = [(np.array([f[n] for n in names]), st) for f, st in s['rows']]
    print(f'{len(S)} samples, {sum(s["fall"] for s in S)} falls, {sum(len(s["rows"]) for s in S)} judged events, no event in {sum(not s["rows"] for s in S)} samples')
    people = sorted(set(s['person'] for s in S))
    fixed = {c: [] for c in CONFIGS}
    hits, chosen = [], {}
    for p in people:
        train = [s for s in S if s['person'] != p]
        test = [s for s in S if s['person'] == p]
        model, idx, t, cfg = nested(train, names)
        chosen[p] = (cfg, t)
        hits += [(s, score(model, s, idx) >= t) for s in test]
    fall_hits = [h for s, h in hits if s['fall']]
    fa = [h for s, h in hits if not s['fall']]
    print(f'nested (config and threshold on inner folds): falls {sum(fall_hits)}/{len(fall_hits)} = {100*np.mean(fall_hits):.1f} % found, false alarms {sum(fa)}/{len(fa)} = {100*np.mean(fa):.1f} %')
    print('  chosen per outer fold:', {k: (v[0][0], v[0][1], float(v[1])) for k, v in chosen.items()})
    print('  false alarms by activity:', dict(collections.Counter(s['label'] for s, h in hits if h and not s['fall'])))
    print('  missed falls:', [s['file'] for s, h in hits if s['fall'] and not h])


if __name__ == '__main__':
    main()
