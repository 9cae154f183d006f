/** One entry of a package's error catalogue (its errors.ts lists every code it can raise). */
export interface CatalogueEntry {
  code: string;
  status: number;
}

/**
 * What is wrong with a package's error catalogue against its documentation: an empty catalogue,
 * a code listed twice, a code outside `WIFLOW_<area>_` (when `area` is given), a code the docs do
 * not show (as the text `row` makes of the entry, or the bare code). Empty when nothing is, so a
 * test asserts `toEqual([])` and a failure names every problem at once.
 */
export function errorCatalogueProblems(catalogue: readonly CatalogueEntry[], docs: string, options: { area?: string; row?: (entry: CatalogueEntry) => string } = {}): string[] {
  const problems: string[] = [];
  if (catalogue.length === 0) problems.push('the catalogue is empty');
  const seen = new Set<string>();
  for (const entry of catalogue) {
    if (seen.has(entry.code)) problems.push(`${entry.code} is listed twice`);
    seen.add(entry.code);
    if (options.area !== undefined && !new RegExp(`^WIFLOW_${options.area}_[A-Z_]+$`).test(entry.code)) problems.push(`${entry.code} is not a WIFLOW_${options.area}_ code`);
    const shown = options.row ? options.row(entry) : entry.code;
    if (!docs.includes(shown)) problems.push(`the docs do not show ${JSON.stringify(shown)}`);
  }
  return problems;
}
