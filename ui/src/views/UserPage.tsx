// One user: a header with the user's counts (within the filter), Export and Forget; tabs for the
// timeline, episodes, facts and recall, the scope filter of the lists, recall and counts (kept in
// the hash); live events beside them.
import { ErrorBox } from "../common";
import { graphql } from "../gql";
import type { RecallFilter } from "../gql/graphql";
import { LivePanel, LiveProvider, useLiveQuery } from "../live";
import { href, type UserRoute } from "../route";
import { type Scope, toFilter } from "../scope";
import { Episodes } from "./Episodes";
import { ExportButton } from "./Export";
import { Facts } from "./Facts";
import { ForgetUser } from "./Forget";
import { RecallPlayground } from "./Recall";
import { ScopeBar, ScopeProvider } from "./Scope";
import { Timeline } from "./Timeline";

const USER = graphql(`
  query UserHeader($id: ID!, $filter: RecallFilter) {
    user(id: $id) {
      id
      exportUrl
      stats(filter: $filter) { interactions pending consolidated episodes episodeVersions activeFacts supersededFacts retractedFacts runs promptTokens completionTokens }
    }
  }
`);

const TABS = [
  ["timeline", "Timeline"],
  ["episodes", "Episodes"],
  ["facts", "Facts"],
  ["recall", "Recall"],
] as const;

export function UserPage({ route }: { route: UserRoute }) {
  const scope = route.scope ?? {};
  // Asked of the API by each list and recall (never applied to what a page loaded).
  const filter = toFilter(scope);
  // A new filter reads the timeline afresh (its pages, headers and cursors are the filter's).
  const scopeKey = JSON.stringify(filter);
  const list = !("id" in route && route.id);
  const rescope = (next: Scope) => {
    window.location.hash = href({ ...route, scope: next });
  };
  return (
    <LiveProvider userId={route.user}>
      <ScopeProvider scope={scope}>
        <div className="user-layout">
          <main className="page">
            <UserHeader user={route.user} filter={filter} />
            <nav className="tabs" aria-label="User views">
              {TABS.map(([view, label]) => (
                <a key={view} href={href({ view, user: route.user, scope })} aria-current={route.view === view ? "page" : undefined}>
                  {label}
                </a>
              ))}
            </nav>
            {list && <ScopeBar key={`bar-${scopeKey}`} scope={scope} onChange={rescope} />}
            {route.view === "timeline" && <Timeline key={`timeline-${scopeKey}`} user={route.user} filter={filter} />}
            {route.view === "episodes" && <Episodes user={route.user} id={route.id} filter={filter} />}
            {route.view === "facts" && <Facts user={route.user} id={route.id} filter={filter} />}
            {route.view === "recall" && <RecallPlayground user={route.user} filter={filter} />}
          </main>
          <aside>
            <LivePanel />
          </aside>
        </div>
      </ScopeProvider>
    </LiveProvider>
  );
}

/** The user's counts, narrowed by the filter as the lists under them are (runs and tokens hold no
 * scope: they stay the whole user's, and say so while a filter is on). */
function UserHeader({ user, filter }: { user: string; filter: RecallFilter | null }) {
  const [{ data, error }] = useLiveQuery({ query: USER, variables: { id: user, filter } });
  const stats = data?.user?.stats;
  return (
    <header className="user-head">
      <div>
        <a href={href({ view: "users" })}>Users</a> /
        <h1>{user}</h1>
      </div>
      {error && <ErrorBox error={error} />}
      {data && !data.user && <p className="state empty">This user has no memory (yet, or any more).</p>}
      {stats && (
        <dl className="stats" data-testid="user-stats">
          <div><dt>Interactions</dt><dd>{stats.interactions}</dd></div>
          <div><dt>Pending</dt><dd>{stats.pending}</dd></div>
          <div><dt>Episodes</dt><dd>{stats.episodes} <small>({stats.episodeVersions} versions)</small></dd></div>
          <div><dt>Facts</dt><dd>{stats.activeFacts} <small>+{stats.supersededFacts} superseded, {stats.retractedFacts} retracted</small></dd></div>
          <div><dt>Tokens</dt><dd>{stats.promptTokens + stats.completionTokens} <small>in {stats.runs} runs</small></dd></div>
        </dl>
      )}
      {stats && filter && (
        <p className="muted stats-note" data-testid="stats-filtered">Counts within the filter; tokens and runs are the whole user's.</p>
      )}
      {data?.user && (
        <div className="user-actions">
          <ExportButton user={user} url={data.user.exportUrl} />
          <ForgetUser user={user} onDone={() => (window.location.hash = href({ view: "users" }))} />
        </div>
      )}
    </header>
  );
}
