// "Load more" over a Relay connection: a view keeps one slot per loaded page, each read after the
// end cursor of the page before it, and renders one page component per slot.
import { forwardRef, useCallback, useEffect, useState } from "react";

/** Where a page starts (`after`), and whether it is the first or the last one loaded. */
export type PageSlot = { after: string | null; first: boolean; last: boolean };

type CursorPages = {
  pages: PageSlot[];
  /** Loads the page after `cursor` (once, however often it is asked). Stable across renders. */
  more: (cursor: string) => void;
  /** Back to the first page alone. */
  restart: () => void;
};

/** The loaded pages; they start over at the first page whenever `resetKey` changes. */
export function useCursorPages(resetKey: string): CursorPages {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  useEffect(() => setCursors([null]), [resetKey]);
  const more = useCallback(
    (cursor: string) => setCursors((current) => (current.includes(cursor) ? current : [...current, cursor])),
    [],
  );
  const restart = useCallback(() => setCursors([null]), []);
  const pages = cursors.map((after, index) => ({ after, first: index === 0, last: index === cursors.length - 1 }));
  return { pages, more, restart };
}

type Connection = { pageInfo: { hasNextPage: boolean; endCursor?: string | null } };

/** The cursor to load more after: only the last loaded page offers one, when there is more. */
export function nextCursor(slot: PageSlot, connection: Connection | null | undefined): string | null {
  return slot.last && connection?.pageInfo.hasNextPage ? connection.pageInfo.endCursor ?? null : null;
}

/** The list item with the "Load more" button (a ref lets a view watch it scroll into view). */
export const LoadMore = forwardRef<HTMLLIElement, { label: string; onClick: () => void }>(function LoadMore({ label, onClick }, ref) {
  return (
    <li ref={ref} className="more">
      <button type="button" onClick={onClick}>
        {label}
      </button>
    </li>
  );
});
