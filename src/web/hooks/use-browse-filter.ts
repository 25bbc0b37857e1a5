// The operator's filter (B2, B3), kept in the address (filter-url.ts): each change
// replaces the current history entry, so a reload or a shared link shows the same view, and Back/Forward
// across entries (another agent, a record page) come back to the filter they had.
import { useEffect, useState } from 'preact/hooks';
import { addressWithFilter, filterFromSearch } from '../filter-url.js';
import { NO_FILTER, isFiltered, type BrowseFilter, type TimeFilter } from '../filters.js';

type ListField = 'types' | 'instruments' | 'producerIds' | 'runKinds';

export interface BrowseFilterControls {
  filter: BrowseFilter;
  /** Anything narrower than every record. */
  filtered: boolean;
  setTime: (time: TimeFilter) => void;
  setText: (text: string) => void;
  setFreshness: (freshness: BrowseFilter['freshness']) => void;
  /** Adds a value to a list filter, or removes it when present. */
  toggle: <F extends ListField>(field: F, value: BrowseFilter[F][number]) => void;
  clear: (field: ListField) => void;
  clearAll: () => void;
}

function toggled<T>(values: readonly T[], value: T): T[] {
  return values.includes(value) ? values.filter((v) => v !== value) : [...values, value].sort();
}

export function useBrowseFilter(): BrowseFilterControls {
  const [filter, setFilter] = useState<BrowseFilter>(() => filterFromSearch(window.location.search));

  useEffect(() => {
    const address = addressWithFilter(window.location, filter);
    const { pathname, search, hash } = window.location;
    if (address !== pathname + search + hash) window.history.replaceState(window.history.state, '', address);
  }, [filter]);

  useEffect(() => {
    const follow = () => setFilter(filterFromSearch(window.location.search));
    window.addEventListener('popstate', follow);
    return () => window.removeEventListener('popstate', follow);
  }, []);

  const change = (patch: Partial<BrowseFilter>) => setFilter((current) => ({ ...current, ...patch }));
  return {
    filter,
    filtered: isFiltered(filter),
    setTime: (time) => change({ time }),
    setText: (text) => change({ text }),
    setFreshness: (freshness) => change({ freshness }),
    toggle: (field, value) =>
      setFilter((current) => ({ ...current, [field]: toggled(current[field] as string[], value) })),
    clear: (field) => change({ [field]: [] }),
    clearAll: () => setFilter(NO_FILTER),
  };
}
