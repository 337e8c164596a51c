// The scope filter bar above a user's lists and recall, and links that keep the filter: a detail
// page opened from a filtered list leads back to the list as it was.
import { createContext, type FormEvent, type ReactNode, useCallback, useContext, useState } from "react";
import { href, type UserRoute } from "../route";
import { isScoped, metaCondition, type Scope } from "../scope";

const ScopeContext = createContext<Scope>({});

export function ScopeProvider({ scope, children }: { scope: Scope; children: ReactNode }) {
  return <ScopeContext.Provider value={scope}>{children}</ScopeContext.Provider>;
}

/** The filter in force in the user's views. */
export function useScope(): Scope {
  return useContext(ScopeContext);
}

/** The hash of a user view, with the filter in force (the same function while the filter is). */
export function useViewHref(): (route: UserRoute) => string {
  const scope = useContext(ScopeContext);
  return useCallback((route: UserRoute) => href({ ...route, scope }), [scope]);
}

/** A link to a user view that keeps the filter in force. */
export function ViewLink({ to, children }: { to: UserRoute; children: ReactNode }) {
  return <a href={useViewHref()(to)}>{children}</a>;
}

/** The form (agent, session, metadata `key=value`), what the views are filtered by, and Clear.
 * Applying or clearing changes the hash; the views read the filter from there. */
export function ScopeBar({ scope, onChange }: { scope: Scope; onChange: (scope: Scope) => void }) {
  const [agent, setAgent] = useState(scope.agent ?? "");
  const [session, setSession] = useState(scope.session ?? "");
  const [meta, setMeta] = useState(scope.meta ?? "");
  const [problem, setProblem] = useState<string | null>(null);
  const apply = (event: FormEvent) => {
    event.preventDefault();
    if (meta.trim() && !metaCondition(meta)) {
      setProblem("Metadata: write it as key=value (topic=travel; a number, true or false is compared as one).");
      return;
    }
    setProblem(null);
    onChange({ agent: agent.trim() || undefined, session: session.trim() || undefined, meta: meta.trim() || undefined });
  };
  return (
    <div className="scope">
      <form className="toolbar" role="search" aria-label="Filter by scope" onSubmit={apply}>
        <label htmlFor="scope-agent">Agent</label>
        <input id="scope-agent" value={agent} onChange={(e) => setAgent(e.target.value)} placeholder="agent id" />
        <label htmlFor="scope-session">Session</label>
        <input id="scope-session" value={session} onChange={(e) => setSession(e.target.value)} placeholder="session id" />
        <label htmlFor="scope-meta">Metadata</label>
        <input id="scope-meta" value={meta} onChange={(e) => setMeta(e.target.value)} placeholder="key=value" />
        <button type="submit">Apply filter</button>
      </form>
      {problem && (
        <div className="error" role="alert">
          <strong>Invalid filter</strong> {problem}
        </div>
      )}
      {isScoped(scope) && (
        <p className="scope-active" data-testid="scope-active">
          <span>Filtered by {describe(scope)}</span>
          <button type="button" className="small" onClick={() => onChange({})}>
            Clear filter
          </button>
        </p>
      )}
    </div>
  );
}

/** "agent planner, session trip, metadata topic=travel", each value in bold. */
function describe(scope: Scope): ReactNode[] {
  const parts = [
    ["agent", scope.agent],
    ["session", scope.session],
    ["metadata", scope.meta],
  ].filter((part): part is [string, string] => Boolean(part[1]));
  return parts.map(([what, value], index) => (
    <span key={what}>
      {index > 0 && ", "}
      {what} <strong>{value}</strong>
    </span>
  ));
}
