// What the record page and the Context tab share: the browser tab's title while a view is shown, and
// the loading and error states of its request.
import { useEffect } from 'preact/hooks';

/** The browser tab names the view while it is shown (null: not shown); the previous title returns after. */
export function useViewTitle(title: string | null): void {
  useEffect(() => {
    if (title === null) return;
    const before = document.title;
    document.title = title;
    return () => void (document.title = before);
  }, [title]);
}

export function ViewLoading({ text }: { text: string }) {
  return (
    <div class="loading" role="status">
      <span class="spinner" aria-hidden="true" />
      {text}
    </div>
  );
}

export function ViewError({
  what,
  message,
  onRetry,
}: {
  what: string;
  message: string;
  onRetry: () => void;
}) {
  return (
    <div class="alert" role="alert">
      <span>{`Could not load ${what}: ${message}`}</span>
      <button type="button" class="btn btn-secondary" onClick={onRetry}>
        Retry
      </button>
    </div>
  );
}
