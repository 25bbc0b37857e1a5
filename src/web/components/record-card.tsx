// One record (B6): type, scope and instruments, provenance (producer, kind, run and its status), created
// time in the operator's zone, expiry and freshness, links (corrections marked), and its content and
// metadata on demand.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { formatInstant, formatRelative, shortId } from '../format.js';
import type { Memory } from '../queries.js';
import { freshnessAt, isCorrection, recordElementId } from '../records.js';
import { memoryHref } from '../route.js';
import { MemoryLink } from './memory-link.js';
import { MetadataView } from './metadata.js';

interface RecordCardProps {
  memory: Memory;
  now: number;
  isNew: boolean;
  /** True when the link target is in the list, so the link can jump to it. */
  isShown: (id: string) => boolean;
  onJump: (id: string) => void;
}

type Freshness = ReturnType<typeof freshnessAt>;

/** One term and its description in a record's lists. */
export function Field({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

export function TimeText({ iso, now }: { iso: string; now: number }) {
  return (
    <span>
      <time dateTime={iso} title={iso}>
        {formatInstant(iso)}
      </time>
      <span class="muted">{` · ${formatRelative(iso, now)}`}</span>
    </span>
  );
}

/** Agent-wide, or the targeted instruments as chips (B6). */
export function Scope({ memory }: { memory: Pick<Memory, 'scope' | 'instruments'> }) {
  if (memory.scope === 'AGENT') return <span class="scope-agent">Agent-wide</span>;
  return (
    <span class="instruments">
      {memory.instruments.map((instrument) => (
        <span class="chip" key={instrument}>
          {instrument}
        </span>
      ))}
    </span>
  );
}

/** The producer that wrote a record, its run kind and schedule (B6); imports may have none. */
export function ProvenanceText({ provenance: p }: { provenance: Memory['provenance'] }) {
  if (!p) return <span class="muted">Imported · no run provenance</span>;
  return (
    <span class="provenance">
      <span class="producer">{p.producerName}</span>
      <span class={`kind kind-${p.kind.toLowerCase()}`}>{p.kind}</span>
      {p.schedule ? <span class="muted">{`every ${p.schedule}`}</span> : null}
    </span>
  );
}

/** B6: the run that wrote the record and how it ended, without expanding the card. */
function RunText({ provenance }: { provenance: NonNullable<Memory['provenance']> }) {
  const status = provenance.runStatus.toLowerCase();
  return (
    <span class="run" data-run-id={provenance.runId} data-run-status={provenance.runStatus}>
      <code title={provenance.runId}>{shortId(provenance.runId)}</code>
      <span class={`run-status run-${status}`}>{status}</span>
    </span>
  );
}

function LinkItem({
  link,
  isShown,
  onJump,
}: { link: Memory['links'][number] } & Pick<RecordCardProps, 'isShown' | 'onJump'>) {
  const correction = link.linkType === 'corrects';
  const target = shortId(link.targetMemoryId);
  return (
    <li class={correction ? 'link link-correction' : 'link'} data-link-type={link.linkType}>
      <span class="link-type">{correction ? 'Correction of' : link.linkType}</span>
      <MemoryLink id={link.targetMemoryId} class="link-target" />
      {isShown(link.targetMemoryId) ? (
        <button
          type="button"
          class="link-jump"
          title={`Show ${target} in this list`}
          aria-label={`Show ${target} in this list`}
          onClick={() => onJump(link.targetMemoryId)}
        >
          ↓
        </button>
      ) : null}
    </li>
  );
}

function Links({ memory, isShown, onJump }: Pick<RecordCardProps, 'memory' | 'isShown' | 'onJump'>) {
  if (!memory.links.length) return null;
  return (
    <div class="record-links">
      <span class="meta-label">{`Links (${memory.links.length})`}</span>
      <ul>
        {memory.links.map((link, index) => (
          <LinkItem key={`${index}-${link.targetMemoryId}`} link={link} isShown={isShown} onJump={onJump} />
        ))}
      </ul>
    </div>
  );
}

interface RecordHeadProps {
  memory: Memory;
  titleId: string;
  isNew: boolean;
  freshness: Freshness;
}

function RecordHead({ memory, titleId, isNew, freshness }: RecordHeadProps) {
  return (
    <header class="record-head">
      <h3 id={titleId} class="record-type">
        <a href={memoryHref(memory.id)}>{memory.type}</a>
      </h3>
      {isCorrection(memory) ? <span class="badge badge-correction">Correction</span> : null}
      {isNew ? <span class="badge badge-new">New</span> : null}
      <span
        class={`badge badge-${freshness.toLowerCase()}`}
        data-freshness={freshness}
        title={memory.expiresAt ? `Expiry ${memory.expiresAt}` : 'No expiry'}
      >
        {freshness}
      </span>
    </header>
  );
}

function RecordMeta({ memory, now, freshness }: { memory: Memory; now: number; freshness: Freshness }) {
  return (
    <dl class="record-meta">
      <Field label="Scope">
        <Scope memory={memory} />
      </Field>
      <Field label="Producer">
        <ProvenanceText provenance={memory.provenance} />
      </Field>
      <Field label="Created">
        <TimeText iso={memory.createdAt} now={now} />
      </Field>
      <Field label={freshness === 'STALE' ? 'Expired' : 'Expires'}>
        {memory.expiresAt ? <TimeText iso={memory.expiresAt} now={now} /> : <span>No expiry</span>}
      </Field>
      {memory.provenance ? (
        <Field label="Run">
          <RunText provenance={memory.provenance} />
        </Field>
      ) : null}
    </dl>
  );
}

/** Ids and policies shown with the content: the run, its boundary, timeframe and expiry policy. */
function RecordIds({ memory }: { memory: Memory }) {
  const provenance = memory.provenance;
  return (
    <dl class="record-ids">
      <Field label="Memory">
        <MemoryLink id={memory.id} full />
      </Field>
      {provenance ? (
        <Field label="Run">
          <code>{provenance.runId}</code>
          {` · ${provenance.runStatus.toLowerCase()}`}
        </Field>
      ) : null}
      {provenance?.evidenceBoundary ? (
        <Field label="Run boundary">{formatInstant(provenance.evidenceBoundary)}</Field>
      ) : null}
      {memory.timeframe ? <Field label="Timeframe">{memory.timeframe}</Field> : null}
      {memory.expiryPolicy ? <Field label="Expiry policy">{memory.expiryPolicy}</Field> : null}
    </dl>
  );
}

function RecordDetails({ memory, detailsId }: { memory: Memory; detailsId: string }) {
  return (
    <div id={detailsId} class="record-details">
      <h4>Content</h4>
      <p class="record-content">{memory.content}</p>
      <h4>Metadata</h4>
      <MetadataView metadata={memory.metadata} />
      <RecordIds memory={memory} />
    </div>
  );
}

export function RecordCard({ memory, now, isNew, isShown, onJump }: RecordCardProps) {
  const [expanded, setExpanded] = useState(false);
  const freshness = freshnessAt(memory, now);
  const elementId = recordElementId(memory.id);
  const detailsId = `${elementId}-details`;
  const titleId = `${elementId}-title`;

  return (
    <article
      id={elementId}
      class={`record${isNew ? ' record-new' : ''}${freshness === 'STALE' ? ' record-stale' : ''}`}
      tabIndex={-1}
      aria-labelledby={titleId}
      data-id={memory.id}
      data-type={memory.type}
      data-created={memory.createdAt}
    >
      <RecordHead memory={memory} titleId={titleId} isNew={isNew} freshness={freshness} />
      <RecordMeta memory={memory} now={now} freshness={freshness} />
      {expanded ? null : <p class="record-preview">{memory.content}</p>}
      <Links memory={memory} isShown={isShown} onJump={onJump} />
      <button
        type="button"
        class="toggle"
        aria-expanded={expanded}
        aria-controls={detailsId}
        onClick={() => setExpanded(!expanded)}
      >
        {expanded ? 'Hide content and metadata' : 'Show content and metadata'}
      </button>
      {expanded ? <RecordDetails memory={memory} detailsId={detailsId} /> : null}
    </article>
  );
}
