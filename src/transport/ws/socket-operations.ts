// The operations in flight on one socket, by id, from the moment a `subscribe` arrives until
// graphql-ws reports the operation finished (onComplete / onError). graphql-ws forgets an id as soon
// as the client completes it, while the operation may still be resolving its caller or ending; a
// new operation under that id would then share graphql-ws' bookkeeping with the old one (a stray
// `complete`, or an operation nothing can stop). So an id is refused while it is in flight here,
// as graphql-ws refuses an id it still knows: the socket is closed with 4409.

/** L4: subscriptions one socket may have open at once; the next one is answered with an error. */
export const MAX_SUBSCRIPTIONS_PER_SOCKET = 50;

export class SocketOperations {
  private readonly inFlight = new Set<string>();
  private readonly subscriptions = new Set<string>();

  /** Takes `id` for a new operation; false when an operation under it has not finished yet. */
  begin(id: string): boolean {
    if (this.inFlight.has(id)) return false;
    this.inFlight.add(id);
    return true;
  }

  /** L4: counts the operation `id` as a subscription; false when the socket has the most it may. */
  addSubscription(id: string): boolean {
    if (this.subscriptions.size >= MAX_SUBSCRIPTIONS_PER_SOCKET) return false;
    this.subscriptions.add(id);
    return true;
  }

  /** The operation `id` finished (or was refused): its id may be used again. */
  end(id: string): void {
    this.inFlight.delete(id);
    this.subscriptions.delete(id);
  }
}
