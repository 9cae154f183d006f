# Pilot (not shipped): is a breathing line visible in the Intel 5300 lying/sitting recordings where the product
# finds none (abid and hhj lying, hhj sitting: `no_periodicity` in most seconds)? Reads `carm_dump.mjs DIR still`'s
# dump. Per file, 30-s windows every 5 s on a 10-Hz grid; per window and per channel set, the combined spectrum's
# peak-to-median ratio in 6-40 bpm (the product asks >= 4) and its rate. Channel sets:
#   groups: the product's (8 subcarrier groups per chain: gain-free amplitude; conjugate products of chains 1, 2
#           with chain 0 per group, unit phasors, real and imaginary parts), each spectrum weighted by its peakiness;
#   pca:    every subcarrier's gain-free amplitude and conjugate products (90 + 120 series), detrended, the first
#           3 principal components of the window, their spectra weighted by their variance.
# A window is "steady" when its rate is within 2 bpm of the median rate of the windows 10 s before and after.
# Usage: python3 plugins/sensing/pilot/still_breathing.py /tmp/still
import json, sys
import numpy as np

d = sys.argv[1] if len(sys.argv) > 1 else '/tmp/still'
index = json.load(open(f'{d}/index.json'))
raw = np.fromfile(f'{d}/csi.bin', dtype=np.float32).reshape(-1, 181)
RATE = 10.0
WIN, HOP = 30, 5
LO, HI = 6 / 60, 40 / 60

def grid(rows):
    t = rows[:, 0]
    h = (rows[:, 1:91] + 1j * rows[:, 91:181]).reshape(-1, 3, 30)
    amp = np.abs(h)
    amp = amp / (amp.mean(axis=2, keepdims=True) + 1e-12)  # per-chain gain removed (AGC)
    conj = h[:, 1:, :] * np.conj(h[:, :1, :])
    conj = conj / (np.abs(conj) + 1e-12)
    slots = np.floor(t * RATE).astype(int)
    n = slots.max() + 1
    def avg(x):
        x = x.reshape(len(t), -1)
        out = np.zeros((n, x.shape[1]), dtype=x.dtype)
        cnt = np.zeros(n)
        np.add.at(out, slots, x)
        np.add.at(cnt, slots, 1)
        for i in range(n):
            if cnt[i] == 0 and i > 0:
                out[i] = out[i - 1]; cnt[i] = 1
        return out / np.maximum(cnt, 1)[:, None]
    return avg(amp), avg(conj)

def spectrum(x):
    x = x - np.polyval(np.polyfit(np.arange(len(x)), x, 1), np.arange(len(x)))
    w = np.hanning(len(x))
    f = np.fft.rfftfreq(4 * len(x), 1 / RATE)
    p = np.abs(np.fft.rfft(x * w, 4 * len(x))) ** 2
    band = (f >= LO) & (f <= HI)
    return f[band], p[band]

def judge(f, p):
    k = int(np.argmax(p))
    return p[k] / (np.median(p) + 1e-18), f[k] * 60

def groups_set(amp, conj):
    a = amp.reshape(len(amp), 3, 30)
    c = conj.reshape(len(conj), 2, 30)
    ch = []
    for g in range(8):
        sl = slice(g * 30 // 8, (g + 1) * 30 // 8)
        ch += [a[:, r, sl].mean(axis=1) for r in range(3)]
        m = c[:, :, sl].mean(axis=2)
        m = m / (np.abs(m) + 1e-12)
        ch += [m[:, r].real for r in range(2)] + [m[:, r].imag for r in range(2)]
    return np.stack(ch, axis=1)

def combined(channels, weights=None):
    total = None
    for j in range(channels.shape[1]):
        f, p = spectrum(channels[:, j])
        s = p / (p.sum() + 1e-18)
        wgt = (s.max() / (s.sum() + 1e-18)) if weights is None else weights[j]
        total = s * wgt if total is None else total + s * wgt
    return f, total

def pca_set(amp, conj):
    x = np.concatenate([amp.reshape(len(amp), -1), conj.reshape(len(conj), -1).real, conj.reshape(len(conj), -1).imag], axis=1)
    x = x - x.mean(axis=0)
    t = np.arange(len(x))
    x = x - np.outer(t - t.mean(), (x * (t - t.mean())[:, None]).sum(axis=0) / ((t - t.mean()) ** 2).sum())
    x = x / (x.std(axis=0) + 1e-9)
    u, s, vt = np.linalg.svd(x, full_matrices=False)
    comps = u[:, :3] * s[:3]
    return comps, s[:3] ** 2 / (s[:3] ** 2).sum()

rows_out = []
for e in index:
    rows = raw[e['offset']:e['offset'] + e['frames']]
    amp, conj = grid(rows)
    res = {'groups': [], 'pca': []}
    for start in range(10 * int(RATE), len(amp) - WIN * int(RATE), HOP * int(RATE)):
        sl = slice(start, start + WIN * int(RATE))
        res['groups'].append(judge(*combined(groups_set(amp[sl], conj[sl]))))
        comps, w = pca_set(amp[sl], conj[sl])
        res['pca'].append(judge(*combined(comps, w)))
    line = {'file': e['file']}
    for k, v in res.items():
        v = np.array(v)
        ratio, rate = v[:, 0], v[:, 1]
        steady = [abs(rate[i] - np.median(np.r_[rate[max(0, i - 2):i], rate[i + 1:i + 3]])) <= 2 for i in range(len(rate))]
        line[k] = {'windows': len(v), 'pmr>=4': round(float((ratio >= 4).mean()), 2), 'steady': round(float(np.mean(steady)), 2),
                   'pmr>=4 & steady': round(float(np.mean((ratio >= 4) & np.array(steady))), 2), 'median rate': round(float(np.median(rate)), 1), 'median pmr': round(float(np.median(ratio)), 1)}
    rows_out.append(line)
    print(json.dumps(line))
