// Memory-added events for the feed's unit tests: one agent `a`, one instant, no filter facts.

export const EVENT_AT = new Date('2026-01-01T00:00:00Z');
export const EVENT_FACTS = { instruments: [], producerId: null, runKind: null, expiresAt: null };

/** The event of record `id<seq>` of agent `a`. */
export const feedEvent = (seq: number, type = 'x') => ({
  id: `id${seq}`,
  agentId: 'a',
  type,
  createdAt: EVENT_AT,
  seq,
  ...EVENT_FACTS,
});
