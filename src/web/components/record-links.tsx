// A record's links in both directions (B13): what it links (its `links`) and what links to
// it (`linkedFrom`), corrections of it apart and marked (C6). Every id opens its record's page.
import type { ComponentChildren } from 'preact';
import { formatInstant } from '../format.js';
import type { Backlink } from '../page-queries.js';
import type { Memory } from '../queries.js';
import { MemoryLink } from './memory-link.js';

/** The server lists at most this many links to a record (Memory.linkedFrom). */
const BACKLINKS_LIMIT = 100;

function linkLabel(linkType: string): string {
  return linkType === 'corrects' ? 'Correction of' : linkType;
}

function Section({ name, title, count, children }: SectionProps) {
  return (
    <section class="record-section" data-section={name} aria-labelledby={`section-${name}`}>
      <h3 id={`section-${name}`}>{`${title} (${count})`}</h3>
      {children}
    </section>
  );
}

interface SectionProps {
  name: string;
  title: string;
  count: number;
  children: ComponentChildren;
}

/** A link's target, with its type and time when the page knows the record (a decision's audit does). */
function LinkOut({ link, target }: { link: Memory['links'][number]; target: Memory | undefined }) {
  return (
    <li class={link.linkType === 'corrects' ? 'rel rel-correction' : 'rel'} data-link-type={link.linkType}>
      <span class="rel-type">{linkLabel(link.linkType)}</span>
      {target ? <span class="rel-source">{target.type}</span> : null}
      {target ? (
        <time class="muted" dateTime={target.createdAt} title={target.createdAt}>
          {formatInstant(target.createdAt)}
        </time>
      ) : null}
      <MemoryLink id={link.targetMemoryId} />
    </li>
  );
}

export function LinksOut({ links, targets = [] }: { links: Memory['links']; targets?: Memory[] }) {
  return (
    <Section name="links-out" title="Links" count={links.length}>
      {links.length ? (
        <ul class="rel-list">
          {links.map((link, index) => (
            <LinkOut
              key={`${index}-${link.targetMemoryId}`}
              link={link}
              target={targets.find((target) => target.id === link.targetMemoryId)}
            />
          ))}
        </ul>
      ) : (
        <p class="muted">This record links to no other record.</p>
      )}
    </Section>
  );
}

function BacklinkItem({ link }: { link: Backlink }) {
  const correction = link.linkType === 'corrects';
  return (
    <li class={correction ? 'rel rel-correction' : 'rel'} data-link-type={link.linkType}>
      {correction ? <span class="badge badge-correction">Correction</span> : null}
      <span class="rel-type">{correction ? 'corrects this' : link.linkType}</span>
      <span class="rel-source">{link.sourceType}</span>
      <time class="muted" dateTime={link.sourceCreatedAt} title={link.sourceCreatedAt}>
        {formatInstant(link.sourceCreatedAt)}
      </time>
      <MemoryLink id={link.sourceMemoryId} />
    </li>
  );
}

/** Corrections of the record first (C6), then every other record that links to it, newest first. */
export function LinksIn({ linkedFrom }: { linkedFrom: Backlink[] }) {
  const corrections = linkedFrom.filter((link) => link.linkType === 'corrects');
  const others = linkedFrom.filter((link) => link.linkType !== 'corrects');
  return (
    <>
      {corrections.length ? (
        <Section name="corrected-by" title="Corrected by" count={corrections.length}>
          <ul class="rel-list">
            {corrections.map((link) => (
              <BacklinkItem key={`${link.sourceMemoryId}-${link.linkType}`} link={link} />
            ))}
          </ul>
        </Section>
      ) : null}
      <Section name="links-in" title="Linked from" count={others.length}>
        {others.length ? (
          <ul class="rel-list">
            {others.map((link, index) => (
              <BacklinkItem key={`${index}-${link.sourceMemoryId}`} link={link} />
            ))}
          </ul>
        ) : (
          <p class="muted">No other record links to this one.</p>
        )}
        {linkedFrom.length >= BACKLINKS_LIMIT ? (
          <p class="hint">{`Only the newest ${BACKLINKS_LIMIT} records that link here are listed.`}</p>
        ) : null}
      </Section>
    </>
  );
}
