// The scope filter of a user's views (docs/scopes.md): one agent, one session, one metadata
// `key=value`. It lives in the hash's query (`#/u/alice/facts?session=trip`), so a reload or a
// shared link keeps it, and every list and recall hands it to the API as its `filter`.
import type { RecallFilter } from "./gql/graphql";

export type Scope = { agent?: string; session?: string; meta?: string };

const FIELDS = ["agent", "session", "meta"] as const;

/** A metadata condition `key=value`, or null when the text is not one. A number, `true`, `false`
 * or a "quoted" string is read as JSON (the API tells `2` from `"2"`); anything else is a string. */
export function metaCondition(text: string): { key: string; equals: unknown } | null {
  const match = /^([^=]+)=(.+)$/.exec(text.trim());
  const key = match?.[1].trim();
  const value = match?.[2].trim();
  if (!key || !value) return null;
  if (/^(?:-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|".*")$/.test(value)) {
    try {
      return { key, equals: JSON.parse(value) };
    } catch {
      // Not JSON after all ("a"b"): the string as typed.
    }
  }
  return { key, equals: value };
}

/** The scope of a hash's query; blank values and a metadata text that is no condition are left out. */
export function readScope(params: URLSearchParams): Scope {
  const scope: Scope = {};
  for (const field of FIELDS) {
    const value = params.get(field)?.trim();
    if (value && (field !== "meta" || metaCondition(value))) scope[field] = value;
  }
  return scope;
}

/** The hash's query for a scope ("" for none). */
export function writeScope(scope: Scope | undefined): string {
  const params = new URLSearchParams();
  for (const field of FIELDS) {
    const value = scope?.[field];
    if (value) params.set(field, value);
  }
  return params.toString();
}

export function isScoped(scope: Scope): boolean {
  return FIELDS.some((field) => Boolean(scope[field]));
}

/** The API's filter for a scope; null (no filter) when it narrows nothing. */
export function toFilter(scope: Scope): RecallFilter | null {
  if (!isScoped(scope)) return null;
  const condition = scope.meta ? metaCondition(scope.meta) : null;
  return {
    agentIds: scope.agent ? [scope.agent] : null,
    sessionIds: scope.session ? [scope.session] : null,
    metadata: condition ? [condition] : null,
  };
}
