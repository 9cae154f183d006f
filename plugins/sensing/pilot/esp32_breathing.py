"""Pilot (not shipped; the product is TypeScript): why the ESP32 breathing captures give no breathing rate.

Reads ../shared/data/real/breathing-esp32 (evaluation data, never copied) and prints per take:
packet interval, how many CSI values a row carries, the period of the disturbance train found by
synchronous averaging, and, after removing that train, how strong the spectrum is within 2 bpm of the
counted rate (relative to the band median) and where the best subcarrier's peak lies, for normalised
amplitude, the phase left after a linear fit across subcarriers, and RSSI.
Run: python3 plugins/sensing/pilot/esp32_breathing.py   (numpy, scipy)
"""
import csv, json, os, sys
import numpy as np
from scipy.signal import detrend

ROOT = os.environ.get('WIFLOW_REAL_DATA', os.path.join(os.path.dirname(__file__), '../../../../shared/data/real'))
DIR = os.path.join(ROOT, 'breathing-esp32')
if not os.path.isdir(DIR):
    print(f'real captures not found at {DIR}: nothing to look at')
    sys.exit(0)
FS = 10  # grid rate (Hz), as the sensing uses
SC = list(range(6, 32)) + list(range(33, 59))  # the LLTF's 52 data subcarriers in the row's order


def load(name):
    rows = list(csv.reader(open(os.path.join(DIR, name))))
    h = rows[0]
    ts, rssi, csi, declared, carried = [], [], [], [], []
    for r in rows[1:]:
        if len(r) < len(h) or r[h.index('sig_mode')] != '1':
            continue  # the legacy packets (~5 %) have another LLTF; the sensing drops them too
        v = [int(x) for x in r[-1].strip('[] ').split()]
        declared.append(int(r[h.index('len')]))
        carried.append(len(v))
        ts.append(int(r[h.index('local_timestamp')]))
        rssi.append(float(r[h.index('rssi')]))
        csi.append(np.array(v[1::2]) + 1j * np.array(v[0::2]))
    return np.array(ts), np.array(rssi), np.array(csi), declared, carried


def spectrum(x):
    x = detrend(x)
    p = np.abs(np.fft.rfft(x * np.hanning(len(x)), 4096)) ** 2
    return np.fft.rfftfreq(4096, 1 / FS) * 60, p


def remove_train(g, X):
    """Subtract the synchronous average over the best period in 5.9–6.3 s; return what is left and the period."""
    best = None
    for P in np.arange(5.9, 6.3, 0.005):
        bins = ((g % P) / P * 60).astype(int)
        cnt = np.maximum(np.bincount(bins, minlength=60), 1)
        T = np.array([np.bincount(bins, weights=x, minlength=60) / cnt for x in X])
        energy = (T ** 2).sum()
        if best is None or energy > best[0]:
            best = (energy, T[:, bins], P)
    return X - best[1], best[2]


labels = json.load(open(os.path.join(DIR, 'labels.json')))
print('take | label | counted bpm | interval ms (median) | values carried/declared | train period s | '
      'amp: near-label/median, best-sc peak (q) | phase: same | rssi: same')
for e in labels:
    if e['label'] == 'noise':
        continue
    ts, rssi, C, declared, carried = load(e['file'])
    t = (ts - ts[0]) / 1e6
    g = np.arange(0, t[-1], 1 / FS)
    A = np.abs(C[:, SC])
    ph = np.unwrap(np.angle(C[:, SC]), axis=1)
    x = np.array(SC, float)
    coef = np.polyfit(x, ph.T, 1)
    channels = {'amp': A / A.mean(1, keepdims=True), 'phase': ph - (np.outer(coef[0], x) + coef[1][:, None]), 'rssi': rssi[:, None]}
    cells = []
    period = None
    for name, F in channels.items():
        R = np.array([np.interp(g, t, F[:, k]) for k in range(F.shape[1])])
        R, period = remove_train(g, R - R.mean(1, keepdims=True))
        total = 0
        best = (0, 0)
        for k in range(R.shape[0]):
            f, p = spectrum(R[k])
            band = (f >= 6) & (f <= 40)
            total = total + p / p[band].sum()
            q = p[band].max() / np.median(p[band])
            if q > best[0]:
                best = (q, f[band][np.argmax(p[band])])
        fb, sb = f[band], total[band]
        near = sb[np.abs(fb - e['breaths_per_minute']) <= 2].max() / np.median(sb)
        cells.append(f'{near:.2f}, {best[1]:.1f} ({best[0]:.0f})')
    print(f"{e['file'][:22]} | {e['label']} | {e['breaths_per_minute']} | {np.median(np.diff(t)) * 1e3:.0f} | "
          f"{int(np.median(carried))}/{int(np.median(declared))} | {period:.3f} | " + ' | '.join(cells))
