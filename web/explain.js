// memplan page — "how this is computed": the breakdown's rows as the core explains them. The text is
// the core's (mp.explanations(), core/data/explanations.json): per run mode, [{key, label, formula,
// source}] in the order of the result's per_gpu object, the total last. This module only tells the
// parts from the total. No DOM here.

/** The parts of the breakdown (every row but the total), in the order of per_gpu. */
export function partsOf(rows) {
  return rows.filter((row) => row.key !== 'total');
}

/** The total's row. */
export function totalOf(rows) {
  return rows.find((row) => row.key === 'total');
}
