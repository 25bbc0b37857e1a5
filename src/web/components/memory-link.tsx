// Every record id on the page opens that record's page (B6): one link, the short id shown,
// the whole id on hover and to assistive tech.
import { shortId } from '../format.js';
import { memoryHref } from '../route.js';

interface MemoryLinkProps {
  id: string;
  /** Shown instead of the short id (e.g. the whole id on the record's own page). */
  full?: boolean;
  class?: string;
}

export function MemoryLink({ id, full = false, class: className }: MemoryLinkProps) {
  return (
    <a
      class={className ? `memory-link ${className}` : 'memory-link'}
      href={memoryHref(id)}
      title={`Open record ${id}`}
      aria-label={full ? undefined : `record ${id}`}
      data-memory-link={id}
    >
      <code>{full ? id : shortId(id)}</code>
    </a>
  );
}
