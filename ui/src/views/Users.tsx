// The tenant's users: search, stats, paging forward and back over the Relay connection.
import { useEffect, useState } from "react";
import { useQuery } from "urql";
import { count, Empty, ErrorBox, Loading, Time } from "../common";
import { graphql } from "../gql";
import { href } from "../route";

const USERS = graphql(`
  query Users($first: Int!, $after: String, $search: String) {
    users(first: $first, after: $after, search: $search) {
      totalCount
      pageInfo { hasNextPage endCursor }
      nodes {
        id
        createdAt
        stats { interactions pending consolidated episodes activeFacts supersededFacts runs promptTokens completionTokens }
      }
    }
  }
`);

const PAGE = 20;

export function Users() {
  const [typed, setTyped] = useState("");
  const [search, setSearch] = useState("");
  // Cursors of the pages before this one: "Previous" pops one.
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  useEffect(() => {
    const timer = window.setTimeout(() => {
      setSearch(typed.trim());
      setCursors([null]);
    }, 250);
    return () => window.clearTimeout(timer);
  }, [typed]);
  const after = cursors[cursors.length - 1];
  const [{ data, fetching, error }, refetch] = useQuery({
    query: USERS,
    variables: { first: PAGE, after, search: search || null },
  });
  const page = data?.users;

  return (
    <main className="page">
      <h1>Users</h1>
      <div className="toolbar">
        <label htmlFor="user-search">Search users</label>
        <input id="user-search" type="search" value={typed} onChange={(e) => setTyped(e.target.value)} placeholder="user id" />
        {page && <span className="muted">{count(page.totalCount, "user")}</span>}
      </div>
      {error && <ErrorBox error={error} retry={() => refetch({ requestPolicy: "network-only" })} />}
      {fetching && !page && <Loading what="users" />}
      {page && page.nodes.length === 0 && <Empty>No users{search ? ` match “${search}”` : " yet"}.</Empty>}
      {page && page.nodes.length > 0 && (
        <div className="scroll-x">
          <table className="users">
            <caption className="sr-only">Users of this tenant with the size of their memory</caption>
            <thead>
              <tr>
                <th scope="col">User</th>
                <th scope="col">Interactions</th>
                <th scope="col">Pending</th>
                <th scope="col">Episodes</th>
                <th scope="col">Facts (active / superseded)</th>
                <th scope="col">Tokens spent</th>
                <th scope="col">Since</th>
              </tr>
            </thead>
            <tbody>
              {page.nodes.map((user) => (
                <tr key={user.id}>
                  <th scope="row">
                    <a href={href({ view: "timeline", user: user.id })}>{user.id}</a>
                  </th>
                  <td>{user.stats.interactions}</td>
                  <td>{user.stats.pending}</td>
                  <td>{user.stats.episodes}</td>
                  <td>
                    {user.stats.activeFacts} / {user.stats.supersededFacts}
                  </td>
                  <td>{user.stats.promptTokens + user.stats.completionTokens}</td>
                  <td>
                    <Time at={user.createdAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav className="pager" aria-label="Users pages">
        <button type="button" disabled={cursors.length < 2} onClick={() => setCursors(cursors.slice(0, -1))}>
          Previous
        </button>
        <span className="muted">Page {cursors.length}</span>
        <button
          type="button"
          disabled={!page?.pageInfo.hasNextPage}
          onClick={() => page?.pageInfo.endCursor && setCursors([...cursors, page.pageInfo.endCursor])}
        >
          Next
        </button>
      </nav>
    </main>
  );
}
