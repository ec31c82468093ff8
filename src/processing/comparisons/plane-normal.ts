/**
 * The normal of the least-squares plane through a neighbourhood (docs/comparisons-m3c2.md,
 * "Normals"): the eigenvector of its covariance with the smallest eigenvalue, found by cyclic
 * Jacobi rotations, which stay accurate when two eigenvalues are close.
 */
const SWEEPS = 32;
const PAIRS = [
  [0, 1],
  [0, 2],
  [1, 2],
] as const;

/**
 * Writes into `out` (x, y, z) the unit eigenvector of the symmetric matrix
 * [[a00, a01, a02], [a01, a11, a12], [a02, a12, a22]] with the smallest eigenvalue; false (and
 * `out` untouched) when the matrix is not finite. Its sign is arbitrary.
 */
export function smallestEigenvector(
  a00: number,
  a01: number,
  a02: number,
  a11: number,
  a12: number,
  a22: number,
  out: Float64Array,
): boolean {
  const a = [
    [a00, a01, a02],
    [a01, a11, a12],
    [a02, a12, a22],
  ] as number[][];
  if (!a.every((row) => row.every(Number.isFinite))) return false;
  const v = [
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1],
  ] as number[][];
  const scale = a00 * a00 + a11 * a11 + a22 * a22 + 2 * (a01 * a01 + a02 * a02 + a12 * a12);
  for (let sweep = 0; sweep < SWEEPS; sweep += 1) {
    const off = a[0]![1]! ** 2 + a[0]![2]! ** 2 + a[1]![2]! ** 2;
    if (off <= 1e-30 * scale || off === 0) break;
    for (const [p, q] of PAIRS) {
      const apq = a[p]![q]!;
      if (apq === 0) continue;
      // The rotation that zeroes a[p][q] (A' = Jᵀ A J), taking the smaller angle.
      const theta = (a[q]![q]! - a[p]![p]!) / (2 * apq);
      const t = (theta >= 0 ? 1 : -1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
      const c = 1 / Math.sqrt(t * t + 1);
      const s = t * c;
      for (let k = 0; k < 3; k += 1) {
        const akp = a[k]![p]!;
        const akq = a[k]![q]!;
        a[k]![p] = c * akp - s * akq;
        a[k]![q] = s * akp + c * akq;
      }
      for (let k = 0; k < 3; k += 1) {
        const apk = a[p]![k]!;
        const aqk = a[q]![k]!;
        a[p]![k] = c * apk - s * aqk;
        a[q]![k] = s * apk + c * aqk;
      }
      for (let k = 0; k < 3; k += 1) {
        const vkp = v[k]![p]!;
        const vkq = v[k]![q]!;
        v[k]![p] = c * vkp - s * vkq;
        v[k]![q] = s * vkp + c * vkq;
      }
    }
  }
  let smallest = 0;
  if (a[1]![1]! < a[smallest]![smallest]!) smallest = 1;
  if (a[2]![2]! < a[smallest]![smallest]!) smallest = 2;
  const x = v[0]![smallest]!;
  const y = v[1]![smallest]!;
  const z = v[2]![smallest]!;
  const norm = Math.hypot(x, y, z);
  out[0] = x / norm;
  out[1] = y / norm;
  out[2] = z / norm;
  return true;
}
