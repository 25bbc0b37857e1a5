// Imports every domain file (each registers its types and fields) and builds the schema once.
import { lexicographicSortSchema } from 'graphql';
import { builder } from './builder.js';
import './scalars.js';
import './enums.js';
import './memory.js';
import './memory-backlinks.js';
import './admin.js';
import './instruments.js';
import './agents.js';
import './trading-context.js';
import './browser.js';
import './subscriptions.js';
import './runs.js';
import './health.js';
import './freshness.js';
import './decision-evidence.js';
import './run-changed.js';
import './fleet.js';

export const schema = lexicographicSortSchema(builder.toSchema());
