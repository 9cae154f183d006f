/**
 * Constant-velocity Kalman filter on the floor plane, state [x, y, vx, vy]. Process noise
 * is white acceleration with standard deviation `accelerationSigma` (m/s²); measurements are
 * positions with standard deviation `measurementSigma` (m).
 */
export class FloorKalman {
  /** State [x, y, vx, vy]. */
  readonly state: Float64Array;
  /** Covariance, row-major 4×4. */
  readonly covariance: Float64Array;

  constructor(
    x: number,
    y: number,
    readonly accelerationSigma: number,
    readonly measurementSigma: number,
    initialVelocitySigma = 1.0,
  ) {
    this.state = Float64Array.from([x, y, 0, 0]);
    const p = measurementSigma ** 2;
    const v = initialVelocitySigma ** 2;
    this.covariance = Float64Array.from([p, 0, 0, 0, 0, p, 0, 0, 0, 0, v, 0, 0, 0, 0, v]);
  }

  /** Scale the velocity estimate by `factor` (0..1): a person unseen for a while more likely stopped than walked on. */
  dampVelocity(factor: number): void {
    this.state[2] *= factor;
    this.state[3] *= factor;
  }

  /** Advance the state by dt seconds. */
  predict(dt: number): void {
    if (!(dt > 0)) return;
    const s = this.state;
    s[0] += s[2] * dt;
    s[1] += s[3] * dt;
    // P = F P Fᵀ + Q with F = [[I, dt I], [0, I]].
    const P = this.covariance;
    const n = 4;
    const FP = new Float64Array(16);
    for (let c = 0; c < n; c++) {
      FP[0 * n + c] = P[0 * n + c] + dt * P[2 * n + c];
      FP[1 * n + c] = P[1 * n + c] + dt * P[3 * n + c];
      FP[2 * n + c] = P[2 * n + c];
      FP[3 * n + c] = P[3 * n + c];
    }
    for (let r = 0; r < n; r++) {
      P[r * n + 0] = FP[r * n + 0] + dt * FP[r * n + 2];
      P[r * n + 1] = FP[r * n + 1] + dt * FP[r * n + 3];
      P[r * n + 2] = FP[r * n + 2];
      P[r * n + 3] = FP[r * n + 3];
    }
    const q = this.accelerationSigma ** 2;
    const dt2 = dt * dt;
    const a = (dt2 * dt2) / 4;
    const b = (dt2 * dt) / 2;
    P[0] += q * a;
    P[5] += q * a;
    P[2] += q * b;
    P[8] += q * b;
    P[7] += q * b;
    P[13] += q * b;
    P[10] += q * dt2;
    P[15] += q * dt2;
  }

  /** Innovation covariance S = H P Hᵀ + R (2×2: [sxx, sxy, syy]). */
  innovationCovariance(): [number, number, number] {
    const P = this.covariance;
    const r = this.measurementSigma ** 2;
    return [P[0] + r, P[1], P[5] + r];
  }

  /** Squared Mahalanobis distance of a measured position from the predicted one. */
  mahalanobis2(x: number, y: number): number {
    const [sxx, sxy, syy] = this.innovationCovariance();
    const det = sxx * syy - sxy * sxy;
    const dx = x - this.state[0];
    const dy = y - this.state[1];
    return (syy * dx * dx - 2 * sxy * dx * dy + sxx * dy * dy) / det;
  }

  /** Correct the state with a measured position. */
  update(x: number, y: number): void {
    const P = this.covariance;
    const [sxx, sxy, syy] = this.innovationCovariance();
    const det = sxx * syy - sxy * sxy;
    const i00 = syy / det;
    const i01 = -sxy / det;
    const i11 = sxx / det;
    // K = P Hᵀ S⁻¹ (4×2); P Hᵀ = first two columns of P.
    const K = new Float64Array(8);
    for (let r = 0; r < 4; r++) {
      const p0 = P[r * 4 + 0];
      const p1 = P[r * 4 + 1];
      K[r * 2 + 0] = p0 * i00 + p1 * i01;
      K[r * 2 + 1] = p0 * i01 + p1 * i11;
    }
    const dx = x - this.state[0];
    const dy = y - this.state[1];
    for (let r = 0; r < 4; r++) this.state[r] += K[r * 2] * dx + K[r * 2 + 1] * dy;
    // P = (I − K H) P.
    const next = new Float64Array(16);
    for (let r = 0; r < 4; r++) {
      for (let c = 0; c < 4; c++) next[r * 4 + c] = P[r * 4 + c] - K[r * 2] * P[0 * 4 + c] - K[r * 2 + 1] * P[1 * 4 + c];
    }
    // Keep P symmetric against rounding drift.
    for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) P[r * 4 + c] = (next[r * 4 + c] + next[c * 4 + r]) / 2;
  }
}
