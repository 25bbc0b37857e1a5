// The filter column: time (B3) and the discovered type list with counts (B1, B2).
import { h } from 'preact';
import { useState } from 'preact/hooks';
import { ROLLING_OPTIONS, localDate, parseDateRange, type TimeFilter } from '../filters.js';
import { formatCount } from '../format.js';
import type { MemoryTypeCount } from '../queries.js';

type Mode = 'all' | 'LAST_1H' | 'LAST_6H' | 'LAST_24H' | 'range';

function modeOf(time: TimeFilter): Mode {
  return time.kind === 'all' ? 'all' : time.kind === 'rolling' ? time.rolling : 'range';
}

const MODES: { value: Mode; label: string }[] = [
  { value: 'all', label: 'All time' },
  ...ROLLING_OPTIONS.map((option) => ({ value: option.value as Mode, label: option.label })),
  { value: 'range', label: 'Dates' },
];

export function TimeFilterControl({
  time,
  timeZone,
  onChange,
}: {
  time: TimeFilter;
  timeZone: string;
  onChange: (time: TimeFilter) => void;
}) {
  const [mode, setMode] = useState<Mode>(modeOf(time));
  const today = localDate(new Date());
  const [fromDate, setFromDate] = useState(time.kind === 'range' ? time.fromDate : today);
  const [toDate, setToDate] = useState(time.kind === 'range' ? time.toDate : today);
  const [error, setError] = useState<string | null>(null);

  const choose = (next: Mode) => {
    setMode(next);
    setError(null);
    if (next === 'all') onChange({ kind: 'all' });
    else if (next !== 'range') onChange({ kind: 'rolling', rolling: next });
  };

  const apply = (event: Event) => {
    event.preventDefault();
    const parsed = parseDateRange(fromDate, toDate);
    if (!parsed.ok) return setError(parsed.message);
    setError(null);
    onChange(parsed.time);
  };

  return h(
    'fieldset',
    { class: 'panel time-filter' },
    h('legend', null, 'Time'),
    h(
      'div',
      { class: 'segmented' },
      MODES.map((option) =>
        h(
          'label',
          { key: option.value, class: mode === option.value ? 'segment segment-on' : 'segment' },
          h('input', {
            type: 'radio',
            name: 'time-mode',
            value: option.value,
            checked: mode === option.value,
            onChange: () => choose(option.value),
          }),
          h('span', null, option.label),
        ),
      ),
    ),
    mode === 'range'
      ? h(
          'form',
          { class: 'date-range', onSubmit: apply, 'aria-label': 'Custom date range' },
          h(
            'div',
            { class: 'date-fields' },
            h(
              'label',
              null,
              h('span', null, 'From'),
              h('input', {
                type: 'date',
                name: 'fromDate',
                value: fromDate,
                max: toDate || undefined,
                required: true,
                onInput: (event: Event) => setFromDate((event.currentTarget as HTMLInputElement).value),
              }),
            ),
            h(
              'label',
              null,
              h('span', null, 'To'),
              h('input', {
                type: 'date',
                name: 'toDate',
                value: toDate,
                min: fromDate || undefined,
                onInput: (event: Event) => setToDate((event.currentTarget as HTMLInputElement).value),
              }),
            ),
          ),
          h('p', { class: 'hint' }, `Whole local days in ${timeZone}, both ends included.`),
          error ? h('p', { class: 'field-error', role: 'alert' }, error) : null,
          h('button', { type: 'submit', class: 'btn btn-secondary' }, 'Apply dates'),
        )
      : null,
  );
}

export function TypeList({
  counts,
  selected,
  loading,
  windowActive,
  onToggle,
  onClear,
}: {
  counts: MemoryTypeCount[];
  selected: string[];
  loading: boolean;
  windowActive: boolean;
  onToggle: (type: string) => void;
  onClear: () => void;
}) {
  // A selected type stays listed (with 0) when the window has none of it, so it can be deselected.
  const rows = [
    ...counts,
    ...selected.filter((type) => !counts.some((c) => c.type === type)).map((type) => ({ type, count: 0 })),
  ].sort((a, b) => a.type.localeCompare(b.type));
  const total = counts.reduce((sum, c) => sum + c.count, 0);

  return h(
    'fieldset',
    { class: 'panel type-filter', 'aria-busy': loading },
    h('legend', null, 'Types'),
    h(
      'button',
      {
        type: 'button',
        class: selected.length === 0 ? 'all-types all-types-on' : 'all-types',
        'aria-pressed': selected.length === 0,
        onClick: onClear,
      },
      h('span', null, 'All types'),
      h('span', { class: 'count' }, formatCount(total)),
    ),
    rows.length === 0 && !loading
      ? h(
          'p',
          { class: 'muted empty-types' },
          windowActive ? 'No records in this time window.' : 'No records yet.',
        )
      : h(
          'ul',
          { class: 'type-list' },
          rows.map(({ type, count }) =>
            h(
              'li',
              { key: type, 'data-type': type, 'data-count': count },
              h(
                'label',
                { class: selected.includes(type) ? 'type-option type-on' : 'type-option' },
                h('input', {
                  type: 'checkbox',
                  checked: selected.includes(type),
                  onChange: () => onToggle(type),
                }),
                h('span', { class: 'type-name' }, type),
                h('span', { class: 'count', 'aria-label': `${count} records` }, formatCount(count)),
              ),
            ),
          ),
        ),
  );
}
