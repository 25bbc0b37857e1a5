// The instrument catalog as agents see it (M11) and as the venue's answers keep it (V2, V3).
// Catalog rows are a small reference table (D1); selections are read by their agent (D2).
import { planCatalogSync, type VenuePerp } from '../domain/venue-catalog.js';
import type { Database } from './db.js';

/** The instruments an agent selects now that are active: what its writes may target (W2, M11). */
export async function selectedInstruments(db: Database, agentId: string): Promise<string[]> {
  const rows = await db.prisma.agentInstrument.findMany({
    where: { agentId, deselectedAt: null, instrument: { active: true } },
    select: { instrumentId: true },
    orderBy: { instrumentId: 'asc' },
  });
  return rows.map((row) => row.instrumentId);
}

/** M11: whether an instrument is in the catalog, and whether the agent selects it now. */
export async function instrumentStanding(
  db: Database,
  agentId: string,
  instrument: string,
): Promise<{ known: boolean; selected: boolean }> {
  const [known, selection] = await Promise.all([
    db.prisma.instrument.findUnique({ where: { id: instrument }, select: { id: true } }),
    db.prisma.agentInstrument.findFirst({
      where: { agentId, instrumentId: instrument, deselectedAt: null },
      select: { id: true },
    }),
  ]);
  return { known: known !== null, selected: selection !== null };
}

/** V2: the answer of a sync — names added, reactivated, deactivated, and how many stayed as they were. */
export interface InstrumentSyncSummary {
  added: string[];
  reactivated: string[];
  deactivated: string[];
  unchanged: number;
}

/**
 * V2, V3: applies the venue's answer for one dex (null: the main dex) in one transaction: adds new
 * names, (re)activates listed ones, deactivates delisted and vanished ones, refreshes their venue
 * parameters. Records and selections are never touched, nothing is deleted.
 */
export async function syncInstruments(
  db: Database,
  dex: string | null,
  perps: readonly VenuePerp[],
): Promise<InstrumentSyncSummary> {
  return db.prisma.$transaction(async (tx) => {
    const current = await tx.instrument.findMany({
      where: dex === null ? { NOT: { id: { contains: ':' } } } : { id: { startsWith: `${dex}:` } },
      select: { id: true, active: true, szDecimals: true, maxLeverage: true },
    });
    const plan = planCatalogSync(current, perps);
    if (plan.added.length) {
      await tx.instrument.createMany({
        data: plan.added.map((perp) => ({
          id: perp.name,
          active: !perp.delisted,
          szDecimals: perp.szDecimals,
          maxLeverage: perp.maxLeverage,
        })),
      });
    }
    if (plan.deactivated.length)
      await tx.instrument.updateMany({ where: { id: { in: plan.deactivated } }, data: { active: false } });
    if (plan.reactivated.length)
      await tx.instrument.updateMany({ where: { id: { in: plan.reactivated } }, data: { active: true } });
    for (const perp of plan.refreshed) {
      await tx.instrument.update({
        where: { id: perp.name },
        data: { szDecimals: perp.szDecimals, maxLeverage: perp.maxLeverage },
      });
    }
    return {
      added: plan.added.map((perp) => perp.name),
      reactivated: plan.reactivated,
      deactivated: plan.deactivated,
      unchanged: plan.unchanged,
    };
  });
}
