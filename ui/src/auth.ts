// The API key lives in sessionStorage only: it is gone when the tab closes, and never sent
// anywhere but this service's /graphql.
const KEY = "recmem.explorer.apiKey";
const NOTICE = "recmem.explorer.notice";

export function storedKey(): string | null {
  return sessionStorage.getItem(KEY);
}

export function storeKey(key: string): void {
  sessionStorage.setItem(KEY, key);
  sessionStorage.removeItem(NOTICE);
}

/** Forget the key; `notice` is shown on the sign-in page (why the user was signed out). */
export function clearKey(notice?: string): void {
  sessionStorage.removeItem(KEY);
  if (notice) sessionStorage.setItem(NOTICE, notice);
}

export function takeNotice(): string | null {
  const notice = sessionStorage.getItem(NOTICE);
  sessionStorage.removeItem(NOTICE);
  return notice;
}
