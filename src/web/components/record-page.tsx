// A record's own page, `#/memory/<id>` (B6): type, scope and instruments, provenance,
// created and expiry times in the operator's zone, freshness, content, metadata, links in both
// directions with corrections marked, and for a trading decision its audit (T3).
import { useEffect, useRef } from 'preact/hooks';
import { formatInstant } from '../format.js';
import type { GraphQLClient } from '../graphql.js';
import { useNow } from '../hooks/use-now.js';
import { useQuery } from '../hooks/use-query.js';
import { RECORD_PAGE_QUERY, type RecordPageMemory, type RecordPageResult } from '../page-queries.js';
import type { AgentSummary } from '../queries.js';
import { freshnessAt, isCorrection } from '../records.js';
import { isMemoryId, memoryHref } from '../route.js';
import { DecisionAudit } from './decision-audit.js';
import { MetadataView } from './metadata.js';
import { Field, ProvenanceText, Scope, TimeText } from './record-card.js';
import { LinksIn, LinksOut } from './record-links.js';
import { useViewTitle, ViewError, ViewLoading } from './view-states.js';

/** Freshness and "5 minutes ago" follow the clock while the page is open. */
const TICK_MS = 30_000;

interface RecordPageProps {
  id: string;
  client: GraphQLClient;
  agent: AgentSummary;
  /** The admin token's agents (a record of another one can be opened there); null for an operator. */
  agents: AgentSummary[] | null;
  failed: (error: unknown) => boolean;
}

/** Unknown, another agent's (S1) or not readable by this token: one answer, no existence oracle. */
function NotFound({ id, other }: { id: string; other?: AgentSummary }) {
  return (
    <main class="view" aria-labelledby="record-title" data-record-missing={id}>
      <div class="empty" role="status">
        <h2 id="record-title" tabIndex={-1}>
          {other ? 'This record belongs to another agent' : 'Record not found or not visible to this token'}
        </h2>
        <p class="muted">
          <code>{id}</code>
          {other
            ? ` is a record of ${other.name}.`
            : ' does not exist, belongs to another agent, or this token may not read it.'}
        </p>
        {other ? (
          <a class="btn btn-secondary" href={`?agent=${encodeURIComponent(other.id)}${memoryHref(id)}`}>
            {`Open it as ${other.name}`}
          </a>
        ) : null}
        <a class="btn btn-quiet" href="#/">
          Back to Memories
        </a>
      </div>
    </main>
  );
}

function RecordFacts({ memory, now }: { memory: RecordPageMemory; now: number }) {
  const provenance = memory.provenance;
  const freshness = freshnessAt(memory, now);
  return (
    <dl class="record-facts">
      <Field label="Scope">
        <Scope memory={memory} />
      </Field>
      <Field label="Producer">
        <ProvenanceText provenance={provenance} />
      </Field>
      {provenance ? (
        <Field label="Run">
          <code>{provenance.runId}</code>
          <span class={`run-status run-${provenance.runStatus.toLowerCase()}`}>
            {` ${provenance.runStatus.toLowerCase()}`}
          </span>
        </Field>
      ) : null}
      {provenance?.evidenceBoundary ? (
        <Field label="Run boundary">{formatInstant(provenance.evidenceBoundary)}</Field>
      ) : null}
      <Field label="Created">
        <TimeText iso={memory.createdAt} now={now} />
      </Field>
      <Field label={freshness === 'STALE' ? 'Expired' : 'Expires'}>
        {memory.expiresAt ? <TimeText iso={memory.expiresAt} now={now} /> : <span>No expiry</span>}
      </Field>
      {memory.timeframe ? <Field label="Timeframe">{memory.timeframe}</Field> : null}
      {memory.expiryPolicy ? <Field label="Expiry policy">{memory.expiryPolicy}</Field> : null}
    </dl>
  );
}

function RecordView({
  memory,
  audit,
}: {
  memory: RecordPageMemory;
  audit: RecordPageResult['decisionAudit'];
}) {
  const now = useNow(TICK_MS);
  const freshness = freshnessAt(memory, now);
  const heading = useRef<HTMLHeadingElement>(null);
  // Keyboard and screen-reader users land on the record that was opened.
  useEffect(() => heading.current?.focus(), []);
  return (
    <main
      class="view record-page"
      aria-labelledby="record-title"
      data-record-id={memory.id}
      data-type={memory.type}
    >
      <header class="view-head">
        <div class="record-head">
          <h2 id="record-title" class="record-type" tabIndex={-1} ref={heading}>
            {memory.type}
          </h2>
          {isCorrection(memory) ? <span class="badge badge-correction">Correction</span> : null}
          <span class={`badge badge-${freshness.toLowerCase()}`} data-freshness={freshness}>
            {freshness}
          </span>
        </div>
        <p class="record-id">
          <code>{memory.id}</code>
        </p>
      </header>
      <div class="record-columns">
        <div class="record-column">
          <section class="record-section" data-section="about" aria-label="About this record">
            <RecordFacts memory={memory} now={now} />
          </section>
          <section class="record-section" data-section="content" aria-labelledby="section-content">
            <h3 id="section-content">Content</h3>
            <p class="record-content">{memory.content}</p>
          </section>
          <section class="record-section" data-section="metadata" aria-labelledby="section-metadata">
            <h3 id="section-metadata">Metadata</h3>
            <MetadataView metadata={memory.metadata} />
          </section>
        </div>
        <div class="record-column">
          <LinksOut links={memory.links} targets={audit?.linked} />
          <LinksIn linkedFrom={memory.linkedFrom} />
        </div>
      </div>
      {audit ? <DecisionAudit decision={memory} audit={audit} /> : null}
    </main>
  );
}

function RecordLoader({ id, client, agent, agents, failed }: RecordPageProps) {
  const { state, retry } = useQuery<RecordPageResult>(client, RECORD_PAGE_QUERY, { id }, failed);
  const memory = state.data?.memory ?? null;
  useViewTitle(`${memory?.type ?? 'Record'} · ${agent.name}`);
  if (state.status === 'error') {
    return (
      <main class="view">
        <ViewError what="the record" message={state.message} onRetry={retry} />
      </main>
    );
  }
  if (!state.data) {
    return (
      <main class="view" aria-busy="true">
        <ViewLoading text="Loading the record…" />
      </main>
    );
  }
  if (!memory) return <NotFound id={id} />;
  // The admin reads every agent's records: say whose this is instead of mixing agents on one page.
  if (memory.agentId !== agent.id) {
    return <NotFound id={id} other={agents?.find((candidate) => candidate.id === memory.agentId)} />;
  }
  return <RecordView memory={memory} audit={state.data.decisionAudit} />;
}

export function RecordPage(props: RecordPageProps) {
  // Not an id at all: nothing to ask the server.
  if (!isMemoryId(props.id)) return <NotFound id={props.id} />;
  return <RecordLoader {...props} />;
}
