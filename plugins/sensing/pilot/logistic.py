"""Pilot helper (not shipped): the binary logistic regression the product fits (src/model/logistic.ts fitLogistic):
Newton steps, inputs standardised, L2 on the weights (not the bias), classes weighted equally. Shared by
pilot/falls_multiclass.py (family A) and pilot/fallpower.py."""
import numpy as np


def standardise(X):
    m = X.mean(0)
    sd = X.std(0)
    sd[sd == 0] = 1
    return m, sd


def fit_newton(X, y, l2):
    """Returns (mean, std, beta); beta's last entry is the bias."""
    m, sd = standardise(X)
    Z = np.hstack([(X - m) / sd, np.ones((len(X), 1))])
    n = len(y)
    pos = y.sum()
    w = np.where(y == 1, 0.5 / (pos / n), 0.5 / (1 - pos / n))
    beta = np.zeros(Z.shape[1])
    pen = np.full(Z.shape[1], l2)
    pen[-1] = 0
    for _ in range(30):
        p = 1 / (1 + np.exp(-(Z @ beta)))
        g = Z.T @ (w * (p - y)) + pen * beta
        H = (Z * (w * p * (1 - p))[:, None]).T @ Z + np.diag(pen)
        step = np.linalg.solve(H, g)
        beta -= step
        if np.all(np.abs(step) < 1e-9):
            break
    return m, sd, beta
