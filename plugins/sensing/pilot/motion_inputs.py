"""Pilot helper (not shipped): the motion inputs and feature sets of src/eval/real-eval.ts, and the model's logit,
shared by pilot/esp32cal.py, pilot/esp32slowref.py and pilot/esp32floor.py (the fit itself: pilot/logistic.py)."""
import numpy as np
from logistic import fit_newton

EPS = 1e-6
SETS = [[0, 1, 2, 3], [0], [2], [3], [0, 2], [1, 2], [2, 3], [0, 3]]  # MOTION_FEATURE_SETS of real-eval.ts


def inputs(sec):
    """log spread, spread over step, spread over packet step, step over packet step (motionInputs' first four)."""
    s, st, ps = sec['spread'], sec['step'], sec['packetStep']
    return [np.log(s + EPS), np.log((s + EPS) / (st + EPS)), np.log((s + EPS) / (ps + EPS)), np.log((st + EPS) / (ps + EPS))]


def fit(X, y, l2=1.0):
    """fitLogistic of src/model/logistic.ts: (mean, scale, beta), beta's last entry the bias."""
    return fit_newton(X, y, l2)


def logit(model, X):
    mean, scale, beta = model
    return ((X - mean) / scale) @ beta[:-1] + beta[-1]


def balanced_accuracy_sum(decisions):
    """Accuracy on quiet seconds plus accuracy on movement seconds, over (label, decisions) pairs (fitMotion's score)."""
    right = [0, 0]; count = [0, 0]
    for y, d in decisions:
        count[y] += len(d); right[y] += int((d == bool(y)).sum())
    return right[0] / max(1, count[0]) + right[1] / max(1, count[1])


def choose_by_chip(train, forms, form_inputs):
    """The form with the best inner leave-one-chip-out score (the first best wins ties), and that score.
    `form_inputs(unit, form)` gives a unit's rows for a form; a unit has 'chip', 'X' (its seconds) and 'y'."""
    def rows(us, form):
        return np.vstack([form_inputs(u, form) for u in us]), np.concatenate([np.full(len(u['X']), u['y']) for u in us])

    def inner(form):
        dec = []
        for c in sorted({u['chip'] for u in train}):
            model = fit(*rows([u for u in train if u['chip'] != c], form))
            dec += [(u['y'], logit(model, form_inputs(u, form)) >= 0) for u in train if u['chip'] == c]
        return balanced_accuracy_sum(dec)

    best, best_s = forms[0], -1
    for form in forms:
        s = inner(form)
        if s > best_s + 1e-12:
            best, best_s = form, s
    return best, best_s
