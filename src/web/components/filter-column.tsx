// The filter column. On a narrow screen it starts collapsed to one "Filters" button that says what is
// active, so the records are on the first screen; on a wide one it is always open (the button is hidden).
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';

export function FilterColumn({ summary, children }: { summary: string; children: ComponentChildren }) {
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
