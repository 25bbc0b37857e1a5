// The browser tab names what the page shows; the previous title comes back when the view goes away.
import { useEffect } from 'preact/hooks';

export function useDocumentTitle(title: string): void {
  useEffect(() => {
    const before = document.title;
    document.title = title;
    return () => void (document.title = before);
  }, [title]);
}
