"""Pilot helper (not shipped): the burst candidates that end in stillness and the logistic fit, shared by pilot/sim_burst.py (part 3)
and pilot/c2falls.py (candidates (b) and (c)).

Per link: E, the burst feature on the 0.25-s grid g (see sim_burst.py), and the packets' times t and chain phasors z.
A candidate is a grid point where E has its maximum over +-2 s, reaches `burst`, and the median E over 2-8 s after is
at most `still` and at most a third of the peak. Its features, in this order: log peak, log median after, log median
before (4-1 s), log peak over before, log of how far the mean phasor settled (2-4 s after against 3-1 s before),
width at half the peak (s), and the share of the 2-12 s after that is under `still`.
"""
import numpy as np

FEATURES = ['log_peak', 'log_after', 'log_before', 'log_peak_over_before', 'log_settled', 'width_s', 'still_share']


def burst_candidates(g, e, t, z, burst, still, hop):
    """Yields (time of the candidate, its features) on one link."""
    k = int(2 / hop)
    for i in range(k, len(e) - int(8 / hop)):
        v = e[i]
        if not np.isfinite(v) or v < burst or np.nanmax(e[i - k:i + k + 1]) > v:
            continue
        after = np.nanmedian(e[i + int(2 / hop):i + int(8 / hop) + 1])
        if after > still or v < 3 * after:
            continue
        tc = g[i]
        before = np.nanmedian(e[max(0, i - int(4 / hop)):i - int(1 / hop) + 1])
        a = (t >= tc + 2) & (t <= tc + 4)
        b = (t >= tc - 3) & (t <= tc - 1)
        settled = np.abs(z[a].mean(0) - z[b].mean(0)).mean() if a.any() and b.any() else 0
        lo = i
        while lo > 0 and e[lo - 1] > v / 2:
            lo -= 1
        hi = i
        while hi < len(e) - 1 and e[hi + 1] > v / 2:
            hi += 1
        tail = e[i + int(2 / hop):min(len(e), i + int(12 / hop)) + 1]
        yield tc, [np.log(v), np.log(after), np.log(before + 1e-6), np.log(v / (before + 1e-6)), np.log(settled + 1e-6), (hi - lo + 1) * hop, float(np.mean(tail < still))]


def fit(X, Y, l2=1.0):
    """A logistic regression, classes weighted equally, inputs standardised, L2 on the weights (Newton steps).
    Returns (model, (mean, std, weights)); model(X) gives probabilities."""
    X, Y = np.asarray(X, float), np.asarray(Y, float)
    mu, sd = X.mean(0), X.std(0)
    sd[sd == 0] = 1
    Z = np.hstack([(X - mu) / sd, np.ones((len(X), 1))])
    w = np.where(Y > 0, 0.5 / max(Y.mean(), 1e-6), 0.5 / max(1 - Y.mean(), 1e-6))
    b = np.zeros(Z.shape[1])
    for _ in range(30):
        p = 1 / (1 + np.exp(-Z @ b))
        gr = Z.T @ (w * (p - Y))
        H = (Z * (w * p * (1 - p))[:, None]).T @ Z
        gr[:-1] += l2 * b[:-1]
        H[np.arange(len(b) - 1), np.arange(len(b) - 1)] += l2
        b -= np.linalg.solve(H, gr)
    return lambda Xn: 1 / (1 + np.exp(-(np.hstack([(np.asarray(Xn, float) - mu) / sd, np.ones((len(Xn), 1))]) @ b))), (mu, sd, b)


def merge_links(mine):
    """One session's candidates (all links) merged: those within 2 s of the previous are one. Yields (the group,
    its features: each feature's largest value, the stillness after its smallest, plus the number of links, and
    the group's strongest candidate)."""
    groups = []
    for r in sorted(mine, key=lambda r: r['t']):
        if groups and r['t'] - groups[-1][-1]['t'] < 2:
            groups[-1].append(r)
        else:
            groups.append([r])
    for gr in groups:
        x = np.array([r['x'] for r in gr])
        f = list(x.max(0))
        f[1] = x[:, 1].min()
        f.append(len(gr))
        yield gr, f, gr[int(np.argmax(x[:, 0]))]
