// What an MCP tool is: the capability it needs (auth/access-table.ts), its zod input and output, and how a call is checked, run and
// summarised. The tools themselves are in tools.ts.
import type { z } from 'zod';
import type { Capability } from '../auth/access-table.js';
import type { ServiceExecutor } from './executor.js';
import type { DESCRIPTIONS } from './protocol.js';
import type { ToolFailure } from './shapes.js';

export type ToolOutcome = { ok: true; value: Record<string, unknown> } | { ok: false; failure: ToolFailure };

/** A call's answer: the structured result with its one-line summary (M9), or a typed failure. */
export type ToolResult =
  { ok: true; value: Record<string, unknown>; summary: string } | { ok: false; failure: ToolFailure };

interface ToolInfo {
  name: keyof typeof DESCRIPTIONS;
  title: string;
  /** The capability of the access table the tool needs: a caller without it does not see the tool. */
  needs: Capability;
  readOnly: boolean;
  /** The service validates the arguments itself (the REST write): its 400 body is then the answer as is. */
  serviceValidates?: true;
  input: z.ZodObject;
  output: z.ZodObject;
  /** M9: a tool whose listing must stay small leaves its output schema out (the result is still structured). */
  listsOutput?: false;
}

export interface Tool extends ToolInfo {
  /** Checks the arguments against `input` (unless the service does), runs, and summarises the result. */
  call(args: Record<string, unknown>, service: ServiceExecutor): Promise<ToolResult>;
}

type Definition<I extends z.ZodObject, O extends z.ZodObject> = Omit<
  ToolInfo,
  'input' | 'output' | 'serviceValidates'
> & {
  input: I;
  output: O;
  /** M9: the one-line text beside the structured result, from the result as `output` reads it. */
  summary(value: z.infer<O>): string;
} & (
    | { serviceValidates?: undefined; run(args: z.infer<I>, service: ServiceExecutor): Promise<ToolOutcome> }
    | {
        serviceValidates: true;
        run(args: Record<string, unknown>, service: ServiceExecutor): Promise<ToolOutcome>;
      }
  );

/** Keeps each tool's handler typed by its own input schema, and its summary by its output. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(definition: Definition<I, O>): Tool {
  const { run: _run, summary, ...info } = definition;
  const finish = (outcome: ToolOutcome): ToolResult =>
    outcome.ok ? { ...outcome, summary: summary(definition.output.parse(outcome.value)) } : outcome;
  return {
    ...info,
    async call(args, service) {
      if (definition.serviceValidates) return finish(await definition.run(args, service));
      const parsed = definition.input.safeParse(args);
      if (!parsed.success) return { ok: false, failure: argumentFailure(parsed.error) };
      return finish(await definition.run(parsed.data, service));
    },
  };
}

/** The first problem zod found, named by its argument path (`links[0].link_type`). */
function argumentFailure(error: z.ZodError): ToolFailure {
  const issue = error.issues[0];
  const field =
    issue?.path.reduce<string>(
      (name, part) =>
        typeof part === 'number' ? `${name}[${part}]` : name ? `${name}.${String(part)}` : String(part),
      '',
    ) || 'arguments';
  return { error: `${field}: ${issue?.message ?? 'invalid'}`, code: 'validation_error', field };
}
