// T3 on a decision's page: every record it considered, with B10's flags (fresh or stale at the decision
// and now; not in the decision instrument's context then, and why), and the trading context of each
// instrument it targets as Trading saw it at the decision's createdAt (C9) — later research never shows here.
import { formatInstant } from '../format.js';
import { useNow } from '../hooks/use-now.js';
import type { ConsideredEntry, RecordPageResult } from '../page-queries.js';
import type { Memory } from '../queries.js';
import { notInContextText } from '../health.js';
import { freshnessAt } from '../records.js';
import { ContextView } from './context-view.js';
import { MemoryLink } from './memory-link.js';

type Audit = NonNullable<RecordPageResult['decisionAudit']>;

/** "STALE now" follows the clock while the page is open. */
const TICK_MS = 30_000;

/** B10: fresh or stale when the decision was written and now, and whether Trading had it in context then. */
function AuditFlags({
  record,
  entry,
  now,
}: {
  record: Memory;
  entry: ConsideredEntry | undefined;
  now: number;
}) {
  if (!entry) return null;
  const current = freshnessAt(record, now);
  const then = entry.freshnessAtDecision;
  return (
    <span
      class="audit-flags"
      data-at-decision={then}
      data-now={current}
      data-in-context={String(entry.inContextAtDecision)}
    >
      <span class={`badge badge-${then.toLowerCase()}`}>{`${then} at decision`}</span>
      <span class={`badge badge-${current.toLowerCase()}`}>{`${current} now`}</span>
      {entry.inContextAtDecision ? (
        <span class="badge badge-fresh">in context</span>
      ) : (
        <span class="badge badge-stale" data-reason={entry.notInContextReason ?? ''}>
          {notInContextText(entry.notInContextReason)}
        </span>
      )}
    </span>
  );
}

interface ConsideredProps {
  record: Memory;
  linkTypes: string[];
  entry: ConsideredEntry | undefined;
  now: number;
}

function Considered({ record, linkTypes, entry, now }: ConsideredProps) {
  return (
    <li class="rel" data-memory-id={record.id}>
      <span class="rel-type">{linkTypes.join(', ')}</span>
      <span class="rel-source">{record.type}</span>
      <time class="muted" dateTime={record.createdAt} title={record.createdAt}>
        {formatInstant(record.createdAt)}
      </time>
      <MemoryLink id={record.id} />
      <AuditFlags record={record} entry={entry} now={now} />
      <p class="rel-preview">{record.content}</p>
    </li>
  );
}

export function DecisionAudit({ decision, audit }: { decision: Memory; audit: Audit }) {
  const now = useNow(TICK_MS);
  const entries = new Map(audit.considered.map((entry) => [entry.memoryId, entry]));
  const linkTypesOf = (id: string) =>
    decision.links.filter((link) => link.targetMemoryId === id).map((link) => link.linkType);
  return (
    <section class="record-section audit" data-section="audit" aria-labelledby="section-audit">
      <h3 id="section-audit">Decision audit</h3>
      <p class="muted">
        {'What this decision considered, and what a Trading run was given at '}
        <time dateTime={decision.createdAt} title={decision.createdAt}>
          {formatInstant(decision.createdAt)}
        </time>
        {', when it was written (T3).'}
      </p>
      <h4>{`Considered records (${audit.linked.length})`}</h4>
      {audit.linked.length ? (
        <ul class="rel-list" data-part="considered">
          {audit.linked.map((record) => (
            <Considered
              key={record.id}
              record={record}
              linkTypes={linkTypesOf(record.id)}
              entry={entries.get(record.id)}
              now={now}
            />
          ))}
        </ul>
      ) : (
        <p class="muted">The decision links no record.</p>
      )}
      {audit.contexts.length ? (
        audit.contexts.map((context) => (
          <section
            key={context.instrument}
            class="audit-context"
            aria-label={`Context for ${context.instrument}`}
          >
            <h4>
              {`Context for ${context.instrument} as of `}
              <time dateTime={context.at} title={context.at}>
                {formatInstant(context.at)}
              </time>
            </h4>
            <ContextView context={context} />
          </section>
        ))
      ) : (
        <p class="muted">An agent-wide decision targets no instrument: there is no context to show.</p>
      )}
    </section>
  );
}
