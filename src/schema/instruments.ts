// The instrument catalog (V1, V2, M11): the venue's perps by their exact names, readable by every
// token, kept in sync from the venue's own `meta` answers by the admin (the scheduler).
import { InputError } from '../domain/errors.js';
import { parseMetaAnswer } from '../domain/venue-catalog.js';
import { syncInstruments, type InstrumentSyncSummary } from '../store/instruments.js';
import { adminOnly } from './admin.js';
import { builder } from './builder.js';

builder.prismaObject('Instrument', {
  fields: (t) => ({
    id: t.exposeString('id', {
      description: "The venue's exact perp name (V1): BTC, kPEPE, or a builder dex's xyz:TSLA.",
    }),
    active: t.exposeBoolean('active'),
    szDecimals: t.exposeInt('szDecimals', {
      nullable: true,
      description: "The venue's size decimals (V2: from its meta answer; null until a sync).",
    }),
    maxLeverage: t.exposeInt('maxLeverage', {
      nullable: true,
      description: "The venue's maximum leverage (V2: from its meta answer; null until a sync).",
    }),
  }),
});

builder.queryField('instruments', (t) =>
  t.withAuth({ instruments: true }).prismaField({
    type: ['Instrument'],
    description:
      'M11: the instrument catalog by id — the active instruments, or every one with includeInactive. Readable by every token.',
    args: { includeInactive: t.arg.boolean({ defaultValue: false }) },
    resolve: (query, _root, args, ctx) =>
      ctx.db.prisma.instrument.findMany({
        ...query,
        where: args.includeInactive ? {} : { active: true },
        orderBy: { id: 'asc' },
      }),
  }),
);

const InstrumentSyncRef = builder.objectRef<InstrumentSyncSummary>('InstrumentSync').implement({
  description: 'V2: what a sync of one dex changed in the catalog (nothing is deleted).',
  fields: (t) => ({
    added: t.exposeStringList('added', { description: 'New names (a delisted one is added inactive).' }),
    reactivated: t.exposeStringList('reactivated', { description: 'Inactive names the venue lists again.' }),
    deactivated: t.exposeStringList('deactivated', {
      description: 'Names delisted or missing from the answer; their records and selections stay (V3).',
    }),
    unchanged: t.exposeInt('unchanged', { description: 'Names of this dex whose active state stayed.' }),
  }),
});

builder.mutationFields((t) => ({
  syncInstruments: t.field({
    ...adminOnly,
    type: InstrumentSyncRef,
    description:
      "V2: the catalog from the venue's own meta answer for the main dex (dex null) or a builder dex; one transaction. A malformed answer changes nothing and says what was wrong.",
    args: { meta: t.arg({ type: 'JSON', required: true }), dex: t.arg.string() },
    resolve: (_root, args, ctx) => {
      const parsed = parseMetaAnswer(args.meta, args.dex ?? null);
      if (!parsed.ok) throw new InputError(parsed.message, parsed.field);
      return syncInstruments(ctx.db, args.dex ?? null, parsed.value);
    },
  }),
}));
