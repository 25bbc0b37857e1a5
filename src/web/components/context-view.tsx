// A trading context exactly as a Trading run is given it (C1–C10): fresh entries with their research,
// stale and disabled ones as stubs (identity only, C4), corrections with their status (C6, C7) and the
// agent's learnings (C10). Every record id opens its page. Used by the Context tab and a decision's audit.
import type { ComponentChildren } from 'preact';
import { formatInstant } from '../format.js';
import type { ContextCorrection, ContextEntry, Research, TradingContext } from '../page-queries.js';
import type { Memory, Provenance } from '../queries.js';
import { MemoryLink } from './memory-link.js';
import { MetadataView } from './metadata.js';
import { ProvenanceText } from './record-card.js';

type Status = ContextEntry['status'] | ContextCorrection['status'];

export function StatusBadge({ status }: { status: Status }) {
  return (
    <span class={`badge badge-${status.toLowerCase()}`} data-status={status}>
      {status}
    </span>
  );
}

function Instant({ iso }: { iso: string }) {
  return (
    <time dateTime={iso} title={iso}>
      {formatInstant(iso)}
    </time>
  );
}

/** Producer, kind and schedule, the written and expiry instants: the identity every item keeps (C4). */
function ItemMeta({ provenance, createdAt, expiresAt }: { provenance: Provenance | null } & Times) {
  return (
    <p class="ctx-meta">
      <ProvenanceText provenance={provenance} />
      <span>
        {'written '}
        <Instant iso={createdAt} />
      </span>
      <span>
        {expiresAt ? (
          <>
            {'expires '}
            <Instant iso={expiresAt} />
          </>
        ) : (
          'no expiry'
        )}
      </span>
    </p>
  );
}

interface Times {
  createdAt: string;
  expiresAt: string | null;
}

function LinkList({ links }: { links: Memory['links'] }) {
  if (!links.length) return null;
  return (
    <ul class="ctx-links" aria-label="Links">
      {links.map((link, index) => (
        <li
          key={`${index}-${link.targetMemoryId}`}
          class={link.linkType === 'corrects' ? 'link link-correction' : 'link'}
        >
          <span class="link-type">{link.linkType === 'corrects' ? 'Correction of' : link.linkType}</span>
          <MemoryLink id={link.targetMemoryId} class="link-target" />
        </li>
      ))}
    </ul>
  );
}

function ResearchBody({ research }: { research: Research }) {
  return (
    <div class="ctx-research">
      <p class="record-content">{research.content}</p>
      {research.instruments.length || research.timeframe ? (
        <p class="ctx-meta">
          {research.instruments.map((instrument) => (
            <span class="chip" key={instrument}>
              {instrument}
            </span>
          ))}
          {research.timeframe ? <span class="muted">{`timeframe ${research.timeframe}`}</span> : null}
        </p>
      ) : null}
      <LinkList links={research.links} />
      <details class="raw">
        <summary>Metadata</summary>
        <MetadataView metadata={research.metadata} />
      </details>
    </div>
  );
}

interface ItemProps {
  id: string;
  type: string;
  status?: Status;
  badge?: ComponentChildren;
  children?: ComponentChildren;
}

function Item({ id, type, status, badge, children }: ItemProps) {
  return (
    <li class="ctx-item" data-memory-id={id} data-type={type} data-status={status}>
      <div class="ctx-head">
        <span class="ctx-type">{type}</span>
        {badge}
        {status ? <StatusBadge status={status} /> : null}
        <MemoryLink id={id} />
      </div>
      {children}
    </li>
  );
}

function EntryItem({ entry }: { entry: ContextEntry }) {
  return (
    <Item id={entry.memoryId} type={entry.type} status={entry.status}>
      <ItemMeta {...entry} />
      {entry.research ? <ResearchBody research={entry.research} /> : null}
    </Item>
  );
}

function CorrectionItem({ correction }: { correction: ContextCorrection }) {
  return (
    <Item
      id={correction.memoryId}
      type={correction.type}
      status={correction.status}
      badge={<span class="badge badge-correction">Correction</span>}
    >
      <p class="ctx-meta ctx-corrects">
        <span class="meta-label">Corrects</span>
        {correction.correctionTargetIds.map((target) => (
          <MemoryLink key={target} id={target} class="link-target" />
        ))}
      </p>
      <ItemMeta {...correction} />
      {correction.research ? <ResearchBody research={correction.research} /> : null}
    </Item>
  );
}

function LearningItem({ learning }: { learning: Memory }) {
  return (
    <Item id={learning.id} type={learning.type}>
      <ItemMeta {...learning} />
      <p class="record-content">{learning.content}</p>
    </Item>
  );
}

function Part({ name, title, note, count, children }: PartProps) {
  return (
    <section class="ctx-part" data-part={name} aria-label={title}>
      <h4>{`${title} (${count})`}</h4>
      {note ? <p class="hint">{note}</p> : null}
      {count ? <ul class="ctx-list">{children}</ul> : <p class="muted ctx-none">None.</p>}
    </section>
  );
}

interface PartProps {
  name: string;
  title: string;
  note?: string;
  count: number;
  children: ComponentChildren;
}

export function ContextView({ context }: { context: TradingContext }) {
  const fresh = context.entries.filter((entry) => entry.status === 'FRESH');
  const stubs = context.entries.filter((entry) => entry.status !== 'FRESH');
  return (
    <div class="ctx" data-instrument={context.instrument} data-at={context.at}>
      <Part name="fresh" title="Fresh research" count={fresh.length}>
        {fresh.map((entry) => (
          <EntryItem key={entry.memoryId} entry={entry} />
        ))}
      </Part>
      <Part
        name="stubs"
        title="Stale or disabled"
        note="Identity only: Trading is not given their research (C4)."
        count={stubs.length}
      >
        {stubs.map((entry) => (
          <EntryItem key={entry.memoryId} entry={entry} />
        ))}
      </Part>
      <Part name="corrections" title="Corrections" count={context.corrections.length}>
        {context.corrections.map((correction) => (
          <CorrectionItem key={correction.memoryId} correction={correction} />
        ))}
      </Part>
      <Part name="learnings" title="Learnings" count={context.learnings.length}>
        {context.learnings.map((learning) => (
          <LearningItem key={learning.id} learning={learning} />
        ))}
      </Part>
    </div>
  );
}
