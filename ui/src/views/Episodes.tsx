// Episodes: the current versions, and one episode's version history with what each merge changed
// (a word diff of the summaries) and the interactions each version rests on. The list loads a
// page at a time ("Load more episodes").
import { diffWords } from "diff";
import { Badge, count, Empty, ErrorBox, Loading, Time } from "../common";
import { graphql } from "../gql";
import type { EpisodeDetailQuery, RecallFilter } from "../gql/graphql";
import { useLiveQuery } from "../live";
import { LoadMore, nextCursor, type PageSlot, useCursorPages } from "../paging";
import { ViewLink } from "./Scope";

const LIST = graphql(`
  query EpisodeList($user: ID!, $first: Int!, $after: String, $filter: RecallFilter) {
    user(id: $user) {
      id
      episodes(first: $first, after: $after, current: true, filter: $filter) {
        pageInfo { hasNextPage endCursor }
        nodes { id title version summary firstAt lastAt }
      }
    }
  }
`);

// Episodes per page: cards with a summary each, a page like the timeline's.
const SIZE = 25;

const DETAIL = graphql(`
  query EpisodeDetail($id: ID!) {
    episode(id: $id) {
      id
      title
      versions {
        id
        version
        current
        title
        summary
        validFrom
        supersededAt
        createdAt
        sources { similarity interaction { id seq text occurredAt speaker } }
        facts { id text kind status }
      }
    }
  }
`);

export function Episodes({ user, id, filter }: { user: string; id?: string; filter: RecallFilter | null }) {
  return id ? <EpisodeDetail user={user} id={id} /> : <EpisodeList user={user} filter={filter} />;
}

function EpisodeList({ user, filter }: { user: string; filter: RecallFilter | null }) {
  // One slot per loaded page, as in the other lists; the filter is the API's, so a new one starts over.
  const scopeKey = JSON.stringify(filter);
  const { pages, more } = useCursorPages(JSON.stringify([user, scopeKey]));
  return (
    <section aria-labelledby="episodes-title">
      <h2 id="episodes-title">Episodes</h2>
      <ul className="cards" data-testid="episode-list">
        {pages.map((slot) => (
          <EpisodePage key={`${scopeKey}-${slot.after ?? "start"}`} slot={slot} user={user} filter={filter} onMore={more} />
        ))}
      </ul>
    </section>
  );
}

type EpisodePageProps = { slot: PageSlot; user: string; filter: RecallFilter | null; onMore: (cursor: string) => void };

function EpisodePage({ slot, user, filter, onMore }: EpisodePageProps) {
  const [{ data, fetching, error }, reread] = useLiveQuery({ query: LIST, variables: { user, first: SIZE, after: slot.after, filter } });
  const connection = data?.user?.episodes;
  const episodes = connection?.nodes ?? [];
  const next = nextCursor(slot, connection);
  if (error) return <li><ErrorBox error={error} retry={reread} /></li>;
  if (fetching && !data) return <li><Loading what="episodes" /></li>;
  return (
    <>
      {slot.first && !next && episodes.length === 0 && <li><Empty>{filter ? "No episodes match the filter." : "No episodes yet: a topic becomes one once it recurs."}</Empty></li>}
      {episodes.map((episode) => (
        <li key={episode.id} className="card">
          <ViewLink to={{ view: "episodes", user, id: episode.id }}>
            <strong>{episode.title}</strong> <Badge tone="info">v{episode.version}</Badge>
          </ViewLink>
          <p>{episode.summary}</p>
          <small>
            <Time at={episode.firstAt} /> – <Time at={episode.lastAt} />
          </small>
        </li>
      ))}
      {next && <LoadMore label="Load more episodes" onClick={() => onMore(next)} />}
    </>
  );
}

type Version = NonNullable<EpisodeDetailQuery["episode"]>["versions"][number];

function EpisodeDetail({ user, id }: { user: string; id: string }) {
  const [{ data, fetching, error }, reread] = useLiveQuery({ query: DETAIL, variables: { id } });
  const episode = data?.episode;
  // Oldest first, so each version is shown against the one it replaced.
  const versions = episode ? [...episode.versions].sort((a, b) => a.version - b.version) : [];
  return (
    <section aria-labelledby="episode-title">
      <p>
        <ViewLink to={{ view: "episodes", user }}>← All episodes</ViewLink>
      </p>
      {error && <ErrorBox error={error} retry={reread} />}
      {fetching && !data && <Loading what="the episode" />}
      {data && !episode && <Empty>This episode no longer exists.</Empty>}
      {episode && (
        <>
          <h2 id="episode-title">{episode.title}</h2>
          <p className="muted">{versions.length} versions; each merge shown as a diff of the summary it replaced.</p>
          <ol className="versions" data-testid="episode-versions" reversed>
            {versions
              .map((version, index) => <VersionCard key={version.id} user={user} version={version} previous={versions[index - 1]} selected={version.id === id} />)
              .reverse()}
          </ol>
        </>
      )}
    </section>
  );
}

function VersionCard({ user, version, previous, selected }: { user: string; version: Version; previous?: Version; selected: boolean }) {
  const parts = previous ? diffWords(previous.summary, version.summary) : null;
  return (
    <li className={`card version${selected ? " selected" : ""}`} data-testid="episode-version">
      <h3>
        Version {version.version} {version.current ? <Badge tone="ok">current</Badge> : <Badge tone="old">replaced <Time at={version.supersededAt} /></Badge>}
      </h3>
      <p className="muted small">
        valid from <Time at={version.validFrom} />, written <Time at={version.createdAt} />
      </p>
      {parts ? (
        <p className="diff" aria-label={`Changes from version ${previous?.version}`}>
          {parts.map((part, index) =>
            part.added ? (
              <ins key={index}>{part.value}</ins>
            ) : part.removed ? (
              <del key={index}>{part.value}</del>
            ) : (
              <span key={index}>{part.value}</span>
            ),
          )}
        </p>
      ) : (
        <p>{version.summary}</p>
      )}
      <details>
        <summary>
          {count(version.sources.length, "source")}, {count(version.facts.length, "fact")}
        </summary>
        <h4>Sources</h4>
        <ul className="sources">
          {version.sources.map((source) => (
            <li key={source.interaction.id}>
              #{source.interaction.seq} <Time at={source.interaction.occurredAt} /> {source.interaction.speaker}: “{source.interaction.text}”{" "}
              {source.similarity != null && <small>(similarity {source.similarity.toFixed(2)})</small>}
            </li>
          ))}
        </ul>
        <h4>Facts refined from it</h4>
        <ul>
          {version.facts.map((fact) => (
            <li key={fact.id}>
              <ViewLink to={{ view: "facts", user, id: fact.id }}>{fact.text}</ViewLink> <Badge tone={fact.status === "ACTIVE" ? "ok" : "old"}>{fact.status.toLowerCase()}</Badge>
            </li>
          ))}
        </ul>
      </details>
    </li>
  );
}
