// The filter column: time (B3) and the discovered type list with counts (B1, B2).
import { useEffect, useState } from 'preact/hooks';
import {
  MAX_RANGE_DAYS,
  ROLLING_OPTIONS,
  describeTimeFilter,
  localDate,
  parseDateRange,
  type TimeFilter,
} from '../filters.js';
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

/** The segment of the filter in force is filled; "Dates" chosen but not applied yet is only outlined. */
function segmentClass(value: Mode, mode: Mode, applied: Mode): string {
  if (value === applied) return 'segment segment-on';
  return value === mode ? 'segment segment-pending' : 'segment';
}

function ModeChoice({
  mode,
  applied,
  onChoose,
}: {
  mode: Mode;
  applied: Mode;
  onChoose: (mode: Mode) => void;
}) {
  return (
    <div class="segmented">
      {MODES.map((option) => (
        <label key={option.value} class={segmentClass(option.value, mode, applied)}>
          <input
            type="radio"
            name="time-mode"
            value={option.value}
            checked={mode === option.value}
            onChange={() => onChoose(option.value)}
          />
          <span>{option.label}</span>
        </label>
      ))}
    </div>
  );
}

interface DateFieldProps {
  label: string;
  name: string;
  value: string;
  /** The other end of the range bounds this one, so the picker offers no reversed range. */
  min?: string;
  max?: string;
  required?: boolean;
  onValue: (value: string) => void;
}

function DateField({ label, name, value, min, max, required, onValue }: DateFieldProps) {
  return (
    <label>
      <span>{label}</span>
      <input
        type="date"
        name={name}
        value={value}
        min={min}
        max={max}
        required={required}
        onInput={(event) => onValue(event.currentTarget.value)}
      />
    </label>
  );
}

interface DateRangeFormProps {
  fromDate: string;
  toDate: string;
  timeZone: string;
  error: string | null;
  /** What the list shows while these dates are not applied yet (null: they are). */
  showing: string | null;
  onFromDate: (value: string) => void;
  onToDate: (value: string) => void;
  onApply: (event: Event) => void;
}

function DateRangeForm({
  fromDate,
  toDate,
  timeZone,
  error,
  showing,
  onFromDate,
  onToDate,
  onApply,
}: DateRangeFormProps) {
  return (
    <form class="date-range" onSubmit={onApply} aria-label="Custom date range">
      <div class="date-fields">
        <DateField
          label="From"
          name="fromDate"
          value={fromDate}
          max={toDate || undefined}
          required
          onValue={onFromDate}
        />
        <DateField label="To" name="toDate" value={toDate} min={fromDate || undefined} onValue={onToDate} />
      </div>
      <p class="hint">{`Whole local days in ${timeZone}, both ends included, at most ${MAX_RANGE_DAYS}.`}</p>
      {showing ? (
        <p class="hint pending-note" data-pending="">{`Not applied yet: the list still shows ${showing}.`}</p>
      ) : null}
      {error ? (
        <p class="field-error" role="alert">
          {error}
        </p>
      ) : null}
      <button type="submit" class="btn btn-secondary">
        Apply dates
      </button>
    </form>
  );
}

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
  // The filter can change from outside (Back, a shared address, Clear filters): the control follows it.
  const applied = time.kind === 'range' ? `${time.fromDate}/${time.toDate}` : modeOf(time);
  useEffect(() => {
    setMode(modeOf(time));
    setError(null);
    if (time.kind === 'range') {
      setFromDate(time.fromDate);
      setToDate(time.toDate);
    }
  }, [applied]);

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

  return (
    <fieldset class="panel time-filter">
      <legend>Time</legend>
      <ModeChoice mode={mode} applied={modeOf(time)} onChoose={choose} />
      {mode === 'range' ? (
        <DateRangeForm
          fromDate={fromDate}
          toDate={toDate}
          timeZone={timeZone}
          error={error}
          showing={time.kind === 'range' ? null : describeTimeFilter(time)}
          onFromDate={setFromDate}
          onToDate={setToDate}
          onApply={apply}
        />
      ) : null}
    </fieldset>
  );
}

/** A selected type stays listed (with 0) when the window has none of it, so it can be deselected. */
function typeRows(counts: MemoryTypeCount[], selected: string[]): MemoryTypeCount[] {
  return [
    ...counts,
    ...selected.filter((type) => !counts.some((c) => c.type === type)).map((type) => ({ type, count: 0 })),
  ].sort((a, b) => a.type.localeCompare(b.type));
}

function TypeRow({
  type,
  count,
  checked,
  onToggle,
}: MemoryTypeCount & { checked: boolean; onToggle: () => void }) {
  return (
    <li data-type={type} data-count={count}>
      <label class={checked ? 'type-option type-on' : 'type-option'}>
        <input type="checkbox" checked={checked} onChange={onToggle} />
        <span class="type-name">{type}</span>
        <span class="count" aria-label={`${count} records`}>
          {formatCount(count)}
        </span>
      </label>
    </li>
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
  const rows = typeRows(counts, selected);
  const total = counts.reduce((sum, c) => sum + c.count, 0);

  return (
    <fieldset class="panel type-filter" aria-busy={loading}>
      <legend>Types</legend>
      <button
        type="button"
        class={selected.length === 0 ? 'all-types all-types-on' : 'all-types'}
        aria-pressed={selected.length === 0}
        onClick={onClear}
      >
        <span>All types</span>
        <span class="count">{formatCount(total)}</span>
      </button>
      {rows.length === 0 && !loading ? (
        <p class="muted empty-types">
          {windowActive ? 'No records in this time window.' : 'No records yet.'}
        </p>
      ) : (
        <ul class="type-list">
          {rows.map(({ type, count }) => (
            <TypeRow
              key={type}
              type={type}
              count={count}
              checked={selected.includes(type)}
              onToggle={() => onToggle(type)}
            />
          ))}
        </ul>
      )}
    </fieldset>
  );
}
