import { serviceToken } from '@wiflow/core';

/** How many people the confidence filters of this runtime removed, over all their runs. */
export class FilterStats {
  #removed = 0;

  /** Count people a filter removed. */
  add(removed: number): void {
    this.#removed += removed;
  }

  /** The totals, as the route and the CLI command show them. */
  snapshot(): { removed_persons: number } {
    return { removed_persons: this.#removed };
  }
}

/** Typed token of the FilterStats service: `ctx.services.get(FilterStatsToken)` returns a FilterStats. */
export const FilterStatsToken = serviceToken<FilterStats>('wiflow-plugin-template.FilterStats');
