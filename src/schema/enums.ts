import { MemoryScope, RunKind, RunStatus } from '../store/generated/prisma/enums.js';
import { builder } from './builder.js';

export const MemoryScopeEnum = builder.enumType(MemoryScope, { name: 'MemoryScope' });
export const RunKindEnum = builder.enumType(RunKind, { name: 'RunKind' });
export const RunStatusEnum = builder.enumType(RunStatus, { name: 'RunStatus' });
export const FreshnessEnum = builder.enumType('Freshness', { values: ['FRESH', 'STALE'] as const });
