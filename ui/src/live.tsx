// Live consolidation events of the open user: one subscription, a list of recent events, and a
// counter that views watch to re-read what the event changed.
import { createContext, type ReactNode, useContext, useEffect, useState } from "react";
import { type AnyVariables, useQuery, type UseQueryArgs, type UseQueryState, useSubscription } from "urql";
import { count } from "./common";
import { graphql } from "./gql";
import type { EventsSubscription } from "./gql/graphql";

const EVENTS = graphql(`
  subscription Events($userId: ID!) {
    consolidations(userId: $userId) {
      userId
      triggerId
      action
      episodeId
      previousEpisodeId
      factIds
      supersededFactIds
      consolidatedIds
      llmCalls
      episode { id title version }
    }
  }
`);

export type LiveEvent = EventsSubscription["consolidations"] & { receivedAt: string };

type Live = { events: LiveEvent[]; version: number };
const LiveContext = createContext<Live>({ events: [], version: 0 });

export function LiveProvider({ userId, children }: { userId: string; children: ReactNode }) {
  const [live, setLive] = useState<Live>({ events: [], version: 0 });
  useEffect(() => setLive({ events: [], version: 0 }), [userId]);
  useSubscription({ query: EVENTS, variables: { userId } }, (_previous, data) => {
    const event = { ...data.consolidations, receivedAt: new Date().toISOString() };
    setLive((current) => ({ events: [event, ...current.events].slice(0, 20), version: current.version + 1 }));
    return data;
  });
  return <LiveContext.Provider value={live}>{children}</LiveContext.Provider>;
}

export function useLive(): Live {
  return useContext(LiveContext);
}

/** Re-reads a query (from the network) whenever a live event arrives. */
function useRefreshOnEvent(refetch: () => void): void {
  const { version } = useLive();
  useEffect(() => {
    if (version > 0) refetch();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [version]);
}

/** A query that live events keep current; its second value re-reads it from the network (a retry). */
export function useLiveQuery<Data, Variables extends AnyVariables>(
  args: UseQueryArgs<Variables, Data>,
): [UseQueryState<Data, Variables>, () => void] {
  const [state, refetch] = useQuery(args);
  const reread = () => refetch({ requestPolicy: "network-only" });
  useRefreshOnEvent(reread);
  return [state, reread];
}

export function LivePanel() {
  const { events } = useLive();
  return (
    <section className="live" aria-labelledby="live-title">
      <h2 id="live-title">Live consolidations</h2>
      <div aria-live="polite" data-testid="live-events">
        {events.length === 0 ? (
          <p className="state empty">Listening… new episodes and merges appear here.</p>
        ) : (
          <ul>
            {events.map((event) => (
              <li key={`${event.triggerId}-${event.receivedAt}`} className="live-event">
                <strong>{event.action}</strong>{" "}
                {event.episode ? `“${event.episode.title}” v${event.episode.version}` : event.episodeId}
                <br />
                <small>
                  {count(event.consolidatedIds.length, "turn")} absorbed, {count(event.factIds.length, "fact")} added,{" "}
                  {event.supersededFactIds.length} superseded, {count(event.llmCalls, "consolidator call")}
                </small>
              </li>
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}
