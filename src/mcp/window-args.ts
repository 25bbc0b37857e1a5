// The time window arguments of list_memories and list_memory_types, and their API spelling.
import { z } from 'zod';

export const windowArgs = {
  window: z.enum(['1h', '6h', '24h']).optional(),
  from_date: z.string().optional().describe('YYYY-MM-DD, inclusive'),
  to_date: z.string().optional().describe('default from_date'),
  time_zone: z.string().optional().describe('IANA; default UTC'),
};
const ROLLING = { '1h': 'LAST_1H', '6h': 'LAST_6H', '24h': 'LAST_24H' } as const;

/** The tools' window arguments as the API's TimeWindowInput (null: no time filter). */
export function timeWindow(args: z.infer<z.ZodObject<typeof windowArgs>>) {
  if (!args.window && !args.from_date && !args.to_date && !args.time_zone) return null;
  return {
    rolling: args.window ? ROLLING[args.window] : null,
    fromDate: args.from_date ?? null,
    toDate: args.to_date ?? null,
    timeZone: args.time_zone ?? null,
  };
}
