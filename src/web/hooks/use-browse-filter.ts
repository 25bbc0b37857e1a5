// The operator's filter (B2, B3) and the ways the filter column changes it.
import { useState } from 'preact/hooks';
import type { BrowseFilter, TimeFilter } from '../filters.js';

const NO_FILTER: BrowseFilter = { types: [], time: { kind: 'all' } };

interface BrowseFilterControls {
  filter: BrowseFilter;
  /** Any type selected or a time window chosen. */
  filtered: boolean;
  setTime: (time: TimeFilter) => void;
  toggleType: (type: string) => void;
  clearTypes: () => void;
  clearAll: () => void;
}

export function useBrowseFilter(): BrowseFilterControls {
  const [filter, setFilter] = useState<BrowseFilter>(NO_FILTER);
  return {
    filter,
    filtered: filter.types.length > 0 || filter.time.kind !== 'all',
    setTime: (time) => setFilter((current) => ({ ...current, time })),
    toggleType: (type) =>
      setFilter((current) => ({
        ...current,
        types: current.types.includes(type)
          ? current.types.filter((t) => t !== type)
          : [...current.types, type].sort(),
      })),
    clearTypes: () => setFilter((current) => ({ ...current, types: [] })),
    clearAll: () => setFilter({ types: [], time: { kind: 'all' } }),
  };
}
