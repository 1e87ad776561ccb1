// Iterators over the spec's two list shapes: paged wrappers and cursor feeds.

export interface Page<T> {
  items: T[];
  page: number;
  pageSize: number;
  totalCount: number;
}

/** Walks every page from `startPage` until totalCount is covered or a page comes back empty. */
export async function* allPages<T>(
  fetchPage: (page: number) => Promise<Page<T>>,
  startPage = 0,
): AsyncGenerator<Page<T>> {
  for (let page = startPage; ; page++) {
    const p = await fetchPage(page);
    yield p;
    if (p.items.length === 0 || (p.page + 1) * p.pageSize >= p.totalCount) return;
  }
}

export async function* allItems<T>(fetchPage: (page: number) => Promise<Page<T>>): AsyncGenerator<T> {
  for await (const p of allPages(fetchPage)) yield* p.items;
}

export interface FeedPage<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * Walks a cursor feed from `after` until nextCursor is null. Yields each page with the cursor that
 * produced it, so callers can save the returned cursor only after handling the page.
 */
export async function* feedPages<T>(
  fetchPage: (after: string | undefined) => Promise<FeedPage<T>>,
  after?: string,
): AsyncGenerator<FeedPage<T> & { after: string | undefined }> {
  let cursor = after;
  for (;;) {
    const p = await fetchPage(cursor);
    yield { ...p, after: cursor };
    if (p.nextCursor === null) return;
    cursor = p.nextCursor;
  }
}
