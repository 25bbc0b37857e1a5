// Metadata on demand (B6): a versioned handoff as readable tables, anything else as pretty JSON.
import { h, type ComponentChildren } from 'preact';
import { formatInstant, formatInstantCompact, isIsoInstant } from '../format.js';
import { readHandoff } from '../records.js';

/** One value in a table cell: instants in the operator's zone (ISO on hover), numbers exactly as quoted. */
function Value({ value, compact = true }: { value: unknown; compact?: boolean }) {
  if (isIsoInstant(value)) {
    return h(
      'time',
      { dateTime: value, title: value },
      (compact ? formatInstantCompact : formatInstant)(value),
    );
  }
  if (value === null || value === undefined) return h('span', { class: 'muted' }, 'null');
  if (typeof value === 'object') {
    if (Array.isArray(value) && value.every((item) => typeof item !== 'object' || item === null)) {
      return h('span', null, value.map(String).join(', '));
    }
    return h('code', { class: 'inline-json' }, JSON.stringify(value));
  }
  return h('span', null, String(value));
}

/** Nested objects become dotted keys (confidence.label) so the table stays two columns wide. */
function flatten(value: Record<string, unknown>, prefix = '', depth = 0): [string, unknown][] {
  const rows: [string, unknown][] = [];
  for (const [key, inner] of Object.entries(value)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (inner && typeof inner === 'object' && !Array.isArray(inner) && depth < 3) {
      rows.push(...flatten(inner as Record<string, unknown>, path, depth + 1));
    } else {
      rows.push([path, inner]);
    }
  }
  return rows;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}

function Section({ title, children }: { title: string; children?: ComponentChildren }) {
  return h('section', { class: 'handoff-section' }, h('h5', null, title), children);
}

function NotGiven() {
  return h('p', { class: 'muted handoff-missing' }, 'Not given');
}

function KeyValueTable({ rows, label }: { rows: [string, unknown][]; label: string }) {
  return h(
    'div',
    { class: 'table-scroll' },
    h(
      'table',
      { class: 'kv-table', 'aria-label': label },
      h(
        'tbody',
        null,
        rows.map(([key, value]) =>
          h('tr', { key }, h('th', { scope: 'row' }, key), h('td', null, h(Value, { value }))),
        ),
      ),
    ),
  );
}

function ObjectSection({ title, value }: { title: string; value: unknown }) {
  if (value === undefined) return h(Section, { title }, h(NotGiven, null));
  if (!isPlainObject(value)) return h(Section, { title }, h(Value, { value }));
  return h(Section, { title }, h(KeyValueTable, { rows: flatten(value), label: title }));
}

function SourcesSection({ sources }: { sources: unknown }) {
  const title = 'Sources';
  if (sources === undefined) return h(Section, { title }, h(NotGiven, null));
  if (!Array.isArray(sources) || !sources.every(isPlainObject)) {
    return h(Section, { title }, h(Value, { value: sources }));
  }
  if (sources.length === 0) return h(Section, { title }, h('p', { class: 'muted' }, 'None listed'));
  const columns = [...new Set(sources.flatMap((source) => Object.keys(source)))];
  return h(
    Section,
    { title },
    h(
      'div',
      { class: 'table-scroll' },
      h(
        'table',
        { class: 'grid-table', 'aria-label': title },
        h(
          'thead',
          null,
          h(
            'tr',
            null,
            columns.map((column) => h('th', { key: column, scope: 'col' }, column)),
          ),
        ),
        h(
          'tbody',
          null,
          sources.map((source, index) =>
            h(
              'tr',
              { key: index },
              columns.map((column) => h('td', { key: column }, h(Value, { value: source[column] }))),
            ),
          ),
        ),
      ),
    ),
  );
}

function RawJson({ value }: { value: unknown }) {
  return h('pre', { class: 'json' }, JSON.stringify(value, null, 2));
}

export function MetadataView({ metadata }: { metadata: unknown }) {
  const handoff = readHandoff(metadata);
  if (!handoff) {
    const empty = isPlainObject(metadata) && Object.keys(metadata).length === 0;
    return empty ? h('p', { class: 'muted' }, 'No metadata') : h(RawJson, { value: metadata });
  }
  const restRows = Object.entries(handoff.rest);
  return h(
    'div',
    { class: 'handoff', 'data-handoff': '1' },
    h(
      Section,
      { title: 'Evidence boundary' },
      handoff.evidenceBoundary === undefined
        ? h(NotGiven, null)
        : h(
            'p',
            { class: 'handoff-boundary' },
            h(Value, { value: handoff.evidenceBoundary, compact: false }),
            isIsoInstant(handoff.evidenceBoundary)
              ? h('code', { class: 'muted' }, ` ${handoff.evidenceBoundary}`)
              : null,
          ),
    ),
    h(SourcesSection, { sources: handoff.sources }),
    h(ObjectSection, { title: 'Observations', value: handoff.observations }),
    h(ObjectSection, { title: 'Interpretation', value: handoff.interpretation }),
    restRows.length
      ? h(Section, { title: 'Other metadata' }, h(KeyValueTable, { rows: restRows, label: 'Other metadata' }))
      : null,
    h('details', { class: 'raw' }, h('summary', null, 'Raw JSON'), h(RawJson, { value: metadata })),
  );
}
