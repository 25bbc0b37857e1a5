// The filter column: search, time, types with counts, and the narrower filters. On a narrow screen it
// starts collapsed to one "Filters" button that says what is active, so the records are on the first
// screen; on a wide one it is always open (the button is hidden).
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { BrowseFilterControls } from '../hooks/use-browse-filter.js';
import type { FilterOptions } from '../hooks/use-filter-options.js';
import type { MemoryTypeCount } from '../queries.js';
import { TimeFilterControl, TypeList } from './filter-panel.js';
import { NarrowFilters, SearchBox } from './search-filters.js';

function FilterColumn({ summary, children }: { summary: string; children: ComponentChildren }) {
  const [open, setOpen] = useState(false);
  return (
    <aside class="sidebar" aria-label="Filters">
      <button
        type="button"
        class="filters-toggle"
        aria-expanded={open}
        aria-controls="filter-panels"
        onClick={() => setOpen((current) => !current)}
      >
        <span class="filters-toggle-title">Filters</span>
        <span class="filters-toggle-summary">{summary}</span>
        <span class="filters-toggle-caret" aria-hidden="true">
          {open ? '▴' : '▾'}
        </span>
      </button>
      <div id="filter-panels" class="filter-panels" data-open={String(open)}>
        {children}
      </div>
    </aside>
  );
}

interface BrowseFiltersProps {
  browse: BrowseFilterControls;
  /** The filter in words, on the collapsed button. */
  summary: string;
  types: { counts: MemoryTypeCount[]; loading: boolean };
  options: FilterOptions;
  timeZone: string;
}

export function BrowseFilters({ browse, summary, types, options, timeZone }: BrowseFiltersProps) {
  const { filter } = browse;
  return (
    <FilterColumn summary={summary}>
      <SearchBox text={filter.text} onSearch={browse.setText} />
      <TimeFilterControl time={filter.time} timeZone={timeZone} onChange={browse.setTime} />
      <TypeList
        counts={types.counts}
        selected={filter.types}
        loading={types.loading}
        windowActive={filter.time.kind !== 'all'}
        onToggle={(type) => browse.toggle('types', type)}
        onClear={() => browse.clear('types')}
      />
      <NarrowFilters
        filter={filter}
        instruments={options.instruments}
        producers={options.producers}
        onToggle={browse.toggle}
        onClear={browse.clear}
        onFreshness={browse.setFreshness}
      />
    </FilterColumn>
  );
}
