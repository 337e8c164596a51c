// A user's interactions in time order (when they were said, then stream order), under a header
// for each day and session, with what consolidation made of each; more pages load as the end of
// the list scrolls into view (or on "Load more").
import { useEffect, useRef, useState } from "react";
import { Badge, Empty, ErrorBox, Loading, Time } from "../common";
import { graphql } from "../gql";
import type { RecallFilter, TimelinePageQuery } from "../gql/graphql";
import { useLiveQuery } from "../live";
import { LoadMore, nextCursor, type PageSlot, useCursorPages } from "../paging";
import { ForgetInteraction } from "./Forget";
import { ViewLink } from "./Scope";

const PAGE = graphql(`
  query TimelinePage($user: ID!, $first: Int!, $after: String, $filter: RecallFilter) {
    user(id: $user) {
      id
      interactions(first: $first, after: $after, order: TIME, filter: $filter) {
        pageInfo { hasNextPage endCursor }
        nodes {
          id
          seq
          sessionId
          agentId
          speaker
          text
          occurredAt
          consolidated
          pending
          consolidatedAt
          derivedEpisodes { id title version current }
        }
      }
    }
  }
`);

const SIZE = 25;

/** The timeline, narrowed by `filter` (the API's; the page keys it, so a new filter starts over). */
export function Timeline({ user, filter }: { user: string; filter: RecallFilter | null }) {
  const { pages, more, restart } = useCursorPages(user);
  const [generation, setGeneration] = useState(0);
  // After a forget the pages are read again from the start (cursors may have moved), as many as
  // were open, so the reader stays where they were.
  const [reopen, setReopen] = useState(1);
  // The last interaction of each page, so that the next page opens a new header only where the
  // day or the session changes.
  const [lasts, setLasts] = useState<Record<number, Interaction | undefined>>({});
  const reload = () => {
    setLasts({});
    setReopen(pages.length);
    restart();
    setGeneration((g) => g + 1);
  };
  return (
    <section aria-labelledby="timeline-title">
      <h2 id="timeline-title">Timeline</h2>
      <ol className="timeline" data-testid="timeline">
        {pages.map((slot, index) => (
          <TimelinePage
            key={`${generation}-${slot.after ?? "start"}`}
            slot={slot}
            user={user}
            filter={filter}
            reopen={index < reopen - 1}
            onMore={more}
            onForgotten={reload}
            onLast={(item) => setLasts((known) => (known[index] === item ? known : { ...known, [index]: item }))}
            before={lasts[index - 1]}
          />
        ))}
      </ol>
    </section>
  );
}

type PageProps = {
  slot: PageSlot;
  user: string;
  filter: RecallFilter | null;
  reopen: boolean;
  onMore: (cursor: string) => void;
  onForgotten: () => void;
  onLast: (item: Interaction | undefined) => void;
  before?: Interaction;
};

function TimelinePage({ slot, user, filter, reopen, onMore, onForgotten, onLast, before }: PageProps) {
  const [{ data, fetching, error }, reread] = useLiveQuery({ query: PAGE, variables: { user, first: SIZE, after: slot.after, filter } });
  const connection = data?.user?.interactions;
  const sentinel = useRef<HTMLLIElement>(null);
  const next = nextCursor(slot, connection);

  useEffect(() => {
    if (next && reopen) onMore(next);
  }, [next, reopen, onMore]);

  const last = connection?.nodes[connection.nodes.length - 1];
  useEffect(() => {
    onLast(last);
  }, [last, onLast]);

  useEffect(() => {
    const element = sentinel.current;
    if (!element || !next) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) onMore(next);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, [next, onMore]);

  if (error) return <li><ErrorBox error={error} retry={reread} /></li>;
  if (!connection) return fetching ? <li><Loading what="interactions" /></li> : slot.first ? <li><Empty>No interactions.</Empty></li> : null;
  if (slot.first && connection.nodes.length === 0) return <li><Empty>{filter ? "No interactions match the filter." : "No interactions yet."}</Empty></li>;
  return (
    <>
      {connection.nodes.map((item, index) => (
        <Item key={item.id} item={item} previous={index ? connection.nodes[index - 1] : before} user={user} onForgotten={onForgotten} />
      ))}
      {next && <LoadMore ref={sentinel} label="Load more" onClick={() => onMore(next)} />}
      {slot.last && !next && <li className="end muted">End of the stream ({connection.nodes.length ? "all loaded" : ""}).</li>}
    </>
  );
}

type Interaction = NonNullable<TimelinePageQuery["user"]>["interactions"]["nodes"][number];

function Item({ item, previous, user, onForgotten }: { item: Interaction; previous?: Interaction; user: string; onForgotten: () => void }) {
  const day = item.occurredAt.slice(0, 10);
  const newGroup = !previous || previous.sessionId !== item.sessionId || previous.occurredAt.slice(0, 10) !== day;
  const episode = item.derivedEpisodes.find((e) => e.current) ?? item.derivedEpisodes[item.derivedEpisodes.length - 1];
  return (
    <li className="interaction" data-testid="interaction" data-id={item.id}>
      {newGroup && (
        <h3 className="group" data-testid="timeline-group">
          {day} · session {item.sessionId ?? "none"}
        </h3>
      )}
      <div className="row">
        <span className="seq">#{item.seq}</span>
        <Time at={item.occurredAt} />
        <span className="speaker">{item.speaker}</span>
        {item.agentId && <span className="muted small">agent {item.agentId}</span>}
        {item.consolidated ? (
          <Badge tone="ok">consolidated</Badge>
        ) : item.pending ? (
          <Badge tone="wait">pending</Badge>
        ) : (
          <Badge tone="info">raw only</Badge>
        )}
      </div>
      <p className="text">{item.text}</p>
      <div className="row small">
        {episode ? (
          <span>
            Absorbed into{" "}
            <ViewLink to={{ view: "episodes", user, id: episode.id }}>
              “{episode.title}” v{episode.version}
            </ViewLink>
          </span>
        ) : (
          <span className="muted">In no episode</span>
        )}
        <ForgetInteraction id={item.id} text={item.text} onDone={onForgotten} />
      </div>
    </li>
  );
}
