// Metadata on demand (B6): a versioned handoff as readable tables, anything else as pretty JSON.
import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { formatInstant, isIsoInstant } from '../format.js';
import { readHandoff } from '../records.js';

/** One value in a table cell: instants in the operator's zone (ISO on hover), numbers exactly as quoted. */
function Value({ value }: { value: unknown }) {
  if (isIsoInstant(value)) {
    return (
      <time dateTime={value} title={value}>
        {formatInstant(value)}
      </time>
    );
  }
  if (value === null || value === undefined) return <span class="muted">null</span>;
  if (typeof value === 'object') {
    if (Array.isArray(value) && value.every((item) => typeof item !== 'object' || item === null)) {
      return <span>{value.map(String).join(', ')}</span>;
    }
    return <code class="inline-json">{JSON.stringify(value)}</code>;
  }
  return <span>{String(value)}</span>;
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
  return (
    <section class="handoff-section">
      <h5>{title}</h5>
      {children}
    </section>
  );
}

function NotGiven() {
  return <p class="muted handoff-missing">Not given</p>;
}

/**
 * A table wider than its card scrolls sideways: then it is a focusable region (keyboard users can scroll
 * it), edge shadows show where columns are hidden (app.css), and a line says so.
 */
export function ScrollRegion({ label, children }: { label: string; children: ComponentChildren }) {
  const ref = useRef<HTMLDivElement>(null);
  const [overflowing, setOverflowing] = useState(false);
  useEffect(() => {
    const element = ref.current;
    if (!element) return;
    const measure = () => setOverflowing(element.scrollWidth > element.clientWidth + 1);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return (
    <>
      <div
        ref={ref}
        class="table-scroll"
        data-overflowing={String(overflowing)}
        {...(overflowing ? { tabIndex: 0, role: 'region', 'aria-label': `${label} (scrolls sideways)` } : {})}
      >
        {children}
      </div>
      {overflowing ? <p class="scroll-hint">Scroll sideways for more columns →</p> : null}
    </>
  );
}

function KeyValueTable({ rows, label }: { rows: [string, unknown][]; label: string }) {
  return (
    <ScrollRegion label={label}>
      <table class="kv-table" aria-label={label}>
        <tbody>
          {rows.map(([key, value]) => (
            <tr key={key}>
              <th scope="row">{key}</th>
              <td>
                <Value value={value} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}

/** A handoff part: "Not given" when absent, shown as is when it lacks the expected shape, else `shaped`. */
function partBody<T>(
  value: unknown,
  fits: (value: unknown) => value is T,
  shaped: (value: T) => JSX.Element,
) {
  if (value === undefined) return <NotGiven />;
  return fits(value) ? shaped(value) : <Value value={value} />;
}

function ObjectSection({ title, value }: { title: string; value: unknown }) {
  return (
    <Section title={title}>
      {partBody(value, isPlainObject, (object) => (
        <KeyValueTable rows={flatten(object)} label={title} />
      ))}
    </Section>
  );
}

/** Sources as one table: a column per key any source has. */
function SourcesTable({ sources, label }: { sources: Record<string, unknown>[]; label: string }) {
  const columns = [...new Set(sources.flatMap((source) => Object.keys(source)))];
  return (
    <ScrollRegion label={label}>
      <table class="grid-table" aria-label={label}>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {sources.map((source, index) => (
            <tr key={index}>
              {columns.map((column) => (
                <td key={column}>
                  <Value value={source[column]} />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}

function isSourceList(value: unknown): value is Record<string, unknown>[] {
  return Array.isArray(value) && value.every(isPlainObject);
}

function SourcesSection({ sources }: { sources: unknown }) {
  const title = 'Sources';
  return (
    <Section title={title}>
      {partBody(sources, isSourceList, (list) =>
        list.length === 0 ? <p class="muted">None listed</p> : <SourcesTable sources={list} label={title} />,
      )}
    </Section>
  );
}

function RawJson({ value }: { value: unknown }) {
  return <pre class="json">{JSON.stringify(value, null, 2)}</pre>;
}

function EvidenceBoundary({ boundary }: { boundary: unknown }) {
  return (
    <Section title="Evidence boundary">
      {boundary === undefined ? (
        <NotGiven />
      ) : (
        <p class="handoff-boundary">
          <Value value={boundary} />
        </p>
      )}
    </Section>
  );
}

export function MetadataView({ metadata }: { metadata: unknown }) {
  const handoff = readHandoff(metadata);
  if (!handoff) {
    const empty = isPlainObject(metadata) && Object.keys(metadata).length === 0;
    return empty ? <p class="muted">No metadata</p> : <RawJson value={metadata} />;
  }
  const restRows = Object.entries(handoff.rest);
  return (
    <div class="handoff" data-handoff="1">
      <EvidenceBoundary boundary={handoff.evidenceBoundary} />
      <SourcesSection sources={handoff.sources} />
      <ObjectSection title="Observations" value={handoff.observations} />
      <ObjectSection title="Interpretation" value={handoff.interpretation} />
      {restRows.length ? (
        <Section title="Other metadata">
          <KeyValueTable rows={restRows} label="Other metadata" />
        </Section>
      ) : null}
      <details class="raw">
        <summary>Raw JSON</summary>
        <RawJson value={metadata} />
      </details>
    </div>
  );
}
