// The instrument catalog as agents see it (M11) and as the venue's answers keep it (V2, V3).
// Catalog rows are a small reference table (D1); selections are read by their agent (D2).
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
