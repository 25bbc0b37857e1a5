// One request's caller (an HTTP request, a WebSocket operation): its token resolved once, and — for a
// token whose identity was remembered (S14) — whether it still authenticates read at most once, by
// the first thing that needs it: the `live` scope of a field, a read that found nothing, a refusal.
import type { Database } from '../store/db.js';
import type { TokenLiveness } from '../store/tokens.js';
import { InactiveTokenError } from '../domain/errors.js';
import {
  describeAuthFailure,
  isUnverified,
  requireLive,
  resolveCaller,
  resolveCallerDeferringLiveness,
  type Caller,
  type CallerResolution,
  type TokenIdentities,
} from './caller.js';

export class RequestCaller {
  private liveness: Promise<CallerResolution> | undefined;
  private checked: CallerResolution | undefined;

  constructor(
    private readonly db: Database,
    /** As resolved: an `unverified` caller's liveness was not read. */
    readonly resolution: CallerResolution,
    /** Told when reading the liveness fails (the database did not answer). */
    private readonly onLivenessFault: () => void = () => {},
  ) {}

  get caller(): Caller | null {
    return this.resolution.caller;
  }

  /** S6: the resolution as it stands now — a statement only for an `unverified` caller, once per request. */
  live(): Promise<CallerResolution> {
    const { caller } = this.resolution;
    if (!isUnverified(caller)) return Promise.resolve(this.resolution);
    this.liveness ??= requireLive(this.db, caller).then(
      (resolution) => (this.checked = resolution),
      (error: unknown) => {
        this.onLivenessFault();
        throw error;
      },
    );
    return this.liveness;
  }

  /** The refusal a dead token gets, once this request has read that it is dead (null otherwise). */
  get ended(): CallerResolution | null {
    return this.checked && !this.checked.caller ? this.checked : null;
  }

  /** Whether a statement must still check the token itself: `unverified` and not yet read. */
  private get unchecked(): boolean {
    return isUnverified(this.resolution.caller) && this.checked === undefined;
  }

  /**
   * A read in one round trip for an `unverified` caller (S14): `read` folds the liveness check into
   * its statement (store/tokens.ts livenessCondition), so a token that stopped authenticating reads
   * nothing. Only when nothing came back is it asked why — an empty answer or a dead token (live(),
   * once per request); a dead token throws InactiveTokenError (S6, W9).
   */
  async readLive<T>(
    read: (liveness: TokenLiveness | null) => Promise<T>,
    isEmpty: (answer: T) => boolean,
  ): Promise<T> {
    const { ended } = this;
    if (ended) throw inactive(ended);
    const liveness = this.unchecked ? livenessOf(this.resolution.caller) : null;
    const answer = await read(liveness);
    if (liveness && isEmpty(answer)) {
      const checked = await this.live();
      if (!checked.caller) throw inactive(checked);
    }
    return answer;
  }
}

function inactive({ failure }: CallerResolution): InactiveTokenError {
  return new InactiveTokenError(
    describeAuthFailure(failure) ?? 'unknown token',
    failure?.reason === 'inactive',
  );
}

/** The check a read folds into its statement for an `unverified` caller (null: nothing to check). */
function livenessOf(caller: Caller | null): TokenLiveness | null {
  if (!isUnverified(caller)) return null;
  return caller.kind === 'run'
    ? { kind: 'run', agentId: caller.agentId, runId: caller.run.id }
    : { kind: 'operator', agentId: caller.agentId, operatorTokenId: caller.operatorTokenId };
}

/**
 * token → caller, the one way every transport resolves it. `deferLiveness`: a request that may be
 * answered by statements checking the token themselves (a small GraphQL POST, the REST write) takes a
 * remembered identity without a statement (S14); every other request reads the token now.
 */
export class CallerResolver {
  constructor(
    private readonly db: Database,
    private readonly adminToken: string,
    private readonly identities: TokenIdentities,
  ) {}

  async resolve(
    token: string | null,
    options: { deferLiveness: boolean; onLivenessFault?: () => void },
  ): Promise<RequestCaller> {
    const resolution = options.deferLiveness
      ? await resolveCallerDeferringLiveness(this.db, token, this.adminToken, this.identities)
      : await resolveCaller(this.db, token, this.adminToken);
    return new RequestCaller(this.db, resolution, options.onLivenessFault);
  }
}
