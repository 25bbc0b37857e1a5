// One record (B6): type, scope and instruments, provenance, created time in the operator's zone, expiry and
// freshness, links (corrections marked), and its content and metadata on demand.
import { h } from 'preact';
import { useState } from 'preact/hooks';
import { formatInstant, formatRelative, shortId } from '../format.js';
import type { Memory } from '../queries.js';
import { freshnessAt, isCorrection } from '../records.js';
import { MetadataView } from './metadata.js';

export interface RecordCardProps {
  memory: Memory;
  now: number;
  isNew: boolean;
  /** True when the link target is in the list, so the link can jump to it. */
  isShown: (id: string) => boolean;
  onJump: (id: string) => void;
}

export function recordElementId(id: string): string {
  return `memory-${id}`;
}

function TimeText({ iso, now }: { iso: string; now: number }) {
  return h(
    'span',
    null,
    h('time', { dateTime: iso, title: iso }, formatInstant(iso)),
    h('span', { class: 'muted' }, ` · ${formatRelative(iso, now)}`),
  );
}

function Scope({ memory }: { memory: Memory }) {
  if (memory.scope === 'AGENT') return h('span', { class: 'scope-agent' }, 'Agent-wide');
  return h(
    'span',
    { class: 'instruments' },
    memory.instruments.map((instrument) => h('span', { class: 'chip', key: instrument }, instrument)),
  );
}

function ProvenanceText({ memory }: { memory: Memory }) {
  const p = memory.provenance;
  if (!p) return h('span', { class: 'muted' }, 'Imported · no run provenance');
  return h(
    'span',
    { class: 'provenance' },
    h('span', { class: 'producer' }, p.producerName),
    h('span', { class: `kind kind-${p.kind.toLowerCase()}` }, p.kind),
    p.schedule ? h('span', { class: 'muted' }, `every ${p.schedule}`) : null,
  );
}

function Links({ memory, isShown, onJump }: Pick<RecordCardProps, 'memory' | 'isShown' | 'onJump'>) {
  if (!memory.links.length) return null;
  return h(
    'div',
    { class: 'record-links' },
    h('span', { class: 'meta-label' }, `Links (${memory.links.length})`),
    h(
      'ul',
      null,
      memory.links.map((link, index) => {
        const correction = link.linkType === 'corrects';
        const target = shortId(link.targetMemoryId);
        return h(
          'li',
          {
            key: `${index}-${link.targetMemoryId}`,
            class: correction ? 'link link-correction' : 'link',
            'data-link-type': link.linkType,
          },
          h('span', { class: 'link-type' }, correction ? 'Correction of' : link.linkType),
          isShown(link.targetMemoryId)
            ? h(
                'button',
                {
                  type: 'button',
                  class: 'link-target',
                  title: `Go to ${link.targetMemoryId}`,
                  onClick: () => onJump(link.targetMemoryId),
                },
                target,
              )
            : h('code', { class: 'link-target', title: link.targetMemoryId }, target),
        );
      }),
    ),
  );
}

export function RecordCard({ memory, now, isNew, isShown, onJump }: RecordCardProps) {
  const [expanded, setExpanded] = useState(false);
  const freshness = freshnessAt(memory, now);
  const correction = isCorrection(memory);
  const elementId = recordElementId(memory.id);
  const detailsId = `${elementId}-details`;
  const titleId = `${elementId}-title`;

  return h(
    'article',
    {
      id: elementId,
      class: `record${isNew ? ' record-new' : ''}${freshness === 'STALE' ? ' record-stale' : ''}`,
      tabIndex: -1,
      'aria-labelledby': titleId,
      'data-id': memory.id,
      'data-type': memory.type,
      'data-created': memory.createdAt,
    },
    h(
      'header',
      { class: 'record-head' },
      h('h3', { id: titleId, class: 'record-type' }, memory.type),
      correction ? h('span', { class: 'badge badge-correction' }, 'Correction') : null,
      isNew ? h('span', { class: 'badge badge-new' }, 'New') : null,
      h(
        'span',
        {
          class: `badge badge-${freshness.toLowerCase()}`,
          'data-freshness': freshness,
          title: memory.expiresAt ? `Expiry ${memory.expiresAt}` : 'No expiry',
        },
        freshness,
      ),
    ),
    h(
      'dl',
      { class: 'record-meta' },
      h('div', null, h('dt', null, 'Scope'), h('dd', null, h(Scope, { memory }))),
      h('div', null, h('dt', null, 'Producer'), h('dd', null, h(ProvenanceText, { memory }))),
      h('div', null, h('dt', null, 'Created'), h('dd', null, h(TimeText, { iso: memory.createdAt, now }))),
      h(
        'div',
        null,
        h('dt', null, freshness === 'STALE' ? 'Expired' : 'Expires'),
        h(
          'dd',
          null,
          memory.expiresAt ? h(TimeText, { iso: memory.expiresAt, now }) : h('span', null, 'No expiry'),
        ),
      ),
    ),
    expanded ? null : h('p', { class: 'record-preview' }, memory.content),
    h(Links, { memory, isShown, onJump }),
    h(
      'button',
      {
        type: 'button',
        class: 'toggle',
        'aria-expanded': expanded,
        'aria-controls': detailsId,
        onClick: () => setExpanded(!expanded),
      },
      expanded ? 'Hide content and metadata' : 'Show content and metadata',
    ),
    expanded
      ? h(
          'div',
          { id: detailsId, class: 'record-details' },
          h('h4', null, 'Content'),
          h('p', { class: 'record-content' }, memory.content),
          h('h4', null, 'Metadata'),
          h(MetadataView, { metadata: memory.metadata }),
          h(
            'dl',
            { class: 'record-ids' },
            h('div', null, h('dt', null, 'Memory'), h('dd', null, h('code', null, memory.id))),
            memory.provenance
              ? h(
                  'div',
                  null,
                  h('dt', null, 'Run'),
                  h(
                    'dd',
                    null,
                    h('code', null, memory.provenance.runId),
                    ` · ${memory.provenance.runStatus.toLowerCase()}`,
                  ),
                )
              : null,
            memory.provenance?.evidenceBoundary
              ? h(
                  'div',
                  null,
                  h('dt', null, 'Run boundary'),
                  h('dd', null, formatInstant(memory.provenance.evidenceBoundary)),
                )
              : null,
            memory.timeframe
              ? h('div', null, h('dt', null, 'Timeframe'), h('dd', null, memory.timeframe))
              : null,
            memory.expiryPolicy
              ? h('div', null, h('dt', null, 'Expiry policy'), h('dd', null, memory.expiryPolicy))
              : null,
          ),
        )
      : null,
  );
}
