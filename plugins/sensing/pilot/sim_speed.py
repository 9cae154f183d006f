"""Pilot (not shipped): can a faster radio read a fall's speed? Doppler bands of the phase between receive chains.

Input: a dump of pilot/sim_burst_dump.mjs made with --rate (e.g. 200 packets/s) and --kinds fall,fall-like
(training rooms; no test room). Per link, over 0.5-s windows every 0.125 s, the power of the conjugate-product
phasors (mean removed per window) in Doppler bands, divided by the band's 10th percentile over the session (the
link's floor). At 5.24 GHz a path that lengthens at v m/s turns at v / 0.0572 Hz: 3-15 Hz is 0.17-0.86 m/s,
15-35 Hz 0.86-2 m/s, 35-90 Hz 2-5.1 m/s. Per movement the largest value on the best link, by kind: falls,
fall-like movements, getting up from the floor, and the walk before a fall (4-1 s before its start).
Run: node plugins/sensing/pilot/sim_burst_dump.mjs /tmp/sb200 --rate 200 --kinds fall,fall-like --rooms 6 &&
     python3 plugins/sensing/pilot/sim_speed.py /tmp/sb200
"""
import json, os, sys
import numpy as np

DIR = sys.argv[1]
D = json.load(open(os.path.join(DIR, 'index.json')))
BANDS = [(3, 15), (15, 35), (35, 90)]


def bands(link):
    a = np.fromfile(os.path.join(DIR, link['file']), dtype=np.float32).reshape(link['rows'], link['width'])
    t = a[:, 0].astype(float)
    z = a[:, 1::2] + 1j * a[:, 2::2]
    rate = (len(t) - 1) / (t[-1] - t[0])
    n = int(round(0.5 * rate))
    hop = max(1, int(round(0.125 * rate)))
    f = np.fft.fftfreq(n, 1 / rate)
    times, power = [], []
    for i in range(0, len(t) - n, hop):
        w = z[i:i + n] - z[i:i + n].mean(0)
        p = (np.abs(np.fft.fft(w * np.hanning(n)[:, None], axis=0)) ** 2).mean(1)
        power.append([p[(np.abs(f) >= lo) & (np.abs(f) < hi)].sum() for lo, hi in BANDS])
        times.append(t[i + n - 1])
    power = np.array(power)
    return np.array(times), power / (np.percentile(power, 10, axis=0) + 1e-12)


rows = {}
for s in D:
    series = [bands(l) for l in s['links']]
    moves = []
    for w in s['falls']:
        moves.append(('fall', w[0], w[1] + 0.25))
        moves.append(('get-up', w[1] + 15, w[1] + 18.5))
        if w[2] != 'slump':
            moves.append(('walk before a fall', w[0] - 4, w[0] - 1))
    for w in s['fallLike']:
        moves.append(('fall-like ' + w[2], w[0], w[1] + 0.25))
    for kind, a, b in moves:
        best = None
        for t, p in series:
            m = (t >= a) & (t <= b)
            if not m.any():
                continue
            v = p[m].max(0)
            if best is None or v[-1] > best[-1]:
                best = v
        if best is not None:
            rows.setdefault(kind, []).append(best)
print('largest band power over the movement, best link, in floor units: median [10th-90th percentile]')
print('  ' + ' ' * 22 + '   '.join(f'{lo}-{hi} Hz ({lo * 0.0572:.2f}-{hi * 0.0572:.2f} m/s)'.ljust(30) for lo, hi in BANDS) + '  fast/slow')
for k, v in sorted(rows.items()):
    v = np.log10(np.array(v))
    cells = [f'{np.median(v[:, i]):5.2f} [{np.percentile(v[:, i], 10):5.2f}-{np.percentile(v[:, i], 90):5.2f}]'.ljust(30) for i in range(3)]
    ratio = v[:, 2] - v[:, 0]
    print(f'  {k:22s} n={len(v):2d} ' + '   '.join(cells) + f'  {np.median(ratio):+.2f} [{np.percentile(ratio, 10):+.2f}-{np.percentile(ratio, 90):+.2f}]')
print('(log10 of floor units)')
