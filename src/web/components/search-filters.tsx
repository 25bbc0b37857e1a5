// Search and the narrower filters (B2, B11): full-text search, instruments, producers, run kinds and
// freshness. The server applies them before pagination and to live updates; here they are only chosen.
import { useEffect, useRef, useState } from 'preact/hooks';
import { RUN_KINDS, runKindLabel, type BrowseFilter } from '../filters.js';
import type { ProducerOption, RunKind } from '../queries.js';

/** Typing pauses this long before the list follows; Enter applies at once. */
const SEARCH_DELAY_MS = 400;

export function SearchBox({ text, onSearch }: { text: string; onSearch: (text: string) => void }) {
  const [draft, setDraft] = useState(text);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // The applied text can change from outside (Back, Clear filters): the box follows it.
  useEffect(() => setDraft(text), [text]);
  useEffect(() => () => clearTimeout(timer.current), []);
  const apply = (value: string) => {
    clearTimeout(timer.current);
    if (value.trim() !== text.trim()) onSearch(value.trim());
  };
  return (
    <form
      class="panel search-panel"
      role="search"
      onSubmit={(event) => {
        event.preventDefault();
        apply(draft);
      }}
    >
      <label class="search-label" for="memory-search">
        Search
      </label>
      <input
        id="memory-search"
        type="search"
        name="q"
        value={draft}
        maxLength={200}
        placeholder="content and metadata"
        autoComplete="off"
        onInput={(event) => {
          const value = event.currentTarget.value;
          setDraft(value);
          clearTimeout(timer.current);
          timer.current = setTimeout(() => apply(value), SEARCH_DELAY_MS);
        }}
      />
      <p class="hint">
        Words in any form (<code>entries</code> finds <code>entry</code>); <code>"exact phrase"</code>,{' '}
        <code>-exclude</code>, <code>or</code>.
      </p>
    </form>
  );
}

interface Choice {
  value: string;
  label: string;
  detail?: string;
}

/** A checkbox per choice; none ticked means no restriction. Chosen values the options lack stay listed. */
function ChoiceList({
  legend,
  name,
  choices,
  selected,
  onToggle,
  onClear,
}: {
  legend: string;
  name: string;
  choices: Choice[];
  selected: readonly string[];
  onToggle: (value: string) => void;
  onClear: () => void;
}) {
  const all: Choice[] = [
    ...choices,
    ...selected.filter((v) => !choices.some((c) => c.value === v)).map((v) => ({ value: v, label: v })),
  ];
  if (all.length === 0) return null;
  return (
    <fieldset class="panel choice-filter" data-filter={name}>
      <legend>{legend}</legend>
      <ul class="choice-list">
        {all.map((choice) => {
          const checked = selected.includes(choice.value);
          return (
            <li key={choice.value}>
              <label class={checked ? 'type-option type-on' : 'type-option'}>
                <input
                  type="checkbox"
                  value={choice.value}
                  checked={checked}
                  onChange={() => onToggle(choice.value)}
                />
                <span class="choice-name">{choice.label}</span>
                {choice.detail ? <span class="count">{choice.detail}</span> : null}
              </label>
            </li>
          );
        })}
      </ul>
      {selected.length ? (
        <button type="button" class="link-button" onClick={onClear}>
          {`Any ${legend.toLowerCase()}`}
        </button>
      ) : null}
    </fieldset>
  );
}

const FRESHNESS: { value: BrowseFilter['freshness']; label: string }[] = [
  { value: null, label: 'Any' },
  { value: 'FRESH', label: 'Fresh' },
  { value: 'STALE', label: 'Stale' },
];

function FreshnessChoice({
  freshness,
  onChange,
}: {
  freshness: BrowseFilter['freshness'];
  onChange: (freshness: BrowseFilter['freshness']) => void;
}) {
  return (
    <fieldset class="panel freshness-filter">
      <legend>Freshness</legend>
      <div class="segmented segmented-3">
        {FRESHNESS.map((option) => (
          <label key={option.label} class={freshness === option.value ? 'segment segment-on' : 'segment'}>
            <input
              type="radio"
              name="freshness"
              value={option.value ?? 'ANY'}
              checked={freshness === option.value}
              onChange={() => onChange(option.value)}
            />
            <span>{option.label}</span>
          </label>
        ))}
      </div>
    </fieldset>
  );
}

export interface NarrowFiltersProps {
  filter: BrowseFilter;
  instruments: string[];
  producers: ProducerOption[];
  onToggle: (field: 'instruments' | 'producerIds' | 'runKinds', value: string) => void;
  onClear: (field: 'instruments' | 'producerIds' | 'runKinds') => void;
  onFreshness: (freshness: BrowseFilter['freshness']) => void;
}

/** Instruments, producers, run kinds and freshness. */
export function NarrowFilters({
  filter,
  instruments,
  producers,
  onToggle,
  onClear,
  onFreshness,
}: NarrowFiltersProps) {
  return (
    <>
      <FreshnessChoice freshness={filter.freshness} onChange={onFreshness} />
      <ChoiceList
        legend="Instruments"
        name="instruments"
        choices={instruments.map((id) => ({ value: id, label: id }))}
        selected={filter.instruments}
        onToggle={(value) => onToggle('instruments', value)}
        onClear={() => onClear('instruments')}
      />
      <ChoiceList
        legend="Run kinds"
        name="runKinds"
        choices={RUN_KINDS.map((kind) => ({ value: kind, label: runKindLabel(kind) }))}
        selected={filter.runKinds}
        onToggle={(value) => onToggle('runKinds', value as RunKind)}
        onClear={() => onClear('runKinds')}
      />
      <ChoiceList
        legend="Producers"
        name="producerIds"
        choices={producers.map((p) => ({ value: p.id, label: p.name, detail: runKindLabel(p.kind) }))}
        selected={filter.producerIds}
        onToggle={(value) => onToggle('producerIds', value)}
        onClear={() => onClear('producerIds')}
      />
    </>
  );
}
