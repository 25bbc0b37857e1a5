// T3 on a decision's page: every record it considered, and the trading context of each instrument it
// targets as Trading saw it at the decision's createdAt (C9) — later research never shows here.
import { formatInstant } from '../format.js';
import type { RecordPageResult } from '../page-queries.js';
import type { Memory } from '../queries.js';
import { ContextView } from './context-view.js';
import { MemoryLink } from './memory-link.js';

type Audit = NonNullable<RecordPageResult['decisionAudit']>;

function Considered({ record, linkTypes }: { record: Memory; linkTypes: string[] }) {
  return (
    <li class="rel" data-memory-id={record.id}>
      <span class="rel-type">{linkTypes.join(', ')}</span>
      <span class="rel-source">{record.type}</span>
      <time class="muted" dateTime={record.createdAt} title={record.createdAt}>
        {formatInstant(record.createdAt)}
      </time>
      <MemoryLink id={record.id} />
      <p class="rel-preview">{record.content}</p>
    </li>
  );
}

export function DecisionAudit({ decision, audit }: { decision: Memory; audit: Audit }) {
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
            <Considered key={record.id} record={record} linkTypes={linkTypesOf(record.id)} />
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
